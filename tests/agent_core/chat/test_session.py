"""The chat loop, driven by the scripted provider at the provider boundary."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ContextBuilt,
    PromptProgress,
    ReplyDelta,
    ReplyFinished,
    RequestSent,
    RetryScheduled,
    ToolCallFinished,
    UserMessageSaved,
)
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef
from agent_core.errors import ContextDeskError, ProviderAuthError, ProviderUnavailableError
from agent_core.providers.base import PromptProgressEvent, Provider
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.tools.runtime import NoTools
from tests.support.chat_tools import PythonTools, Tool


async def no_sleep(seconds: float) -> None:
    return None


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "rules" / "pirate.md").write_text(
        "---\ninclude: manual\npriorityLevel: 50\n---\nSpeak like a pirate.\n"
    )
    return load_agent(root)


@pytest.fixture
def store(tmp_path: Path) -> ChatStore:
    return ChatStore(tmp_path / "chats.sqlite3")


def new_session(
    agent: Agent, store: ChatStore, provider: Provider, tools: PythonTools | None = None
) -> ChatSession:
    return ChatSession.create(
        agent,
        store,
        ChatServices(
            resolve_provider=lambda model: (provider, model.partition(":")[2]),
            tools=tools if tools is not None else NoTools(),
            streamer=functools.partial(stream_with_retries, sleep=no_sleep),
        ),
    )


async def collect(session: ChatSession, text: str, decide: ApprovalDecision | None = None) -> list[ChatEvent]:
    events: list[ChatEvent] = []
    async for event in session.send(text):
        events.append(event)
        if isinstance(event, ApprovalRequest):
            assert decide is not None, "an approval was requested but the test gives no decision"
            event.decide(decide)
    return events


def test_a_message_is_answered_from_exactly_its_request_context(agent: Agent, store: ChatStore) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Hello there, friend.")
    session = new_session(agent, store, provider)
    events = asyncio.run(collect(session, "hi"))

    assert isinstance(events[0], UserMessageSaved) and events[0].message.content == "hi"
    context = next(e.context for e in events if isinstance(e, ContextBuilt))
    assert [(i.ref.key, i.include_mode) for i in context.items] == [("rule:clear-answers", "always")]
    assert context.selection.status == "disabled"
    assert "".join(e.text for e in events if isinstance(e, ReplyDelta)) == "Hello there, friend."
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.status == "complete"
    assert final.message.request_context is not None
    assert final.message.request_context.items == context.items

    [request] = provider.requests
    system = request.messages[0]
    assert system.role == "system" and system.cache_breakpoint
    assert "Lead with the answer" in system.content  # the always rule's text
    assert "Speak like a pirate" not in system.content  # a manual rule not in the chat
    assert request.messages[-1].content == "hi"
    assert session.title == "hi"
    provider.assert_all_used()


def test_a_mention_adds_the_item_to_the_chat_and_the_prompt(agent: Agent, store: ChatStore) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Arr.")
    provider.enqueue_reply("Arr again.")
    session = new_session(agent, store, provider)
    asyncio.run(collect(session, "@rule:pirate say hello"))
    assert ItemRef("rule", "pirate") in [i.ref for i in session.items]
    assert "Speak like a pirate" in provider.requests[0].messages[0].content
    # Always items come first (the stable, cacheable prefix), then the chat's manual ones,
    # even though pirate's priority (50) is before clear-answers' (100).
    system = provider.requests[0].messages[0].content
    assert system.index("Lead with the answer") < system.index("Speak like a pirate")
    session.remove_item(ItemRef("rule", "pirate"))
    asyncio.run(collect(session, "again"))
    assert "Speak like a pirate" not in provider.requests[1].messages[0].content
    assert [m.content for m in provider.requests[1].messages[1:4]] == [
        "@rule:pirate say hello",
        "Arr.",
        "again",
    ]


def test_a_tool_call_waits_for_approval_then_feeds_the_result_back(agent: Agent, store: ChatStore) -> None:
    tools = PythonTools([Tool("clock", "now", "Current time")], {"now": lambda: "12:00"})
    provider = ScriptedProvider()
    provider.enqueue_tool_call("clock__now", {}, id="c1")
    provider.enqueue_reply("It is noon.")
    session = new_session(agent, store, provider, tools)
    events = asyncio.run(collect(session, "what time is it?", ApprovalDecision.ALLOW_ONCE))

    approvals = [e for e in events if isinstance(e, ApprovalRequest)]
    assert [(a.server, a.tool) for a in approvals] == [("clock", "now")]
    [finished] = [e for e in events if isinstance(e, ToolCallFinished)]
    assert (finished.record.result, finished.record.approval, finished.record.is_error) == (
        "12:00",
        "allowed_once",
        False,
    )
    assert [spec.name for spec in provider.requests[0].tools] == ["clock__now"]
    second = provider.requests[1].messages
    assert second[-2].tool_calls[0].name == "clock__now"
    assert (second[-1].role, second[-1].content, second[-1].tool_call_id) == ("tool", "12:00", "c1")
    messages = store.messages(session.id)
    assert [m.role for m in messages] == ["user", "assistant", "assistant"]
    assert messages[1].tool_calls[0].result == "12:00"
    assert messages[2].content == "It is noon."


def test_a_denied_call_tells_the_model_and_the_chat_goes_on(agent: Agent, store: ChatStore) -> None:
    tools = PythonTools([Tool("fs", "delete", "Delete a file")], {"delete": lambda: "deleted"})
    provider = ScriptedProvider()
    provider.enqueue_tool_call("fs__delete", {}, id="c1")
    provider.enqueue_reply("OK, I will not delete it.")
    session = new_session(agent, store, provider, tools)
    events = asyncio.run(collect(session, "delete it", ApprovalDecision.DENY))
    assert tools.calls == []
    last_request = provider.requests[1].messages[-1]
    assert last_request.is_error and "denied" in last_request.content
    assert isinstance(events[-1], ReplyFinished) and events[-1].message.content == "OK, I will not delete it."


def test_allow_for_chat_is_remembered_across_messages_and_restarts(
    agent: Agent, store: ChatStore, tmp_path: Path
) -> None:
    tools = PythonTools([Tool("clock", "now", "Current time")], {"now": lambda: "12:00"})
    provider = ScriptedProvider()
    for _ in range(2):
        provider.enqueue_tool_call("clock__now", {})
        provider.enqueue_reply("Noon.")
    session = new_session(agent, store, provider, tools)
    asyncio.run(collect(session, "time?", ApprovalDecision.ALLOW_FOR_CHAT))
    reopened = ChatSession.open(
        agent,
        ChatStore(tmp_path / "chats.sqlite3"),
        session.id,
        ChatServices(resolve_provider=lambda m: (provider, "x"), tools=tools),
    )
    events = asyncio.run(collect(reopened, "and now?"))  # no decision given: asking would fail the test
    assert not any(isinstance(e, ApprovalRequest) for e in events)
    assert len(tools.calls) == 2


def test_a_tool_that_needs_no_permission_runs_without_asking_and_a_failing_one_reports_back(
    agent: Agent, store: ChatStore
) -> None:
    tools = PythonTools(
        [Tool("calc", "div", "Divide", permission_required=False)], {"div": lambda a, b: a / b}
    )
    provider = ScriptedProvider()
    provider.enqueue_tool_call("calc__div", {"a": 1, "b": "x"}, id="bad")
    provider.enqueue_reply("That failed; let me explain.")
    session = new_session(agent, store, provider, tools)
    events = asyncio.run(collect(session, "divide"))
    assert not any(isinstance(e, ApprovalRequest) for e in events)
    tool_message = provider.requests[1].messages[-1]
    assert tool_message.is_error and "error:" in tool_message.content


def test_tools_outside_the_request_context_are_never_sent(agent: Agent, store: ChatStore) -> None:
    tools = PythonTools(
        [Tool("a", "kept", "Kept"), Tool("a", "hidden", "Manual only", include=IncludeMode.MANUAL)], {}
    )
    provider = ScriptedProvider()
    provider.enqueue_reply("ok")
    provider.enqueue_reply("ok")
    session = new_session(agent, store, provider, tools)
    asyncio.run(collect(session, "hi"))
    assert [t.name for t in provider.requests[0].tools] == ["a__kept"]
    session.remove_item(ItemRef("tool", "kept", "a"))
    session.add_item(ItemRef("tool", "hidden", "a"))
    asyncio.run(collect(session, "hi"))
    assert [t.name for t in provider.requests[1].tools] == ["a__hidden"]


def test_max_chat_turns_bounds_the_tool_loop(agent: Agent, store: ChatStore) -> None:
    tools = PythonTools([Tool("t", "loop", "Loop", permission_required=False)], {"loop": lambda: "again"})
    provider = ScriptedProvider()
    for _ in range(3):
        provider.enqueue_tool_call("t__loop", {})
    session = new_session(agent, store, provider, tools)
    session.override_settings(chat={"max_chat_turns": 3})
    events = asyncio.run(collect(session, "go"))
    assert len(provider.requests) == 3
    final = events[-1]
    assert (
        isinstance(final, ReplyFinished)
        and final.message.role == "error"
        and "maxChatTurns" in final.message.content
    )
    provider.assert_all_used()


def test_a_provider_error_keeps_the_users_message_and_says_how_to_fix_it(
    agent: Agent, store: ChatStore
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderAuthError("The API key was refused: check it in Providers"))
    session = new_session(agent, store, provider)
    events = asyncio.run(collect(session, "hello?"))
    final = events[-1]
    assert isinstance(final, ReplyFinished)
    assert final.message.status == "error" and "check it in Providers" in (final.message.error or "")
    assert [m.content for m in store.messages(session.id) if m.role == "user"] == ["hello?"]


def test_an_approval_says_which_folder_a_workspace_call_without_arguments_acts_on(
    agent: Agent, store: ChatStore
) -> None:
    tools = PythonTools(
        [Tool("workspace", "list_files", "List files"), Tool("clock", "now", "Current time")],
        {"list_files": lambda: "notes.md", "now": lambda: "12:00"},
    )
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([("workspace__list_files", {}, "w1"), ("clock__now", {}, "c1")])
    provider.enqueue_reply("Done.")
    session = new_session(agent, store, provider, tools)
    events = asyncio.run(collect(session, "what is in my documents?", ApprovalDecision.ALLOW_ONCE))

    # The default agent's workspace server reads ~/Documents; the clock's server cannot tell.
    targets = {e.tool: e.target for e in events if isinstance(e, ApprovalRequest)}
    assert targets == {"list_files": f"in your workspace folder {Path('~', 'Documents')}", "now": ""}
    assert next(e for e in events if isinstance(e, ApprovalRequest)).action == (
        f"workspace.list_files({{}}) in your workspace folder {Path('~', 'Documents')}"
    )


def test_a_retryable_error_is_retried_visibly(agent: Agent, store: ChatStore) -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderUnavailableError("The server had a problem (500)"))
    provider.enqueue_reply("Recovered.")
    session = new_session(agent, store, provider)
    events = asyncio.run(collect(session, "hello"))
    assert [e.attempt for e in events if isinstance(e, RetryScheduled)] == [1]  # the attempt that failed
    assert isinstance(events[-1], ReplyFinished) and events[-1].message.content == "Recovered."


def test_how_far_the_model_has_read_the_prompt_is_reported_before_its_first_words(
    agent: Agent, store: ChatStore
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply(
        chunks=[PromptProgressEvent(0, 600, cached=40), PromptProgressEvent(600, 600, cached=40), "Hi."]
    )
    session = new_session(agent, store, provider)
    events = asyncio.run(collect(session, "hello"))
    progress = [e for e in events if isinstance(e, PromptProgress)]
    assert progress == [PromptProgress(0, 600, 40), PromptProgress(600, 600, 40)]
    assert events.index(progress[-1]) < next(i for i, e in enumerate(events) if isinstance(e, ReplyDelta))
    assert isinstance(events[-1], ReplyFinished) and events[-1].message.content == "Hi."


def test_a_stream_that_drops_midway_keeps_the_partial_reply(agent: Agent, store: ChatStore) -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(
        ProviderUnavailableError("The connection dropped"), chunks_before=["Half ", "an answer"]
    )
    session = new_session(agent, store, provider)
    events = asyncio.run(collect(session, "long question"))
    final = events[-1]
    assert isinstance(final, ReplyFinished)
    assert (final.message.status, final.message.content) == ("partial", "Half an answer")


def test_cancelling_mid_reply_keeps_what_arrived_marked_cancelled(agent: Agent, store: ChatStore) -> None:
    async def scenario() -> None:
        gate = asyncio.Event()  # never set: the reply stalls here until cancelled
        provider = ScriptedProvider()
        provider.enqueue_reply(chunks=["Once upon ", "a time", gate, " the end"])
        session = new_session(agent, store, provider)
        seen = asyncio.Event()
        received: list[str] = []

        async def consume() -> None:
            async for event in session.send("story"):
                if isinstance(event, ReplyDelta):
                    received.append(event.text)
                    if "".join(received) == "Once upon a time":
                        seen.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(seen.wait(), timeout=5)
        session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        reply = store.messages(session.id)[-1]
        assert (reply.status, reply.content) == ("cancelled", "Once upon a time")

    asyncio.run(scenario())


def test_a_stopped_reply_keeps_its_token_counts_estimated_and_marked_so(
    agent: Agent, store: ChatStore
) -> None:
    async def scenario() -> list[ChatEvent]:
        provider = ScriptedProvider()
        provider.enqueue_reply(chunks=["Once upon ", "a time", asyncio.Event(), " the end"])
        session = new_session(agent, store, provider)
        seen = asyncio.Event()
        events: list[ChatEvent] = []

        async def consume() -> None:
            async for event in session.send("story"):
                events.append(event)
                if isinstance(event, ReplyDelta) and event.text == "a time":
                    seen.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(seen.wait(), timeout=5)
        session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return events

    events = asyncio.run(scenario())
    # The request's costs reach the front end before the reply's first words (the gauge can show them).
    [sent] = [e for e in events if isinstance(e, RequestSent)]
    assert events.index(sent) < next(i for i, e in enumerate(events) if isinstance(e, ReplyDelta))
    sent_context = sent.message.request_context
    assert sent_context is not None and sent_context.manifest is not None
    reply = store.messages(session_id_of(events))[-1]
    assert reply.id == sent.message.id and reply.status == "cancelled"
    context = reply.request_context
    assert context is not None and context.manifest is not None
    usage = context.usage
    assert usage.estimated  # the provider reports counts at the end, which never came
    # What the model was sent, and "Once upon a time" in the scripted tokenizer (one token a word).
    assert usage.input_tokens == context.manifest.total_tokens and usage.output_tokens == 4


def session_id_of(events: list[ChatEvent]) -> str:
    return next(e.message.session_id for e in events if isinstance(e, UserMessageSaved))


def test_a_finished_reply_has_the_counts_the_provider_reported(agent: Agent, store: ChatStore) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("All done here.")
    events = asyncio.run(collect(new_session(agent, store, provider), "hi"))
    final = events[-1]
    assert isinstance(final, ReplyFinished) and final.message.request_context is not None
    usage = final.message.request_context.usage
    assert not usage.estimated and usage.output_tokens == 3


def test_a_reopened_chat_keeps_its_items_history_and_contexts(
    agent: Agent, store: ChatStore, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("First.")
    session = new_session(agent, store, provider)
    asyncio.run(collect(session, "@rule:pirate one"))
    store.close()

    reopened = ChatSession.open(
        load_agent(agent.root),
        ChatStore(tmp_path / "chats.sqlite3"),
        session.id,
        ChatServices(resolve_provider=lambda m: (provider, "x")),
    )
    assert {i.ref.key for i in reopened.items} == {"rule:clear-answers", "rule:pirate"}
    history = reopened.history()
    assert [m.content for m in history] == ["@rule:pirate one", "First."]
    context = reopened.last_request_context()
    assert context is not None and {i.ref.key for i in context.items} == {"rule:clear-answers", "rule:pirate"}


def test_slash_ref_uses_a_reference_for_one_message_only(agent: Agent, store: ChatStore) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Use pipes.")
    provider.enqueue_reply("You're welcome.")
    session = new_session(agent, store, provider)
    events = asyncio.run(collect(session, "/ref markdown-cheatsheet how do tables work?"))
    context = next(e.context for e in events if isinstance(e, ContextBuilt))
    assert ("reference:markdown-cheatsheet", "manual") in [(i.ref.key, i.include_mode) for i in context.items]
    assert "Markdown cheat sheet" in provider.requests[0].messages[0].content
    asyncio.run(collect(session, "thanks"))
    assert "Markdown cheat sheet" not in provider.requests[1].messages[0].content
    assert ItemRef("reference", "markdown-cheatsheet") not in [i.ref for i in session.items]


def test_slash_ref_to_an_unknown_reference_is_refused_before_anything_is_saved(
    agent: Agent, store: ChatStore
) -> None:
    session = new_session(agent, store, ScriptedProvider())
    with pytest.raises(ContextDeskError, match=r"no reference named 'nope'.*markdown-cheatsheet"):
        asyncio.run(collect(session, "/ref nope hello"))
    assert store.messages(session.id) == []


def test_closing_a_chat_waits_for_its_reply_and_frees_it_for_other_programs(
    agent: Agent, store: ChatStore
) -> None:
    provider = ScriptedProvider()
    never = asyncio.Event()
    provider.enqueue_reply(chunks=["Half an ans", never])
    session = new_session(agent, store, provider)

    async def run() -> list[tuple[str, str]]:
        started = asyncio.Event()

        async def send() -> None:
            async for event in session.send("a long question"):
                if isinstance(event, ReplyDelta):
                    started.set()

        sending = asyncio.create_task(send())
        await asyncio.wait_for(started.wait(), timeout=30)
        await session.close()
        assert sending.done()
        with sqlite3.connect(store.path) as db:
            return list(db.execute("SELECT session_id, holder FROM chat_leases"))

    assert asyncio.run(run()) == []
    reply = store.messages(session.id)[-1]
    assert (reply.content, reply.status) == ("Half an ans", "cancelled")
