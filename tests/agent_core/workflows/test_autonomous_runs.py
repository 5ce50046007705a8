"""An Autonomous workflow (CodeMie's published template) run from the command line (with mock
outputs, and with a scripted model) and from a chat's ``/run``, whose Stop cancels the run, its
supervisor and the assistant at work."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from agent_core.agent.workflow_files.loader import load_workflow
from agent_core.chat.events import ReplyFinished, SubagentStarted, WorkflowRunFinished
from tests.support.cli_runs import run, scripted_agent
from tests.support.paths import FIXTURES
from tests.support.scripted_models import WAIT
from tests.support.workflow_chats import Chat

TEMPLATE = FIXTURES / "codemie_workflows" / "workflow_autonomous_template.yaml"
NAME = "onboarding"
BACKEND, UI = "backend_onboarder", "ui_onboarder"
MOCKS = [
    {"state_id": "supervisor", "output": {"next": BACKEND, "task": "Backend steps", "reasoning": "first"}},
    {"state_id": BACKEND, "output": "make serve"},
    {"state_id": "supervisor", "output": {"next": UI, "task": "UI steps"}},
    {"state_id": UI, "output": "npm start"},
    {"state_id": "supervisor", "output": "FINISH"},
]


def with_template(root: Path) -> Path:
    (root / "workflows").mkdir(exist_ok=True)
    shutil.copyfile(TEMPLATE, root / "workflows" / f"{NAME}.yaml")
    return root


def test_workflow_run_with_mock_outputs_prints_each_delegation_as_a_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = with_template(scripted_agent(tmp_path, []))
    code, out, err = run(
        capsys, "workflow", "run", "--agent", str(root), NAME, "--input", "How do I start it?",
        "--mock-outputs", json.dumps(MOCKS), "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["status"] == "finished" and result["mocked"]
    assert [(s["assistant"], s["task"], s["result"]) for s in result["steps"]] == [
        (BACKEND, "Backend steps", "make serve"),
        (UI, "UI steps", "npm start"),
    ]
    assert result["steps"][0]["produced_by"] == "a mock output, no model or tool ran"
    assert result["context"]["result"] == "npm start"  # FINISH alone: the last assistant's result


def test_workflow_run_on_a_scripted_model_delegates_through_the_supervisors_tool_calls(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps: list[dict[str, object]] = [
        {"tool_calls": [{"name": f"subagents__{BACKEND}", "arguments": {"task": "Backend steps"}}]},
        {"reply": "make serve"},
        {"reply": "Run make serve. FINISH"},
    ]
    root = with_template(scripted_agent(tmp_path, steps))
    code, out, err = run(
        capsys,
        "workflow",
        "run",
        "--agent",
        str(root),
        NAME,
        "--input",
        "How do I start it?",
        "--yes",
        "--json",
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["status"] == "finished" and not result["mocked"]
    [step] = result["steps"]
    assert (step["assistant"], step["task"], step["result"]) == (BACKEND, "Backend steps", "make serve")
    assert step["chat_id"] and step["produced_by"].startswith("the model scripted:demo")
    assert result["context"]["result"] == "Run make serve."


def test_a_dry_run_of_an_autonomous_workflow_says_there_are_no_states_to_render(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = with_template(scripted_agent(tmp_path, []))
    code, out, err = run(capsys, "workflow", "run", "--agent", str(root), NAME, "--input", "go", "--dry-run")
    assert code == 1 and not out
    assert "is Autonomous: it has no states to render" in err and "--mock-outputs" in err


def test_a_run_from_the_chat_and_its_stop_cancel_the_supervisor_and_the_assistant(chat: Chat) -> None:
    path = with_template(chat.agent.root) / "workflows" / f"{NAME}.yaml"
    workflow = load_workflow(path, [])
    assert workflow is not None
    chat.agent.workflows[NAME] = workflow
    in_backend, never = asyncio.Event(), asyncio.Event()

    class Signal:
        async def wait(self) -> None:
            in_backend.set()
            await never.wait()

    parent = chat.providers["parent"]  # the template's gpt-4.1 is not a model here: the chat's is used
    parent.enqueue_tool_call(f"subagents__{BACKEND}", {"task": "Backend steps"})
    parent.enqueue_reply(chunks=["reading ", Signal()])  # type: ignore[list-item]

    async def go() -> list[SubagentStarted]:
        started: list[SubagentStarted] = []

        async def watch() -> None:
            async for event in chat.session.send(f"/run {NAME} How do I start it?"):
                if isinstance(event, SubagentStarted):
                    started.append(event)

        task = asyncio.create_task(watch())
        await asyncio.wait_for(in_backend.wait(), WAIT)
        chat.session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, WAIT)
        return started

    started = asyncio.run(go())
    assert [(s.subagent, s.origin, s.task) for s in started] == [(BACKEND, "supervisor", "Backend steps")]
    assert len(chat.providers.log) == 2  # the supervisor's request, the assistant's; none after Stop
    assert chat.store.messages(chat.session.id)[-1].status == "cancelled"
    [supervisor] = chat.store.children(chat.session.id)
    assert chat.store.messages(supervisor.id)[-1].status == "cancelled"
    [assistant] = chat.store.children(supervisor.id)
    assert chat.store.messages(assistant.id)[-1].status == "cancelled"
    runs = chat.runs()
    [record] = runs.runs(str(chat.agent.root))
    runs.close()
    assert record.status == "cancelled"


def test_run_in_a_chat_answers_with_how_the_run_ended(chat: Chat) -> None:
    path = with_template(chat.agent.root) / "workflows" / f"{NAME}.yaml"
    workflow = load_workflow(path, [])
    assert workflow is not None
    chat.agent.workflows[NAME] = workflow
    parent = chat.providers["parent"]
    parent.enqueue_tool_call(f"subagents__{UI}", {"task": "UI steps"})
    parent.enqueue_reply("npm start")
    parent.enqueue_reply("Run npm start.")
    events = chat.send(f"/run {NAME} How do I start the UI?")
    finished = next(e for e in events if isinstance(e, WorkflowRunFinished))
    assert finished.link.status == "finished" and finished.link.steps == 1
    reply = events[-1]
    assert isinstance(reply, ReplyFinished)
    assert f"Workflow **{NAME}** finished after 1 step" in reply.message.content
    assert '"result": "Run npm start."' in reply.message.content
