"""Workflows started from a chat: ``/run NAME {json}`` and the model calling a workflow's tool,
through a real chat, the real store and scripted providers (one per model). What ran is in the
reply's RequestContext; cancelling the reply stops the run and its children."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

import pytest

from agent_core.chat.events import (
    ReplyFinished,
    SubagentStarted,
    ToolCallFinished,
    WorkflowProgress,
    WorkflowRunFinished,
)
from agent_core.chat.session import ChatSession
from agent_core.context.selection import ContextSelector
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ToolCalling
from agent_core.providers.scripted import ScriptedProvider
from tests.support.scripted_models import WAIT
from tests.support.workflow_chats import Chat


def test_slash_run_runs_the_workflow_in_the_chat_and_its_context_says_why(chat: Chat) -> None:
    chat.providers["classifier"].enqueue_reply('{"area": "billing", "severity": "high"}')
    events = chat.send('/run triage {"report": "Invoices are doubled"}')
    finished = events[-1]
    assert isinstance(finished, ReplyFinished) and finished.message.status == "complete"
    assert "Workflow **triage** finished after 2 steps" in finished.message.content
    assert '"owner": "team-billing"' in finished.message.content
    # The parent's model was never asked: /run is the user's own call.
    assert chat.providers.requests("parent") == []
    context = finished.message.request_context
    assert context is not None
    [item] = context.items
    assert (item.ref.label(), item.include_mode, item.reason) == (
        "workflows.triage",
        "manual",
        "you ran it with /run",
    )
    [link] = context.workflow_runs
    assert (link.workflow, link.status, link.steps) == ("triage", "finished", 2)
    # The classifier ran as a sub-agent of this chat, its chat kept and linked.
    [delegation] = context.delegations
    assert delegation.child_session_id in [s.id for s in chat.store.children(chat.session.id)]
    progress = [(e.state_id, e.status) for e in events if isinstance(e, WorkflowProgress)]
    assert progress == [
        ("classify", "started"),
        ("classify", "done"),
        ("owner", "started"),
        ("owner", "done"),
    ]
    # The tool asked as the chat would, labelled with the workflow.
    [asked] = chat.asked
    assert (asked.tool, asked.origin) == ("owner_of", "workflow triage")
    runs = chat.runs()
    stored = runs.run(link.run_id)
    runs.close()
    assert stored is not None and [s.state_id for s in stored.steps] == ["classify", "owner"]
    assert stored.steps[0].request_context is not None  # View Context works on the step
    # The chat keeps both messages across a reopen, with the link.
    reopened = ChatSession.open(chat.agent, chat.store, chat.session.id, chat.services)
    last = reopened.history()[-1]
    assert last.request_context is not None and last.request_context.workflow_runs == (link,)


def test_slash_run_with_an_unknown_workflow_saves_nothing_and_says_which_exist(chat: Chat) -> None:
    with pytest.raises(ContextDeskError, match=r"no workflow named 'triag'.*triage"):
        chat.send('/run triag {"report": "x"}')
    assert chat.session.history() == []


def test_a_failed_input_check_is_a_reply_that_says_what_to_give(chat: Chat) -> None:
    events = chat.send("/run triage {}")
    finished = events[-1]
    assert isinstance(finished, ReplyFinished)
    assert "failed after 0 steps" in finished.message.content
    assert "the input 'report' is required" in finished.message.content


def test_the_model_calls_a_workflow_as_a_tool_and_reads_its_store(chat: Chat) -> None:
    chat.providers["parent"].enqueue_tool_call("workflows__triage", {"report": "Login fails"})
    chat.providers["classifier"].enqueue_reply('{"area": "auth", "severity": "low"}')
    chat.providers["parent"].enqueue_reply("The auth team owns it.")
    events = chat.send("Who should look at: login fails?")
    [result] = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert not result.is_error and '"owner": "team-auth"' in result.result
    assert "[workflow triage: finished; 2 steps" in result.result
    # The parent's second request carries the run's result as the tool's answer.
    second = chat.providers.requests("parent")[1]
    assert any('"owner": "team-auth"' in m.content for m in second.messages)
    # The workflow was offered as a tool like any other.
    first = chat.providers.requests("parent")[0]
    assert "workflows__triage" in [t.name for t in first.tools]
    finished = events[-1]
    assert isinstance(finished, ReplyFinished)
    context = chat.store.messages(chat.session.id)[-2].request_context  # the turn that called it
    assert context is not None and [r.workflow for r in context.workflow_runs] == ["triage"]
    assert next(e for e in events if isinstance(e, WorkflowRunFinished)).link.status == "finished"


def test_cancelling_the_reply_stops_the_run_and_its_assistant_with_no_request_after(chat: Chat) -> None:
    in_classifier, never = asyncio.Event(), asyncio.Event()

    class Signal:
        async def wait(self) -> None:
            in_classifier.set()
            await never.wait()

    chat.providers["classifier"].enqueue_reply(chunks=["thinking ", Signal()])  # type: ignore[list-item]

    async def run() -> None:
        started: list[SubagentStarted] = []

        async def watch() -> None:
            async for event in chat.session.send('/run triage {"report": "slow"}'):
                if isinstance(event, SubagentStarted):
                    started.append(event)

        task = asyncio.create_task(watch())
        await asyncio.wait_for(in_classifier.wait(), WAIT)
        chat.session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2.0)
        assert len(started) == 1

    asyncio.run(run())
    assert len(chat.providers.log) == 1  # the classifier's one request; nothing after the cancel
    messages = chat.store.messages(chat.session.id)
    assert messages[-1].status == "cancelled"
    [child] = chat.store.children(chat.session.id)
    assert chat.store.messages(child.id)[-1].status == "cancelled"
    runs = chat.runs()
    [run_record] = runs.runs(str(chat.agent.root))
    runs.close()
    assert run_record.status == "cancelled"


def test_a_sub_agent_is_never_offered_a_workflow(chat: Chat) -> None:
    from agent_core.agent.subagent_files.definition import Subagent
    from agent_core.subagents.tools import AllowListedTools

    # What the sub-agent runner hands a child: none of the servers its parent chat runs itself.
    narrowed = AllowListedTools(
        chat.services.tools,
        Subagent(name="helper", description="d", prompt="p"),
        chat_servers=frozenset(chat.session.tool_handlers),
    )
    assert [t.server for t in narrowed.tools()] == ["workspace"]
    with pytest.raises(LookupError):
        asyncio.run(narrowed.call_tool("workflows", "triage", {}))


class RoutedScripted(ScriptedProvider):
    def tool_calling(self, model_id: str) -> ToolCalling:
        return "routed"


@pytest.mark.slow  # the real MiniLM routes the message to the workflow
def test_a_routed_model_runs_a_workflow_on_the_inputs_it_wrote_not_on_the_bare_message(
    tmp_path: Path,
) -> None:
    chat = Chat(tmp_path)
    selector = ContextSelector(cache_dir=tmp_path / "embeddings")
    chat.providers.by_model["parent"] = RoutedScripted()
    chat.services = replace(chat.services, selector=selector)
    chat.session = ChatSession.create(chat.agent, chat.store, chat.services)
    try:
        chat.providers["parent"].enqueue_tool_call("workflows__triage", {"report": "login fails"})
        chat.providers["classifier"].enqueue_reply('{"area": "auth", "severity": "low"}')
        events = chat.send("Triage this bug report: login fails")
        [run] = chat.runs().runs()
    finally:
        selector.indexer.close()
        chat.store.close()
    assert chat.providers.requests("parent")[0].call_tool == "workflows__triage"
    # The bare message would be {} and fail on "the input 'report' is required".
    assert next(e for e in events if isinstance(e, WorkflowRunFinished)).link.status == "finished"
    assert run.status == "finished", run.error
    assert run.store["report"] == "login fails" and run.store["owner"] == "team-auth"
