"""A rule with ``globs:`` joins the request that names a matching file, in a real chat driven by
the scripted provider, and the RequestContext says which file matched which glob."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ChatEvent, ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef, RequestContext, RequestItem
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.tools.runtime import NoTools

REACT = ItemRef("rule", "react-components")
COMPONENT_RULE = "Components are function components with props typed by an interface."


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    # As the Cursor importer writes a globs-only rule: manual, so it joins only by file.
    (root / "rules" / "react-components.md").write_text(
        f'---\ninclude: manual\nglobs: ["src/components/**/*.tsx", "src/components/**/*.ts"]\n---\n{COMPONENT_RULE}\n'
    )
    (root / "rules" / "python-style.md").write_text(
        '---\ninclude: agent\ndescription: How Python code is written here\nglobs: ["*.py"]\n---\nType everything.\n'
    )
    return load_agent(root)


def chat(agent: Agent, tmp_path: Path, provider: ScriptedProvider) -> ChatSession:
    return ChatSession.create(
        agent,
        ChatStore(tmp_path / "chats.sqlite3"),
        ChatServices(resolve_provider=lambda model: (provider, model.partition(":")[2]), tools=NoTools()),
    )


def send(session: ChatSession, text: str) -> RequestContext:
    async def scenario() -> list[ChatEvent]:
        return [event async for event in session.send(text)]

    final = asyncio.run(scenario())[-1]
    assert isinstance(final, ReplyFinished) and final.message.request_context is not None
    return final.message.request_context


def test_a_message_naming_a_matching_file_gets_the_rule_with_the_file_as_reason(
    agent: Agent, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Added.")
    session = chat(agent, tmp_path, provider)
    context = send(session, "Add a loading state to src/components/Button.tsx")
    assert (
        RequestItem(
            REACT, "agent", reason="matched file src/components/Button.tsx (glob src/components/**/*.tsx)"
        )
        in context.items
    )
    # Sent for this message, in its own context block (not the system prompt, which stays cached).
    [request] = provider.requests
    assert COMPONENT_RULE not in request.messages[0].content
    assert COMPONENT_RULE in request.messages[-1].content
    assert REACT not in [item.ref for item in session.items]  # joined the request, not the chat


def test_a_message_naming_no_file_does_not_get_the_rule(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Use a spinner.")
    context = send(chat(agent, tmp_path, provider), "How do I show a loading state in a button?")
    assert REACT not in [item.ref for item in context.items]
    assert COMPONENT_RULE not in str(provider.requests[0].messages)


def test_a_message_naming_a_file_elsewhere_does_not_get_the_rule(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Done.")
    context = send(chat(agent, tmp_path, provider), "rename server/routes/Button.tsx to button.tsx")
    assert REACT not in [item.ref for item in context.items]


def test_an_agent_mode_rule_with_globs_joins_by_file_name_without_selection(
    agent: Agent, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Fixed.")
    context = send(chat(agent, tmp_path, provider), "utils.py raises KeyError")
    [item] = [i for i in context.items if i.ref == ItemRef("rule", "python-style")]
    assert (item.include_mode, item.reason) == ("agent", "matched file utils.py (glob *.py)")
    assert context.selection.status == "disabled"  # no embedding model in this chat: globs need none


def test_an_attached_resource_with_a_matching_path_brings_the_rule(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("It renders a button.")
    session = chat(agent, tmp_path, provider)
    uri = "file:///home/me/shop/src/components/Button.tsx"
    session.attach_resource("files", uri, "export function Button() {}", title="Button.tsx")
    context = send(session, "what does this component do?")
    [item] = [i for i in context.items if i.ref == REACT]
    assert item.reason == f"matched attached resource {uri} (glob src/components/**/*.tsx)"


def test_a_rule_already_in_the_chat_is_not_added_twice(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Added.")
    session = chat(agent, tmp_path, provider)
    session.add_item(REACT)
    context = send(session, "Add a loading state to src/components/Button.tsx")
    assert [(i.include_mode, i.reason) for i in context.items if i.ref == REACT] == [("manual", "")]


def test_what_if_matches_the_globs_again_and_can_turn_the_rule_off(agent: Agent, tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Added.")
    session = chat(agent, tmp_path, provider)
    send(session, "Add a loading state to src/components/Button.tsx")
    reply = session.history()[-1]
    again = asyncio.run(session.what_if(reply))
    assert [i.reason for i in again.items if i.ref == REACT] == [
        "matched file src/components/Button.tsx (glob src/components/**/*.tsx)"
    ]
    without = asyncio.run(session.what_if(reply, exclude=[REACT]))
    assert REACT not in [i.ref for i in without.items]
