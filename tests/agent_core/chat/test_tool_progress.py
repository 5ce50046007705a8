"""A tool call's progress in the chat's events, coalesced; stopping a reply during a long call."""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import StdioServerConfig, ToolDefaults
from agent_core.chat.events import ChatEvent, ReplyFinished, ToolCallFinished, ToolCallProgress
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.mcp import McpManager
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.tools.progress import listening_to_progress
from tests.support.mcp_servers import notifying, npm_server, require_node_modules

pytestmark = pytest.mark.anyio

OPEN = {"toolDefaults": ToolDefaults(permission_required=False)}  # no approval prompts in these tests


async def no_sleep(seconds: float) -> None:
    return None


@pytest.fixture(scope="module")
def node_modules() -> Path:
    return require_node_modules()


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    return load_agent(root)


def session_with(
    agent: Agent, tmp_path: Path, provider: ScriptedProvider, manager: McpManager
) -> ChatSession:
    return ChatSession.create(
        agent,
        ChatStore(tmp_path / "chats.sqlite3"),
        ChatServices(
            resolve_provider=lambda model: (provider, "x"),
            tools=manager,
            streamer=functools.partial(stream_with_retries, sleep=no_sleep),
        ),
    )


def everything(node_modules: Path) -> StdioServerConfig:
    return npm_server(node_modules, "server-everything", "stdio", **OPEN)


async def events_of(replies: AsyncIterator[ChatEvent]) -> list[ChatEvent]:
    return [event async for event in replies]


async def test_every_step_of_a_long_running_operation_is_a_progress_event(
    agent: Agent, tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls(
        [("everything__trigger-long-running-operation", {"duration": 1, "steps": 5}, "c1")]
    )
    provider.enqueue_reply("Done.")
    async with McpManager({"everything": everything(node_modules)}) as manager:
        events = await events_of(session_with(agent, tmp_path, provider, manager).send("run it"))
    steps = [
        (e.call_id, e.progress.progress, e.progress.total) for e in events if isinstance(e, ToolCallProgress)
    ]
    assert steps == [("c1", step, 5) for step in range(1, 6)]
    finished = next(e for e in events if isinstance(e, ToolCallFinished))
    assert events.index(finished) > max(i for i, e in enumerate(events) if isinstance(e, ToolCallProgress))
    assert "completed" in finished.record.result


async def test_ten_thousand_progress_reports_become_a_few_events_ending_with_the_last(
    agent: Agent, tmp_path: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([("n__flood_progress", {"count": 10_000}, "c1")])
    provider.enqueue_reply("Done.")
    async with McpManager({"n": notifying(**OPEN)}) as manager:
        events = await events_of(session_with(agent, tmp_path, provider, manager).send("flood"))
    progress = [e.progress for e in events if isinstance(e, ToolCallProgress)]
    assert 1 <= len(progress) < 200
    assert (progress[-1].progress, progress[-1].message) == (10_000, "step 10000")
    assert isinstance(events[-1], ReplyFinished) and events[-1].message.status == "complete"


async def test_stopping_a_reply_during_a_long_call_ends_it_at_once(
    agent: Agent, tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls(
        [("everything__trigger-long-running-operation", {"duration": 20, "steps": 20}, "c1")]
    )
    async with McpManager({"everything": everything(node_modules)}) as manager:
        session = session_with(agent, tmp_path, provider, manager)
        first_step = asyncio.Event()

        async def consume() -> None:
            async for event in session.send("run it"):
                if isinstance(event, ToolCallProgress):
                    first_step.set()

        reply = asyncio.create_task(consume())
        await asyncio.wait_for(first_step.wait(), 10)
        stopped = time.monotonic()
        session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(reply, 2)
        assert time.monotonic() - stopped < 1.0  # the operation had 19 s to go
        assert session.store.messages(session.id)[-1].status == "cancelled"
        echo = await manager.call_tool("everything", "echo", {"message": "still here"})
        assert "still here" in echo.text


async def test_stopping_a_reply_sends_the_server_a_cancellation_for_its_call(
    agent: Agent, tmp_path: Path
) -> None:
    marker = tmp_path / "cancelled"
    provider = ScriptedProvider()
    provider.enqueue_tool_calls([("n__wait_for_cancel", {"marker": str(marker)}, "c1")])
    async with McpManager({"n": notifying(**OPEN)}) as manager:
        session = session_with(agent, tmp_path, provider, manager)
        waiting = asyncio.Event()

        async def consume() -> None:
            async for event in session.send("wait"):
                if isinstance(event, ToolCallProgress):
                    waiting.set()  # the server reports "waiting" once its handler runs

        reply = asyncio.create_task(consume())
        await asyncio.wait_for(waiting.wait(), 10)
        session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(reply, 1)
        # The stopped call is recorded as stopped, never as the tool's answer.
        saved = session.store.messages(session.id)[-1]
        assert [call.ended for call in saved.tool_calls] == ["was stopped"]
        provenance = saved.request_context.provenance if saved.request_context else None
        assert provenance is not None and "the call to n.wait_for_cancel was stopped" in provenance.line()
        async with asyncio.timeout(10):  # the server's handler was cancelled: it writes the marker
            while not marker.exists():
                await asyncio.sleep(0.01)


# --- tools that run as protocol tasks (Tool calls that run as protocol tasks, against the real server-everything's) ---


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
