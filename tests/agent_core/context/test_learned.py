"""Selection learns from the user's corrections: an agent-mode item added right after a message is
selected for that message (and ones much like it) next time, one removed is not, View Context
and `contextdesk select --json` say why, and clearing restores the original selection. Real
MiniLM, the real SQLite store, a scripted chat model."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ChatEvent, ContextBuilt, ToolCallFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.cli.main import main
from agent_core.context.items import ItemRef, RequestContext
from agent_core.context.learned import LearnedSelections, ref_of_key, taught
from agent_core.context.selection import ContextSelector
from agent_core.paths import user_dirs
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from indexer import Document

REGEX = ItemRef("rule", "regex-style")
RELEASES = ItemRef("reference", "release-process")
UNRELATED = "make this sane: ^(\\d{3})-?(\\d{4})$"


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = create_agent(tmp_path / "agent").root
    for folder in ("rules", "references"):
        for path in (root / folder).glob("*.md"):
            path.unlink()
    (root / "rules" / "regex-style.md").write_text(
        "---\ndescription: How we write regular expressions in our code\ninclude: agent\n---\n"
        "Name every group, anchor patterns, and add a comment with an example match.\n"
    )
    (root / "references" / "release-process.md").write_text(
        "---\ndescription: How releases go out to staging and production\ninclude: agent\n---\n"
        "Deploy to staging first; production follows after the smoke tests pass.\n"
    )
    return load_agent(root)


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


class Chats:
    def __init__(self, agent: Agent, tmp_path: Path, selector: ContextSelector) -> None:
        self.agent = agent
        self.store = ChatStore(tmp_path / "chats.sqlite3")
        self.learned = LearnedSelections(self.store.path)
        selector.learned = self.learned
        self.selector = selector

    def ask(self, text: str) -> tuple[ChatSession, RequestContext]:
        provider = ScriptedProvider()
        provider.enqueue_reply("ok")
        services = ChatServices(resolve_provider=lambda m: (provider, "x"), selector=self.selector)
        session = ChatSession.create(self.agent, self.store, services)

        async def run() -> list[ChatEvent]:
            return [event async for event in session.send(text)]

        built = next(e for e in asyncio.run(run()) if isinstance(e, ContextBuilt))
        return session, built.context

    def close(self) -> None:
        self.selector.learned = None
        self.learned.close()
        self.store.close()


@pytest.fixture
def chats(agent: Agent, tmp_path: Path, selector: ContextSelector) -> Iterator[Chats]:
    made = Chats(agent, tmp_path, selector)
    yield made
    made.close()


def agent_items(context: RequestContext) -> list[ItemRef]:
    return [i.ref for i in context.items if i.include_mode == "agent"]


@pytest.mark.slow
def test_an_item_added_after_a_message_is_selected_for_it_next_time_and_says_why(chats: Chats) -> None:
    session, context = chats.ask(UNRELATED)
    assert REGEX not in agent_items(context)
    session.add_item(REGEX, learn=True)
    [correction] = chats.learned.corrections(str(chats.agent.root))
    assert (correction.ref, correction.message, correction.added) == (REGEX, UNRELATED, True)

    _, again = chats.ask(UNRELATED)
    [item] = [i for i in again.items if i.ref == REGEX]
    assert item.include_mode == "agent" and item.reason.startswith("selected because you added it after")
    _, other = chats.ask("how do releases go out to production?")
    assert REGEX not in agent_items(other)  # a different request is not affected

    assert chats.learned.clear(str(chats.agent.root)) == 1
    _, cleared = chats.ask(UNRELATED)
    assert agent_items(cleared) == agent_items(context)  # clearing restores the original selection


@pytest.mark.slow
def test_an_item_removed_after_a_message_is_not_selected_again_for_it(chats: Chats) -> None:
    message = "how do releases go out to production?"
    session, context = chats.ask(message)
    assert RELEASES in agent_items(context)
    session.remove_item(RELEASES, learn=True)
    _, again = chats.ask(message)
    assert RELEASES not in agent_items(again)
    [miss] = [m for m in again.near_misses if m.ref == RELEASES]
    assert miss.reason.startswith("you removed it after a similar message on")


@pytest.mark.slow
def test_adding_what_was_selected_or_an_item_by_hand_without_a_reply_teaches_nothing(chats: Chats) -> None:
    message = "how do releases go out to production?"
    session, context = chats.ask(message)
    assert RELEASES in agent_items(context)
    session.add_item(RELEASES, learn=True)  # it was selected already: no correction
    session.remove_item(REGEX, learn=True)  # it was not selected: no correction
    fresh = ChatSession.create(chats.agent, chats.store, session.services)
    fresh.add_item(REGEX, learn=True)  # no reply yet: nothing to correct
    assert chats.learned.corrections(str(chats.agent.root)) == []


def test_the_newest_correction_of_a_message_wins_and_only_agent_items_are_kept(tmp_path: Path) -> None:
    store = LearnedSelections(tmp_path / "db.sqlite3")
    store.record("/a", REGEX, "tidy this", added=True)
    store.record("/a", REGEX, "tidy this", added=False)  # changed their mind
    store.record("/b", REGEX, "tidy this", added=True)  # another agent
    [only] = store.corrections("/a")
    assert only.added is False
    doc = Document("rule:regex-style", "rule", "regex-style", "d", "t")
    [applied] = taught([doc], store.corrections("/a"))
    assert (applied.learned, applied.avoid) == ((), ("tidy this",))
    assert store.clear("/a", ItemRef("rule", "other")) == 0 and store.clear("/a", REGEX) == 1
    assert store.corrections("/a") == [] and len(store.corrections("/b")) == 1
    store.close()
    assert ref_of_key("tool:git/git_log") == ItemRef("tool", "git_log", "git")
    assert ref_of_key("reference:x") == ItemRef("reference", "x") and ref_of_key("bogus") is None


@pytest.mark.slow
def test_the_cli_lists_and_clears_what_was_learned_and_select_json_says_how_items_got_in(
    agent: Agent, capsys: pytest.CaptureFixture[str]
) -> None:
    store = LearnedSelections(user_dirs().database)
    store.record(str(agent.root), REGEX, UNRELATED, added=True)
    store.close()
    assert main(["agent", "learned", str(agent.root), "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert (listed["item"], listed["message"], listed["needed"]) == ("rule:regex-style", UNRELATED, True)

    assert main(["select", "--agent", str(agent.root), "--json", UNRELATED]) == 0
    selected = json.loads(capsys.readouterr().out)["selected"]
    [regex] = [s for s in selected if s["name"] == "regex-style"]
    assert regex["via"] == "learned" and "you added it after" in regex["reason"]
    assert main(["select", "--agent", str(agent.root), "--json", "--no-learned", UNRELATED]) == 0
    assert all(s["name"] != "regex-style" for s in json.loads(capsys.readouterr().out)["selected"])

    assert main(["agent", "learned", str(agent.root), "--clear", "rule:regex-style"]) == 0
    assert "Forgot 1 correction(s) of rule:regex-style" in capsys.readouterr().out
    assert main(["agent", "learned", str(agent.root)]) == 0
    assert capsys.readouterr().out.startswith("Nothing learned yet.")


@pytest.mark.slow
def test_the_default_agent_finds_the_obvious_rule_and_says_which_mechanism_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = create_agent(tmp_path / "default").root
    assert (
        main(["select", "--agent", str(root), "--json", "Write a python function that reverses a string"])
        == 0
    )
    [code] = [s for s in json.loads(capsys.readouterr().out)["selected"] if s["name"] == "code-answers"]
    assert code["via"] == "example" and code["reason"].startswith("matched its example")
    compound = "fix the failing sort in my script, then help me word a note to my landlord about the heating"
    assert main(["select", "--agent", str(root), "--json", compound]) == 0
    selected = {s["name"]: s["via"] for s in json.loads(capsys.readouterr().out)["selected"]}
    assert {"code-answers", "writing-style"} <= set(selected)
    assert "clause" in selected.values() or "example" in selected.values()


@pytest.mark.slow
def test_a_model_that_chooses_tools_can_read_what_selection_left_out_and_selection_learns_it(
    chats: Chats,
) -> None:
    message = "how do releases go out to production?"
    provider = ScriptedProvider()
    provider.enqueue_tool_call("context__read_item", {"kind": "rule", "name": "regex-style"})
    provider.enqueue_tool_call("context__read_item", {"kind": "rule", "name": "pirate"})
    provider.enqueue_reply("Done.")
    services = ChatServices(resolve_provider=lambda m: (provider, "x"), selector=chats.selector)
    session = ChatSession.create(chats.agent, chats.store, services)

    async def run() -> list[ChatEvent]:
        return [event async for event in session.send(message)]

    events = asyncio.run(run())
    first = provider.requests[0]
    [catalogue] = [t for t in first.tools if t.name == "context__read_item"]
    assert "- rule regex-style: How we write regular expressions" in catalogue.description
    assert "release-process" not in catalogue.description  # selected already: not in the catalogue
    results = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert results[0].result.startswith("Name every group") and not results[0].is_error
    assert results[1].is_error and "no rule named 'pirate' in the catalogue" in results[1].result
    context = session.last_request_context()
    assert context is not None
    [pulled] = [i for i in context.items if i.ref == REGEX]
    assert (pulled.include_mode, pulled.reason) == ("agent", "requested by the model")
    [reader] = [i for i in context.items if i.ref == ItemRef("tool", "read_item", "context")]
    assert reader.reason == "lets the model read what selection left out (1 item listed)"
    [learned] = chats.learned.corrections(str(chats.agent.root))
    assert (learned.ref, learned.message, learned.added) == (REGEX, message, True)
