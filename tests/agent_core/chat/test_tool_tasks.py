"""Tool calls that run as protocol tasks, against the real server-everything's
`simulate-research-query`: listed, followed to its result with its status in the chat's events,
and cancelled on the server when the reply is stopped."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from agent_core.agent.agent import Agent
from agent_core.chat.events import ReplyFinished, ToolCallFinished, ToolCallProgress
from agent_core.mcp import McpManager
from agent_core.providers.scripted import ScriptedProvider
from agent_core.tool_progress import listening_to_progress
from tests.agent_core.chat.test_tool_progress import (  # the same agent, session and server
    agent,
    events_of,
    everything,
    node_modules,
    session_with,
)

__all__ = ["agent", "node_modules"]  # fixtures shared with test_tool_progress

pytestmark = pytest.mark.anyio

RESEARCH = "everything__simulate-research-query"


async def test_the_task_tool_is_listed_as_one_that_runs_as_a_task(node_modules: Path) -> None:
    async with McpManager({"everything": everything(node_modules)}) as manager:
        research = next(t for t in manager.tools() if t.name == "simulate-research-query")
    assert research.task_support == "required"


async def test_a_task_call_reports_its_status_and_ends_with_the_tasks_result(
    agent: Agent, tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([(RESEARCH, {"topic": "tide pools"}, "c1")])
    provider.enqueue_reply("Here is the report.")
    async with McpManager({"everything": everything(node_modules)}) as manager:
        events = await events_of(session_with(agent, tmp_path, provider, manager).send("research"))
    statuses = [e.progress for e in events if isinstance(e, ToolCallProgress)]
    assert statuses and all(s.task_status is not None for s in statuses)
    assert statuses[0].describe().startswith("task working")
    assert statuses[-1].task_status == "completed"
    seen = " ".join(s.message for s in statuses)
    assert "Gathering sources" in seen or "Analyzing content" in seen
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert not finished.record.is_error
    assert "# Research Report: tide pools" in finished.record.result
    assert "Stage 4: Generating report" in finished.record.result
    assert isinstance(events[-1], ReplyFinished) and events[-1].message.status == "complete"
    provider.assert_all_used()  # the model was asked again, with the result


async def test_stopping_a_reply_cancels_its_task_on_the_server_without_waiting(
    agent: Agent, tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([(RESEARCH, {"topic": "tide pools"}, "c1")])
    async with McpManager({"everything": everything(node_modules)}) as manager:
        session = session_with(agent, tmp_path, provider, manager)
        working = asyncio.Event()

        async def consume() -> None:
            async for event in session.send("research"):
                if isinstance(event, ToolCallProgress) and event.progress.task_status == "working":
                    working.set()

        reply = asyncio.create_task(consume())
        await asyncio.wait_for(working.wait(), 10)
        stopped = time.monotonic()
        session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(reply, 2)
        assert time.monotonic() - stopped < 1.0  # the task had seconds to go
        assert session.store.messages(session.id)[-1].status == "cancelled"
        async with asyncio.timeout(10):  # the cancellation is sent after the reply ended
            while "the server says cancelled" not in "\n".join(manager.status("everything").log_tail):
                await asyncio.sleep(0.01)
        echo = await manager.call_tool("everything", "echo", {"message": "still here"})
        assert "still here" in echo.text


async def test_a_task_call_outside_a_chat_reports_to_whoever_listens(node_modules: Path) -> None:
    reports: list[str] = []
    async with McpManager({"everything": everything(node_modules)}) as manager:
        with listening_to_progress(lambda progress: reports.append(progress.describe())):
            result = await manager.call_tool("everything", "simulate-research-query", {"topic": "moss"})
    assert "# Research Report: moss" in result.text
    assert reports[0].startswith("task working") and reports[-1].startswith("task completed")


async def test_a_task_that_needs_input_asks_through_elicitation_and_uses_the_answer(
    node_modules: Path,
) -> None:
    from agent_core.mcp.elicitation import ElicitationAnswer, ElicitationRequest

    asked: list[ElicitationRequest] = []

    async def choose(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer("accept", {"interpretation": "snake"})

    reports: list[str] = []
    async with McpManager({"everything": everything(node_modules)}, elicitation=choose) as manager:
        with listening_to_progress(lambda progress: reports.append(progress.describe())):
            result = await manager.call_tool(
                "everything", "simulate-research-query", {"topic": "python", "ambiguous": True}
            )
    assert len(asked) == 1
    assert "# Research Report: python (snake)" in result.text, result.text
    assert any(r.startswith("task input_required") for r in reports), reports
