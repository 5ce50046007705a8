"""CodeMie's Autonomous workflows, with its own published template: imported and checked, then
run, its supervisor a chat whose tools are the assistants as sub-agents; each delegation is a
step (the assistant, the task it was given, its result), bounded by the workflow's limits, and
the run is "finished" only on the assistants' grounded work."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.agent.importers import read_source
from agent_core.agent.items import Problem
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import parse_workflow
from tests.support.paths import REPO_ROOT
from tests.support.workflow_runner import Runner

TEMPLATE = REPO_ROOT / "tests" / "fixtures" / "codemie_workflows" / "workflow_autonomous_template.yaml"
BACKEND, UI = "backend_onboarder", "ui_onboarder"


def template_text() -> str:
    return TEMPLATE.read_text(encoding="utf-8")


def with_limits(text: str, limits: str) -> str:
    return text.replace("slug: template-autonomous", f"limits: {limits}\nslug: template-autonomous")


def test_the_real_template_imports_and_its_check_reports_what_does_not_map() -> None:
    imported = read_source(TEMPLATE)
    [(name, body)] = imported.workflow_files.items()
    assert name == "template-autonomous-onboarding-workflow"
    assert not imported.report.skipped, imported.report.skipped  # no error: it runs as it is
    warnings = "\n".join(imported.report.warnings)
    assert f"assistant '{BACKEND}': datasource_ids is ignored" in warnings
    assert f"assistant '{UI}': the tool 'search_code_repo_v2' is a CodeMie tool name" in warnings
    problems: list[Problem] = []
    workflow = parse_workflow(Path("workflows") / f"{name}.yaml", body, problems)
    assert workflow is not None and not problems, problems
    assert workflow.spec.autonomous and [a.id for a in workflow.spec.assistants] == [BACKEND, UI]
    assert workflow.spec.supervisor_prompt and "respond with FINISH" in workflow.spec.supervisor_prompt
    found = check_workflow(workflow)
    assert [p for p in found if p.severity == "error"] == []
    tool_warning = next(p for p in found if "get_repository_file_tree_v2" in p.message)
    assert (
        tool_warning.line is not None
        and "get_repository_file_tree_v2" in body.splitlines()[tool_warning.line - 1]
    )


def test_an_autonomous_file_the_check_refuses_or_warns_about() -> None:
    text = """
mode: Autonomous
assistants:
  - id: the writer
    system_prompt: You write.
tools:
  - id: reader
    tool: workspace.read_file
states:
  - id: never
    task: x
    next: {state_id: end}
"""
    problems: list[Problem] = []
    workflow = parse_workflow(Path("flow.yaml"), text, problems)
    assert workflow is not None, problems
    by_message = {p.message: p.severity for p in check_workflow(workflow)}
    assert any("'the writer' cannot be delegated to" in m and s == "error" for m, s in by_message.items())
    assert any(m.startswith("states are not run in Autonomous mode") for m in by_message)
    assert any(m.startswith("tools are not run in Autonomous mode") for m in by_message)
    assert any(m.startswith("no supervisor_prompt") for m in by_message)
    refused: list[Problem] = []
    assert parse_workflow(Path("flow.yaml"), "mode: Autonomous\nsupervisor_prompt: go\n", refused) is None
    assert "needs assistants for its supervisor" in refused[0].message


def test_a_scripted_supervisor_delegates_to_each_assistant_in_turn(runner: Runner) -> None:
    provider = runner.provider
    provider.enqueue_tool_call(f"subagents__{BACKEND}", {"task": "Explain how the backend is started"})
    provider.enqueue_reply("Run `make serve` in the backend folder.")
    provider.enqueue_tool_call(f"subagents__{UI}", {"task": "Explain how the UI is started"})
    provider.enqueue_reply("Run `npm start` in the ui folder.")
    provider.enqueue_reply("Backend: make serve. UI: npm start.\nFINISH")
    run = runner.run(template_text(), "How do I start CodeMie locally?")
    assert run.status == "finished", run.error
    assert [(s.state_id, s.rendered_task, s.raw_output) for s in run.steps] == [
        (BACKEND, "Explain how the backend is started", "Run `make serve` in the backend folder."),
        (UI, "Explain how the UI is started", "Run `npm start` in the ui folder."),
    ]
    assert all(s.delegated and s.next_state == "supervisor" and s.status == "done" for s in run.steps)
    assert run.store["result"] == "Backend: make serve. UI: npm start."  # CodeMie's FINISH left out
    assert run.store[UI] == "Run `npm start` in the ui folder."
    # The supervisor saw only its assistants, and each assistant got its own isolated chat.
    supervisor_request = provider.requests[0]
    assert sorted(t.name for t in supervisor_request.tools) == [f"subagents__{BACKEND}", f"subagents__{UI}"]
    assert "You supervise a team of assistants" in supervisor_request.messages[0].content
    first_child = provider.requests[1]
    assert "CodeMie backend" in first_child.messages[0].content  # the assistant's system prompt
    assert first_child.messages[-1].content == "Explain how the backend is started"
    assert not first_child.tools  # CodeMie's tool names give it none of this agent's tools
    for step in run.steps:
        assert step.provenance is not None and step.provenance.line().startswith("the model scripted:x")
        assert step.request_context is not None and runner.chats.messages(step.child_session_id)
    provider.assert_all_used()


def test_scripted_mock_outputs_play_the_supervisors_decisions_and_the_results(runner: Runner) -> None:
    mock = [
        {
            "state_id": "supervisor",
            "output": {"next": BACKEND, "task": "Backend steps", "reasoning": "first"},
        },
        {"state_id": BACKEND, "output": "make serve"},
        {"state_id": "supervisor", "output": {"next": UI, "task": "UI steps"}},
        {"state_id": UI, "output": "npm start"},
        {"state_id": "supervisor", "output": {"next": "FINISH", "result": "make serve, then npm start"}},
    ]
    run = runner.run(template_text(), {"question": "How do I start it?"}, mock)
    assert run.status == "finished" and run.mocked, run.error
    assert [(s.state_id, s.rendered_task, s.raw_output, s.kind) for s in run.steps] == [
        (BACKEND, "Backend steps", "make serve", "mock"),
        (UI, "UI steps", "npm start", "mock"),
    ]
    assert run.store == {
        "question": "How do I start it?", BACKEND: "make serve", UI: "npm start",
        "result": "make serve, then npm start",
    }  # fmt: skip
    assert run.steps[0].provenance is not None and run.steps[0].provenance.line().startswith("a mock output")


@pytest.mark.parametrize(
    ("decision", "said"),
    [
        ({"next": "designer", "task": "draw"}, "names 'designer', which is not an assistant"),
        ({"task": "draw"}, "is not a decision"),
        ({"next": BACKEND}, "gives no task"),
    ],
)
def test_a_mock_decision_that_does_not_fit_fails_the_run_saying_what_to_write(
    runner: Runner, decision: dict[str, str], said: str
) -> None:
    run = runner.run(template_text(), "go", [{"state_id": "supervisor", "output": decision}])
    assert run.status == "failed" and said in run.error and not run.steps


def test_the_delegation_past_max_steps_is_refused_and_stops_the_run(runner: Runner) -> None:
    provider = runner.provider
    provider.enqueue_tool_call(f"subagents__{BACKEND}", {"task": "Backend steps"})
    provider.enqueue_reply("make serve")
    provider.enqueue_tool_call(f"subagents__{UI}", {"task": "UI steps"})
    run = runner.run(with_limits(template_text(), "{maxSteps: 1}"), "How do I start it?")
    assert run.status == "stopped"
    assert "stopped at limits.maxSteps (1) before state 'ui_onboarder'" in run.error
    assert [s.state_id for s in run.steps] == [BACKEND]
    assert len(provider.requests) == 3  # no request after the refused delegation
    provider.assert_all_used()


def test_the_tokens_of_the_supervisor_and_its_assistants_count_against_max_tokens(runner: Runner) -> None:
    provider = runner.provider
    provider.enqueue_tool_call(f"subagents__{BACKEND}", {"task": "Backend steps"})
    provider.enqueue_reply("make serve")
    provider.enqueue_tool_call(f"subagents__{UI}", {"task": "UI steps"})
    run = runner.run(with_limits(template_text(), "{maxTokens: 100}"), "How do I start it?")
    assert run.status == "stopped"
    assert "stopped at limits.maxTokens (100) before state 'ui_onboarder'" in run.error
    assert [s.state_id for s in run.steps] == [BACKEND] and len(provider.requests) == 3


def test_mock_decisions_past_max_steps_stop_the_run_too(runner: Runner) -> None:
    mock = [
        {"state_id": "supervisor", "output": {"next": BACKEND, "task": "a"}},
        {"state_id": BACKEND, "output": "done a"},
        {"state_id": "supervisor", "output": {"next": BACKEND, "task": "b"}},
    ]
    run = runner.run(with_limits(template_text(), "{maxSteps: 1}"), "go", mock)
    assert run.status == "stopped" and "limits.maxSteps (1)" in run.error and len(run.steps) == 1


def test_a_supervisor_that_never_delegates_leaves_the_run_for_review(runner: Runner) -> None:
    runner.provider.enqueue_reply("Start the backend with make serve. FINISH")
    run = runner.run(template_text(), "How do I start it?")
    assert run.status == "needs_review" and not run.steps
    assert "finished without delegating to any assistant" in run.error
    assert run.store["result"] == "Start the backend with make serve."


TOOLED = """
mode: Autonomous
supervisor_prompt: Use the reader for anything about files.
assistants:
  - id: reader
    system_prompt: You read files before you answer.
    tools: [{name: workspace.read_file}]
"""


def test_an_assistant_given_tools_that_answers_without_them_is_marked_and_the_run_not_finished(
    runner: Runner,
) -> None:
    provider = runner.provider
    provider.enqueue_tool_call("subagents__reader", {"task": "How long is notes.md?"})
    provider.enqueue_reply("It is 40 lines long.")  # made up: it never read the file
    provider.enqueue_reply("notes.md is 40 lines long.")
    run = runner.run(TOOLED, "How long is notes.md?")
    [step] = run.steps
    assert step.status == "needs_review"
    assert "given tools (workspace.read_file) but answered without using any" in step.error
    assert (
        run.status == "needs_review"
        and "the supervisor finished, but the delegation to 'reader'" in run.error
    )


def test_a_grounded_retry_clears_the_mark_and_the_run_finishes(runner: Runner) -> None:
    provider = runner.provider
    provider.enqueue_tool_call("subagents__reader", {"task": "How long is notes.md?"})
    provider.enqueue_reply("It is 40 lines long.")
    provider.enqueue_tool_call(
        "subagents__reader", {"task": "Read notes.md with your tool, then say its length"}
    )
    provider.enqueue_tool_call("workspace__read_file", {"path": "notes.md"})
    provider.enqueue_reply("notes.md has 12 lines.")
    provider.enqueue_reply("notes.md has 12 lines.")
    run = runner.run(TOOLED, "How long is notes.md?")
    assert [s.status for s in run.steps] == ["needs_review", "done"]
    assert (
        run.steps[1].provenance is not None
        and "after calling workspace.read_file" in run.steps[1].provenance.line()
    )
    assert run.status == "finished", run.error


def test_a_supervisor_calling_a_tool_that_is_not_an_assistant_runs_nothing(runner: Runner) -> None:
    provider = runner.provider
    provider.enqueue_tool_call("workspace__read_file", {"path": "/etc/passwd"})
    provider.enqueue_tool_call(f"subagents__{BACKEND}", {"task": "Backend steps"})
    provider.enqueue_reply("make serve")
    provider.enqueue_reply("make serve")
    run = runner.run(template_text(), "How do I start it?")
    assert runner.tools.calls == []  # refused: the supervisor's only tools are its assistants
    [supervisor] = runner.chats.children(f"workflow:{run.id}")
    first = next(m for m in runner.chats.messages(supervisor.id) if m.tool_calls)
    assert first.tool_calls[0].is_error and first.tool_calls[0].result.startswith("No tool")
    assert run.status == "finished" and [s.state_id for s in run.steps] == [BACKEND]


def test_the_time_cap_stops_the_run_with_its_assistant_at_work(runner: Runner) -> None:
    class Never:
        async def wait(self) -> None:
            await asyncio.Event().wait()

    provider = runner.provider
    provider.enqueue_tool_call(f"subagents__{BACKEND}", {"task": "Backend steps"})
    provider.enqueue_reply(chunks=["reading ", Never()])  # type: ignore[list-item]
    run = runner.run(with_limits(template_text(), "{timeoutSeconds: 0.5}"), "How do I start it?")
    assert run.status == "stopped" and "limits.timeoutSeconds (0.5 s)" in run.error
    [supervisor] = runner.chats.children(f"workflow:{run.id}")
    [assistant] = runner.chats.children(supervisor.id)
    assert runner.chats.messages(assistant.id)[-1].status == "cancelled"


def test_a_supervisor_going_round_without_finishing_stops_at_its_turn_cap(runner: Runner) -> None:
    for _ in range(2):  # maxSteps 1: one turn to delegate and one to finish
        runner.provider.enqueue_tool_call("subagents__nobody", {"task": "anything"})
    run = runner.run(with_limits(template_text(), "{maxSteps: 1}"), "How do I start it?")
    assert run.status == "stopped" and not run.steps
    assert "the supervisor took 2 turns (limits.maxSteps + 1) without finishing" in run.error
    runner.provider.assert_all_used()
