"""Workflow runs: the CodeMie context-management chapter's examples, with mock outputs (and one
through a scripted model and a tool), each checked against the store and history it describes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ApprovalDecision
from tests.support.chat_tools import PythonTools, Tool
from tests.support.workflow_runner import Runner, step


def test_the_chapters_first_example_flows_input_and_output_through_the_store(runner: Runner) -> None:
    text = """
states:
  - id: fetch-user-data
    assistant_id: data-fetcher
    task: 'Fetch user profile for user ID {{user_id}} from {{department}}'
    next: {state_id: process-user, store_in_context: true}
  - id: process-user
    assistant_id: processor
    task: |
      Process user profile:
      Name: {{name}}
      Email: {{email}}
      Role: {{role}}
      Department: {{department}}
    next: {state_id: end}
"""
    run = runner.run(
        text,
        '{"user_id": "12345", "department": "engineering"}',
        [
            {
                "state_id": "fetch-user-data",
                "output": {"name": "Alice", "email": "alice@example.com", "role": "admin"},
            },
            {"state_id": "process-user", "output": "Welcome, Alice!"},
        ],
    )
    assert run.status == "finished" and run.mocked
    assert (
        step(run, "fetch-user-data").rendered_task == "Fetch user profile for user ID 12345 from engineering"
    )
    assert (
        "Name: Alice\nEmail: alice@example.com\nRole: admin\nDepartment: engineering"
        in step(run, "process-user").rendered_task
    )
    assert run.store == {
        "user_id": "12345", "department": "engineering", "name": "Alice", "email": "alice@example.com", "role": "admin"
    }  # fmt: skip
    first = step(run, "fetch-user-data")
    assert set(first.added) == {"name", "email", "role"} and first.parse_path == "json"
    assert [m.role for m in step(run, "process-user").history_after] == ["user", "assistant", "assistant"]


def test_nested_input_and_iteration_over_an_input_list(runner: Runner) -> None:
    text = """
states:
  - id: fetch-data
    task: 'Fetch {{config.max_items}} items from {{source}} in {{config.format}} format'
    next: {state_id: process-file, iter_key: files, output_key: ignored}
  - id: process-file
    task: 'Process {{item}}'
    merge: append
    next: {state_id: end, output_key: processed}
"""
    mock = [{"state_id": "fetch-data", "output": "ok"}] + [
        {"state_id": "process-file", "output": f"done {name}"} for name in ("a.txt", "b.txt", "c.txt")
    ]
    run = runner.run(
        text,
        {
            "config": {"max_items": 10, "format": "json"},
            "source": "database",
            "files": ["a.txt", "b.txt", "c.txt"],
        },
        mock,
    )
    assert run.status == "finished", run.error
    assert step(run, "fetch-data").rendered_task == "Fetch 10 items from database in json format"
    assert [s.rendered_task for s in run.steps if s.state_id == "process-file"] == [
        "Process a.txt", "Process b.txt", "Process c.txt"
    ]  # fmt: skip
    assert run.store["processed"] == ["done a.txt", "done b.txt", "done c.txt"]


@pytest.mark.parametrize(
    ("flags", "store", "history_roles"),
    [
        (
            {},
            {"old_key": "old_value", "result": "success", "data": [1, 2, 3]},
            ["user", "assistant", "assistant"],
        ),
        ({"clear_context_store": True}, {}, ["user", "assistant", "assistant"]),
        (
            {"clear_context_store": "keep_current"},
            {"result": "success", "data": [1, 2, 3]},
            ["user", "assistant", "assistant"],
        ),
        ({"store_in_context": False}, {"old_key": "old_value"}, ["user", "assistant", "assistant"]),
        (
            {"include_in_llm_history": False},
            {"old_key": "old_value", "result": "success", "data": [1, 2, 3]},
            ["user", "assistant"],
        ),
        (
            {"clear_prior_messages": True},
            {"old_key": "old_value", "result": "success", "data": [1, 2, 3]},
            ["assistant"],
        ),
        (
            {"reset_keys_in_context_store": ["old_key", "data"]},
            {"result": "success"},
            ["user", "assistant", "assistant"],
        ),
    ],
)
def test_each_transition_flag_does_what_the_chapter_says(
    runner: Runner, flags: dict[str, Any], store: dict[str, Any], history_roles: list[str]
) -> None:
    text = f"""
states:
  - id: produce
    task: produce
    next: {json.dumps({"state_id": "after", **flags})}
  - id: after
    task: after
    next: {{state_id: end, store_in_context: false}}
"""
    run = runner.run(
        text, {"old_key": "old_value"},
        [{"state_id": "produce", "output": {"result": "success", "data": [1, 2, 3]}}, {"state_id": "after", "output": "x"}],
    )  # fmt: skip
    assert run.status == "finished", run.error
    assert step(run, "produce").store_after == store
    assert [m.role for m in step(run, "after").history_after] == history_roles


def test_conditions_list_of_dicts_and_plain_strings(runner: Runner) -> None:
    text = """
states:
  - id: classify
    task: classify
    next:
      condition: {expression: "user_role == 'admin'", then: admin-path, otherwise: user-path}
  - id: admin-path
    task: 'admin {{file}} {{size}}'
    next: {state_id: end}
  - id: user-path
    task: user
    next: {state_id: end}
"""
    run = runner.run(
        text, {"user_role": "admin"},
        [{"state_id": "classify", "output": '[{"file": "a.txt", "size": 100}, {"file": "b.txt", "size": 200}]'},
         {"state_id": "admin-path", "output": "The analysis completed with no structured data"}],
    )  # fmt: skip
    assert [s.state_id for s in run.steps] == ["classify", "admin-path"]
    assert step(run, "admin-path").rendered_task == "admin b.txt 200"  # the last value wins
    assert step(run, "admin-path").added == {}  # a plain string is not stored


def test_an_undefined_variable_fails_the_run_before_any_model_is_asked(runner: Runner) -> None:
    text = "states:\n  - id: s\n    task: 'Hello {{nmae}}'\n    next: {state_id: end}\n"
    run = runner.run(text, {"name": "Alice"})
    assert run.status == "failed" and "'nmae' is undefined" in run.error and "holds: name" in run.error
    [failed] = run.steps
    assert failed.status == "failed" and runner.provider.requests == []


def test_an_assistant_state_runs_in_a_chat_of_its_own_and_a_tool_state_calls_its_tool(runner: Runner) -> None:
    text = """
assistants:
  - id: summariser
    system_prompt: You summarise files. Reply in JSON.
tools:
  - id: reader
    tool: workspace.read_file
states:
  - id: read
    tool_id: reader
    tool_args: {path: '{{file_path}}'}
    next: {state_id: summarise}
  - id: summarise
    assistant_id: summariser
    task: 'Summarise {{path}} ({{lines}} lines). Return JSON: {"summary": "..."}'
    next: {state_id: end}
"""
    runner.provider.enqueue_reply('```json\n{"summary": "twelve lines of notes"}\n```')
    run = runner.run(text, {"file_path": "notes.md"})
    assert run.status == "finished", run.error
    assert step(run, "read").rendered_args == {"path": "notes.md"} and run.store["lines"] == 12
    summarised = step(run, "summarise")
    assert summarised.parse_path == "fenced" and run.store["summary"] == "twelve lines of notes"
    assert summarised.child_session_id and summarised.request_context is not None
    request = runner.provider.requests[0]
    assert request.messages[0].content.startswith("You summarise files.")
    assert "Summarise notes.md (12 lines)" in request.messages[-1].content
    stored = runner.runs.run(run.id)
    assert stored is not None and [s.state_id for s in stored.steps] == ["read", "summarise"]
    assert runner.runs.runs(str(runner.agent.root))[0].id == run.id


def test_limits_stop_a_looping_workflow(runner: Runner) -> None:
    text = "limits: {maxSteps: 3}\nstates:\n  - id: loop\n    task: again\n    next: {state_id: loop}\n"
    run = runner.run(text, {}, [{"state_id": "loop", "output": "x"}] * 5)
    assert run.status == "stopped" and "limits.maxSteps (3)" in run.error and len(run.steps) == 3


def test_workflow_run_json_with_mock_outputs_and_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main

    root = create_agent(tmp_path / "agent").root
    (root / "workflows").mkdir()
    (root / "workflows" / "greet.yaml").write_text(
        "inputs: {name: {type: string}}\n"
        "states:\n"
        '  - id: hello\n    task: \'Say hello to {{name}}. Return JSON: {"greeting": "..."}\'\n'
        "    next: {state_id: shout}\n"
        "  - id: shout\n    task: 'Shout {{greeting}}'\n    next: {state_id: end, output_key: shouted}\n",
        encoding="utf-8",
    )
    mock = tmp_path / "mock.json"
    mock.write_text(
        json.dumps(
            [
                {"state_id": "hello", "output": {"greeting": "hi Ana"}},
                {"state_id": "shout", "output": "HI ANA"},
            ]
        )
    )
    code = main(
        [
            "workflow",
            "run",
            "--agent",
            str(root),
            "greet",
            "--input",
            '{"name": "Ana"}',
            "--mock-outputs",
            str(mock),
            "--json",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    result = json.loads(out)
    assert result["status"] == "finished" and result["context"] == {
        "name": "Ana",
        "greeting": "hi Ana",
        "shouted": "HI ANA",
    }
    assert [s["state_id"] for s in result["steps"]] == ["hello", "shout"]
    assert (
        result["steps"][1]["rendered_task"] == "Shout hi Ana" and result["steps"][0]["next_state"] == "shout"
    )
    assert (
        result["steps"][0]["parse_path"] == "json"
        and result["steps"][1]["history_after"][-1]["text"] == "HI ANA"
    )
    assert main(["workflow", "show", result["run_id"]]) == 0
    shown = capsys.readouterr().out
    assert "1. shout: done -> end" in shown and "added: shouted" in shown
    assert (
        main(["workflow", "run", "--agent", str(root), "greet", "--input", "{}", "--mock-outputs", str(mock)])
        == 1
    )
    assert "the input 'name' is required" in capsys.readouterr().err


def test_rerun_from_a_state_renders_the_same_prompt_and_dry_run_runs_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main

    root = create_agent(tmp_path / "agent").root
    (root / "workflows").mkdir()
    (root / "workflows" / "two.yaml").write_text(
        "states:\n"
        '  - id: first\n    task: \'Plan {{topic}}. Return JSON: {"plan": "..."}\'\n    next: {state_id: second}\n'
        "  - id: second\n    task: 'Carry out {{plan}} on {{topic}}'\n    next: {state_id: end, output_key: done}\n",
        encoding="utf-8",
    )
    mock = tmp_path / "mock.json"
    mock.write_text(
        json.dumps(
            [{"state_id": "first", "output": {"plan": "three steps"}}, {"state_id": "second", "output": "ok"}]
        )
    )
    args = [
        "workflow",
        "run",
        "--agent",
        str(root),
        "two",
        "--input",
        '{"topic": "tests"}',
        "--mock-outputs",
        str(mock),
        "--json",
    ]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    again = tmp_path / "again.json"
    again.write_text(json.dumps([{"state_id": "second", "output": "ok again"}]))
    assert (
        main(
            ["workflow", "rerun", first["run_id"], "--from", "second", "--mock-outputs", str(again), "--json"]
        )
        == 0
    )
    second = json.loads(capsys.readouterr().out)
    assert [s["state_id"] for s in second["steps"]] == ["second"]
    assert (
        second["steps"][0]["rendered_task"]
        == first["steps"][1]["rendered_task"]
        == "Carry out three steps on tests"
    )
    assert second["context"]["done"] == "ok again"
    assert main(["workflow", "rerun", first["run_id"], "--from", "third"]) != 0
    assert "never reached state 'third'" in capsys.readouterr().err
    assert (
        main(
            [
                "workflow",
                "run",
                "--agent",
                str(root),
                "two",
                "--input",
                '{"topic": "tests"}',
                "--dry-run",
                "--json",
            ]
        )
        == 0
    )
    dry = json.loads(capsys.readouterr().out)
    assert dry[1]["rendered_task"] == "Carry out {{plan}} on tests"


def test_an_output_of_the_wrong_type_never_passes_the_schema(runner: Runner) -> None:
    text = """
states:
  - id: count
    task: count
    output_schema: '{"type": "object", "properties": {"count": {"type": "integer"}}, "required": ["count"]}'
    next: {state_id: end}
"""
    for output, ok in (
        ({"count": 3}, True),
        ({"count": "3"}, False),
        ({"count": 3.5}, False),
        ({"n": 3}, False),
        ("three", False),
    ):
        run = runner.run(text, {}, [{"state_id": "count", "output": output}])
        assert (run.status == "finished") is ok, (output, run.error)
        if not ok:
            assert "does not match output_schema" in run.error and "count" not in run.store


def test_the_time_cap_stops_a_run_whose_model_never_answers(runner: Runner) -> None:
    never = asyncio.Event()
    runner.provider.enqueue_reply(chunks=["thinking ", never])  # type: ignore[list-item]
    text = (
        "limits: {timeoutSeconds: 0.3}\nstates:\n  - id: slow\n    task: think\n    next: {state_id: end}\n"
    )
    run = runner.run(text, {})
    assert run.status == "stopped" and "limits.timeoutSeconds (0.3 s)" in run.error


class GatedTools(PythonTools):
    """A tool whose calls wait until ``width`` of them are in flight at once: only a run that
    really calls them side by side gets past it (a sequential one times out)."""

    def __init__(self, width: int) -> None:
        super().__init__(
            [Tool("workspace", "read_file", "Read a file", permission_required=False)],
            {"read_file": lambda path: json.dumps({"summary": f"read {path}"})},
        )
        self.barrier = asyncio.Barrier(width)
        self.in_flight = 0
        self.most_in_flight = 0

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> Any:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            async with asyncio.timeout(10):
                await self.barrier.wait()
            # The last item finishes first: the merge must still follow the items' order.
            for _ in range(10 if arguments["path"] == "a.txt" else 0):
                await asyncio.sleep(0)
            return await super().call_tool(server, tool, arguments)
        finally:
            self.in_flight -= 1


PARALLEL = """
tools:
  - id: reader
    tool: workspace.read_file
states:
  - id: list
    task: list
    next: {{state_id: read, iter_key: files}}
  - id: read
    tool_id: reader
    tool_args: {{path: '{{{{item}}}}'}}
    parallel: {parallel}
    merge: {merge}
    next: {{state_id: end}}
"""


def test_parallel_iterations_run_side_by_side_and_merge_in_the_items_order(runner: Runner) -> None:
    runner.tools = GatedTools(width=3)
    files = ["a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt"]
    run = runner.run(
        PARALLEL.format(parallel=3, merge="append"), {"files": files}, [{"state_id": "list", "output": "ok"}]
    )
    assert run.status == "finished", run.error
    assert runner.tools.most_in_flight == 3  # never more than parallel: 3
    assert run.store["summary"] == [f"read {name}" for name in files]
    assert sorted(s.item for s in run.steps if s.state_id == "read") == files


def test_parallel_items_writing_one_key_with_merge_error_stop_the_run(runner: Runner) -> None:
    runner.tools = GatedTools(width=2)
    run = runner.run(
        PARALLEL.format(parallel=2, merge="error"), {"files": ["a.txt", "b.txt"]},
        [{"state_id": "list", "output": "ok"}],
    )  # fmt: skip
    assert run.status == "failed" and "two items wrote summary (merge: error)" in run.error


def test_a_tool_that_needs_approval_asks_and_a_denial_stops_the_run(runner: Runner) -> None:
    runner.tools = PythonTools(
        [Tool("workspace", "write_file", "Write a file", permission_required=True)],
        {"write_file": lambda path: "written"},
    )
    text = """
tools:
  - id: writer
    tool: workspace.write_file
states:
  - id: write
    tool_id: writer
    tool_args: {path: '{{target}}'}
    next: {state_id: end, output_key: outcome}
"""
    denied = runner.run(text, {"target": "notes.md"}, decide=lambda _: ApprovalDecision.DENY)
    assert denied.status == "stopped" and "you did not allow workspace.write_file" in denied.error
    assert runner.tools.calls == []
    [request] = runner.asked
    assert (request.server, request.tool, dict(request.arguments)) == (
        "workspace",
        "write_file",
        {"path": "notes.md"},
    )
    assert request.origin == "workflow flow"
    allowed = runner.run(text, {"target": "notes.md"}, decide=lambda _: ApprovalDecision.ALLOW_ONCE)
    assert allowed.status == "finished" and allowed.store["outcome"] == "written"


def test_resolve_dynamic_values_in_response_renders_the_tool_output_from_the_store(runner: Runner) -> None:
    runner.tools = PythonTools(
        [Tool("workspace", "template", "A template", permission_required=False)],
        {"template": lambda: '{"greeting": "Hello {{name}}"}'},
    )
    text = """
tools:
  - id: plain
    tool: workspace.template
  - id: resolved
    tool: workspace.template
    resolve_dynamic_values_in_response: true
states:
  - id: first
    tool_id: plain
    next: {state_id: second, output_key: raw}
  - id: second
    tool_id: resolved
    next: {state_id: end}
"""
    run = runner.run(text, {"name": "Alice"})
    assert run.status == "finished", run.error
    assert step(run, "first").raw_output == '{"greeting": "Hello {{name}}"}'
    assert run.store["greeting"] == "Hello Alice"
