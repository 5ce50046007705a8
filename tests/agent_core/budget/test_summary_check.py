"""A compaction summary must stand for the turns it replaces: an empty or markup-only note, or one
that drops what the turns named, is refused and a summary taken from the messages stands in."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.budget.summary_check import check_summary, extractive_summary, named_things
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore, StoredMessage, ToolCallRecord
from tests.support.models import runnable_offline_model

TURNS = [
    ("user", "Our release is on 2026-12-04; Dana owns it. Check deploy/staging.yaml please."),
    ("assistant", "staging.yaml pins image 4.2.1 and replicas 3. Dana should bump it to 4.3.0."),
    ("user", "Also the budget is 12,000 euros and the vendor is Kestrel."),
    ("assistant", "Noted: budget 12,000 euros, vendor Kestrel."),
]


def messages() -> list[StoredMessage]:
    out = [
        StoredMessage(id=i + 1, session_id="s", role=role, content=text, status="complete", created_at=0.0)  # type: ignore[arg-type]
        for i, (role, text) in enumerate(TURNS)
    ]
    call = ToolCallRecord(
        "c1", "workspace", "read_file", {"path": "deploy/staging.yaml"}, "image: 4.2.1\nreplicas: 3"
    )
    out[1] = StoredMessage(
        id=2,
        session_id="s",
        role="assistant",
        content=TURNS[1][1],
        status="complete",
        created_at=0.0,
        tool_calls=(call,),
    )
    return out


@pytest.mark.parametrize(
    ("summary", "why"),
    [
        ("", "empty"),
        ("```\n```", "only markup"),
        ("## Intent\n- ok", "too short"),
        ("The user talked about a release and some money with a vendor and a teammate.", "kept 0 of the"),
    ],
)
def test_a_summary_that_cannot_stand_for_the_turns_is_refused(summary: str, why: str) -> None:
    verdict = check_summary(summary, messages())
    assert not verdict.ok and why in verdict.reason


def test_a_faithful_summary_passes_and_named_things_are_found() -> None:
    summary = "Release 2026-12-04, owner Dana; deploy/staging.yaml has image 4.2.1 (bump to 4.3.0). Budget 12,000 euros, vendor Kestrel."
    assert check_summary(summary, messages()).ok
    assert {"deploy/staging.yaml", "4.2.1", "12,000", "Kestrel", "2026-12-04"} <= named_things(
        [text for _, text in TURNS]
    )


def test_the_extractive_summary_keeps_each_turn_and_tool_call_and_says_why() -> None:
    text = extractive_summary(messages(), "Earlier: the project is Heron.", "the model's summary was empty")
    lines = text.splitlines()
    assert lines[0] == "Conversation so far (taken from the messages, because the model's summary was empty):"
    assert lines[1] == "- earlier: Earlier: the project is Heron."
    assert "- user: Our release is on 2026-12-04; Dana owns it. Check deploy/staging.yaml please." in lines
    assert any(line.startswith("- tool: ") and "workspace.read_file" in line for line in lines)
    assert extractive_summary(messages(), None, "x") == extractive_summary(
        messages(), None, "x"
    )  # deterministic


def _chat(tmp_path: Path, provider: ScriptedProvider, model: str = "scripted:x") -> ChatSession:
    root = create_agent(tmp_path / "agent").root
    agent = load_agent(root)
    agent.config.chat.model = model
    session = ChatSession.create(
        agent, ChatStore(tmp_path / "db.sqlite3"), ChatServices(lambda m: (provider, "x"))
    )
    session.override_settings(context={"keep_recent_turns": 1, "auto_compact": False})
    return session


def test_a_junk_summary_from_the_model_is_replaced_by_the_turns_themselves(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    session = _chat(tmp_path, provider)
    for (_, text), (_, reply) in zip(TURNS[0::2], TURNS[1::2], strict=True):
        provider.enqueue_reply(reply)

        async def send(message: str = text) -> None:
            async for _ in session.send(message):
                pass

        asyncio.run(send())
    provider.enqueue_reply("```\n```")  # what the bundled model once wrote
    summary = asyncio.run(session.compact())
    assert summary is not None and summary.role == "summary"
    assert summary.content.startswith(
        "Conversation so far (taken from the messages, because the model's summary was only markup)"
    )
    assert "Dana owns it" in summary.content and "deploy/staging.yaml" in summary.content


@pytest.mark.slow
def test_the_bundled_model_compacts_a_chat_into_a_summary_that_stands_for_it(tmp_path: Path) -> None:
    from agent_core.workspace import Workspace

    runnable_offline_model()
    root = create_agent(tmp_path / "agent").root
    workspace = Workspace(load_agent(root), store=ChatStore(tmp_path / "db.sqlite3"))

    async def scenario() -> StoredMessage | None:
        try:
            session = workspace.new_chat()
            session.override_settings(context={"keep_recent_turns": 1, "auto_compact": False})
            for _, text in [*TURNS[0::2], ("user", "Thanks. Anything else to check?")]:
                async for _ in session.send(text):
                    pass
            return await session.compact()
        finally:
            await workspace.aclose()

    summary = asyncio.run(asyncio.wait_for(scenario(), 600))
    assert summary is not None
    # Whatever the small model wrote, what is kept stands for the turns.
    covered = [
        StoredMessage(id=1, session_id="s", role="user", content=t, status="complete", created_at=0.0)
        for _, t in TURNS[0::2]
    ]  # type: ignore[arg-type]
    assert check_summary(summary.content, covered).ok or summary.content.startswith(
        "Conversation so far (taken from"
    )
    assert "Dana" in summary.content or "2026-12-04" in summary.content or "Kestrel" in summary.content
