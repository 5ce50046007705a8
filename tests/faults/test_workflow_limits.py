"""Workflows under hostile input and faults: a 10,000-step cycle, an iteration over 100,000 items,
templates and conditions that loop or allocate without end, private attributes in dry runs, a
run whose program is killed, and a loop with no way out. Real SQLite, real processes; small
limits where the behaviour is the same as with the defaults, so that each test takes seconds."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest
from pydantic import ValidationError

from agent_core.agent.items import Problem
from agent_core.agent.scaffold import create_agent
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import parse_workflow
from agent_core.agent.workflow_files.schema import WorkflowLimits
from agent_core.agent.workflow_files.templates import WorkflowTemplateError, condition, render
from agent_core.paths import user_dirs
from agent_core.workflows.run_store import WorkflowRunStore
from tests.support.paths import REPO_ROOT
from tests.support.workflow_runner import Runner

MB = 1_048_576


def database_bytes(path: Path) -> int:
    """The database with its write-ahead log: what the run put on disk."""
    wal = path.with_name(path.name + "-wal")
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)


CYCLE = """
limits: {maxSteps: 10000, maxStoredBytes: 1048576, timeoutSeconds: 120}
states:
  - id: draft
    task: 'Draft again: {{notes}}'
    next: {state_id: review, output_key: notes}
  - id: review
    task: Review the draft.
    next:
      condition: {expression: "false", then: end, otherwise: draft}
"""


def test_a_ten_thousand_step_cycle_stops_at_the_stored_bytes_cap_with_memory_and_disk_bounded(
    tmp_path: Path,
) -> None:
    runner = Runner(tmp_path)
    answers = [
        {"state_id": "draft" if i % 2 == 0 else "review", "output": f"version {i}: " + "x" * 2000}
        for i in range(10_000)
    ]
    tracemalloc.start()
    try:
        run = runner.run(CYCLE, {"notes": ""}, answers)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert run.status == "stopped", run.error
    assert "limits.maxStoredBytes (1.0 MB)" in run.error and "Raise limits.maxStoredBytes" in run.error
    assert 10 < len(run.steps) < 1_000  # stopped long before the 10,000 steps it asked for
    assert database_bytes(tmp_path / "chats.sqlite3") < 3 * MB  # the cap, one step, SQLite's pages
    assert peak < 40 * MB  # nothing grows with the steps: they are in the database, not in memory


ITERATION = """
limits: {maxSteps: 10000, maxStoredBytes: 4194304}
states:
  - id: list
    task: List the items.
    next: {state_id: each, iter_key: items}
  - id: each
    task: 'Handle {{item}}'
    next: {state_id: end, output_key: handled}
"""


def test_an_iteration_over_100000_items_is_refused_before_its_first_item(tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    answers = [{"state_id": "list", "output": "{}"}]
    run = runner.run(ITERATION, {"items": list(range(100_000))}, answers)
    assert run.status == "stopped" and "'items' holds 100,000 items, more than the 9,999 steps" in run.error
    assert "Raise limits.maxSteps" in run.error and [s.state_id for s in run.steps] == ["list"]
    assert database_bytes(tmp_path / "chats.sqlite3") < 16 * MB  # the input, one step, the log's copies


def test_an_iteration_over_a_large_store_stops_at_the_stored_bytes_cap(tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    answers = [{"state_id": "list", "output": "{}"}] + [
        {"state_id": "each", "output": f"done {i}"} for i in range(9_000)
    ]
    run = runner.run(ITERATION, {"items": [f"item {i:06}" for i in range(9_000)]}, answers)
    assert run.status == "stopped" and "limits.maxStoredBytes (4.0 MB)" in run.error
    assert len(run.steps) < 40  # each item's step keeps the store (and its 9,000 items) twice
    assert database_bytes(tmp_path / "chats.sqlite3") < 16 * MB  # the cap, the input, the log's copies


def test_a_step_over_max_step_bytes_keeps_only_its_outline_and_stops_the_run(tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    text = """
limits: {maxStepBytes: 65536}
states:
  - id: fetch
    task: Fetch the page.
    next: {state_id: summarize, output_key: page}
  - id: summarize
    task: 'Summarize {{page}}'
    next: {state_id: end}
"""
    run = runner.run(text, {}, [{"state_id": "fetch", "output": "y" * 300_000}])
    assert run.status == "stopped"
    assert "limits.maxStepBytes (64 KB)" in run.error and "state 'fetch' would store" in run.error
    [fetch] = run.steps
    assert fetch.status == "failed" and fetch.store_after == {} and len(fetch.raw_output) < 5_000
    assert "page" not in run.store  # the run's store is the one before the step that passed the cap
    assert database_bytes(tmp_path / "chats.sqlite3") < 2 * MB


def test_the_limits_have_defaults_and_hard_caps_named_in_the_file() -> None:
    limits = WorkflowLimits()
    assert (limits.max_steps, limits.max_stored_bytes, limits.max_step_bytes) == (50, 64 * MB, 4 * MB)
    with pytest.raises(ValidationError, match="maxStoredBytes"):
        WorkflowLimits.model_validate({"maxStoredBytes": 2048 * MB})
    problems: list[Problem] = []
    text = "limits: {maxStepBytes: 999999999999}\nstates:\n  - id: a\n    next: {state_id: end}\n"
    assert parse_workflow(Path("big.yaml"), text, problems) is None
    assert problems[0].line == 1 and "maxStepBytes" in problems[0].message


def test_nested_loops_in_a_template_stop_at_the_runs_timeout(tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    text = """
limits: {timeoutSeconds: 0.5}
states:
  - id: busy
    task: |
      Count:
      {% for i in xs %}{% for j in xs %}{% if text.count('a') < 0 %}never{% endif %}{% endfor %}{% endfor %}
    next: {state_id: end}
"""
    started = time.monotonic()
    run = runner.run(
        text, {"xs": list(range(100)), "text": "a" * 1_000_000}, [{"state_id": "busy", "output": "x"}]
    )
    assert run.status == "stopped" and "limits.timeoutSeconds (0.5 s)" in run.error
    assert time.monotonic() - started < 5


def test_loops_without_output_are_charged_to_the_templates_budget() -> None:
    started = time.monotonic()
    store = {"xs": list(range(1000))}
    template = "{% for i in xs %}{% for j in xs %}{% for k in xs %}{% endfor %}{% endfor %}{% endfor %}"
    with pytest.raises(WorkflowTemplateError, match="loops more than 100,000 times"):
        render(template, store, where="state 'x', task")
    assert time.monotonic() - started < 5


GROWERS = [
    "'a'.ljust(200000000)",
    "'a'.rjust(200000000)",
    "'a'.center(200000000)",
    "'7'.zfill(200000000)",
    "('a' * 1000).replace('a', 'b' * 200000)",
    "'{:>200000000}'.format(1)",
    "('{0}' * 100000).format('z' * 2000)",
    "'%200000000s' % 'x'",
    "('%s' * 100000) % (('z' * 2000),)",
    "('\t' * 1000).expandtabs(200000)",
    "'aa'.translate({97: 'b' * 100000000})",
    "(big + big + big)",
    "(big ~ big ~ big)",
    "', '.join([big, big, big])",
    "[big, big, big]|join",
    "(big ~ '\\n') * 3",
    "('\\n' * 100000)|indent(2000)",
    "[[1] * 1000000, [1] * 1000000]|sum(start=[])",
    "','.join(range(1000000000))",
]


@pytest.mark.parametrize("grower", GROWERS)
def test_growing_strings_and_lists_are_refused_before_they_allocate(grower: str) -> None:
    store = {"big": "x" * 900_000}
    tracemalloc.start()
    try:
        with pytest.raises(WorkflowTemplateError) as in_template:
            render(f"First line\n\n{{{{ {grower} }}}}", store, where="state 'x', task")
        with pytest.raises(WorkflowTemplateError) as in_condition:
            condition(f"({grower}) == ''", store, where="state 'x', next")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * MB  # the 900 KB value and the refused call's arguments, never its result
    assert str(in_template.value).startswith("state 'x', task, line 3: refused:"), in_template.value
    assert str(in_condition.value).startswith("state 'x', next (the condition): refused:"), in_condition.value


def test_a_condition_that_would_exhaust_memory_fails_the_run_with_a_clear_error(tmp_path: Path) -> None:
    runner = Runner(tmp_path)
    text = """
states:
  - id: decide
    task: Decide.
    next:
      condition: {expression: "name.ljust(10**10) == name", then: end, otherwise: end}
"""
    run = runner.run(text, {"name": "Ana"}, [{"state_id": "decide", "output": "ok"}])
    assert run.status == "failed"
    assert "state 'decide', next (the condition): refused: str.ljust would make 10,000,000,000" in run.error
    assert "make it build a smaller value" in run.error


PRIVATE = """\
states:
  - id: peek
    task: |
      Hello
      {{ x.__class__.__mro__ }} and {{ ''.__class__ }}
    next: {state_id: end}
"""


def test_private_attributes_in_a_dry_run_and_a_check_are_clear_errors_not_tracebacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main

    root = create_agent(tmp_path / "agent").root
    (root / "workflows").mkdir()
    (root / "workflows" / "peek.yaml").write_text(PRIVATE, encoding="utf-8")
    assert main(["workflow", "run", "--agent", str(root), "peek", "--dry-run"]) == 1
    err = capsys.readouterr().err
    assert "state 'peek', task, line 2: refused: the template uses a private attribute '__class__'" in err
    assert "Traceback" not in err
    assert main(["workflow", "check", str(root), "peek"]) == 1
    out = capsys.readouterr().out
    assert "state 'peek', task, line 2: the template uses a private attribute '__class__'" in out
    assert "'__mro__'" in out


def test_a_private_attribute_of_an_undefined_value_is_refused_in_keep_mode() -> None:
    for template in ("{{ x.__mro__ }}", "{{ x['__class__'] }}", "{{ ''['__class__'] }}"):
        with pytest.raises(WorkflowTemplateError, match="private attribute"):
            render(template, {}, where="state 'x', task", undefined="keep")


def test_a_store_key_with_one_leading_underscore_is_read_and_not_reported(tmp_path: Path) -> None:
    store = {"doc": {"_id": "a1"}}
    assert render("{{ doc._id }} {{ doc['_id'] }}", store, where="t") == "a1 a1"
    text = "states:\n  - id: a\n    task: 'Read {{ doc._id }}'\n    next: {state_id: end}\n"
    workflow = parse_workflow(tmp_path / "ids.yaml", text, [])
    assert workflow is not None
    assert not [p for p in check_workflow(workflow) if "private" in p.message]


GATED = """\
states:
  - id: plan
    task: 'Plan {{topic}}'
    next: {state_id: act, output_key: plan}
  - id: act
    approve: true
    task: 'Carry out {{plan}}'
    next: {state_id: end, output_key: done}
"""


def read_until(process: subprocess.Popen[str], text: str, timeout: float = 60) -> str:
    """What the process printed until ``text`` appeared (or it ended, or ``timeout`` passed)."""
    assert process.stdout is not None
    seen, deadline = "", time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], deadline - time.monotonic())
        chunk = os.read(process.stdout.fileno(), 4096).decode() if ready else ""
        if ready and not chunk:
            break
        seen += chunk
    return seen


@pytest.mark.skipif(sys.platform == "win32", reason="kill -9 is POSIX")
def test_a_killed_run_shows_interrupted_on_the_next_start_and_can_be_run_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main
    from desktop.controllers.workflow_runner import load_runs
    from desktop.models.workflow_runs import WorkflowRunsModel

    root = create_agent(tmp_path / "agent").root
    (root / "workflows").mkdir()
    (root / "workflows" / "gated.yaml").write_text(GATED, encoding="utf-8")
    mock = tmp_path / "mock.json"
    mock.write_text(
        json.dumps([{"state_id": "plan", "output": "three steps"}, {"state_id": "act", "output": "ok"}])
    )
    command = ["workflow", "run", "--agent", str(root), "gated", "--input", '{"topic": "tea"}', "--mock-outputs", str(mock)]  # fmt: skip
    process = subprocess.Popen(
        [sys.executable, "-m", "agent_core.cli.main", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    try:
        assert "[o]nce" in read_until(process, "[o]nce")  # waiting at the approval of 'act'
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    database = user_dirs().database
    runs = WorkflowRunStore(database)  # the next start
    try:
        [killed] = runs.runs(str(root))
        assert killed.status == "interrupted" and "killed" in killed.error
        assert f"contextdesk workflow rerun {killed.id} --from STATE" in killed.error  # its own id
        assert [s.state_id for s in runs.run(killed.id).steps] == ["plan"]  # type: ignore[union-attr]
    finally:
        runs.close()
    model = WorkflowRunsModel()
    model.set_runs(load_runs(database, str(root), "gated"))
    assert model.index(0, 1).data() == "interrupted (mock outputs)"
    assert main(["workflow", "runs", "--agent", str(root)]) == 0
    assert "interrupted" in capsys.readouterr().out

    rerun = ["workflow", "rerun", killed.id, "--from", "plan", "--mock-outputs", str(mock), "--yes", "--json"]
    assert main(rerun) == 0
    assert json.loads(capsys.readouterr().out)["context"]["done"] == "ok"
    assert main([*command, "--yes"]) == 0  # and run again from the start


def test_a_run_of_a_live_program_is_not_marked_interrupted(tmp_path: Path) -> None:
    database = tmp_path / "runs.sqlite3"
    runs = WorkflowRunStore(database)
    runs.start("live", str(tmp_path), "flow", {}, mocked=True)
    other = WorkflowRunStore(database)  # another store of this program, e.g. the desktop's list
    try:
        assert other.run("live").status == "running"  # type: ignore[union-attr]
    finally:
        other.close()
        runs.close()


LOOPS = """\
states:
  - id: start
    task: Start.
    next: {state_id: draft}
  - id: draft
    task: Draft.
    next: {state_id: review}
  - id: review
    task: Review.
    next:
      condition: {expression: "ok", then: draft, otherwise: draft}
  - id: orphan-exit
    task: Never reached.
    next: {state_id: end}
"""


def test_workflow_check_reports_a_loop_that_never_reaches_the_end_with_its_states_and_lines() -> None:
    problems: list[Problem] = []
    workflow = parse_workflow(Path("loops.yaml"), LOOPS, problems)
    assert workflow is not None
    loops = [p for p in check_workflow(workflow) if "loop without an end" in p.message]
    assert len(loops) == 1 and loops[0].severity == "error"
    assert "states 'draft' (line 5), 'review' (line 8) loop without an end" in loops[0].message
    assert loops[0].line == 7 and "a way out" in loops[0].fix


@pytest.mark.parametrize(
    "text",
    [
        CYCLE.replace('expression: "false"', "expression: \"notes == 'done'\""),  # a cycle with an exit
        "states:\n  - id: a\n    next: {state_id: end}\n",
        "states:\n  - id: a\n    next: {state_ids: [b, c]}\n  - id: b\n    next: {state_id: end}\n"
        "  - id: c\n    next: {state_id: end}\n",
        "states:\n  - id: a\n    next:\n      switch: {cases: [{condition: x, state_id: a}], default: end}\n",
    ],
)
def test_loops_with_a_way_out_are_not_reported(text: str) -> None:
    problems: list[Problem] = []
    workflow = parse_workflow(Path("ok.yaml"), text, problems)
    assert workflow is not None
    assert not [p for p in check_workflow(workflow) if "loop without an end" in p.message]


def test_the_shipped_template_has_no_loop_problem(tmp_path: Path) -> None:
    from agent_core.agent.workflow_files.files import template_for

    problems: list[Problem] = []
    workflow = parse_workflow(tmp_path / "new.yaml", template_for("new"), problems)
    assert workflow is not None and not problems
    assert not [p for p in check_workflow(workflow) if "loop" in p.message or "private" in p.message]
