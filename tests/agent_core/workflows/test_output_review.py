"""A run says "finished" only when its states produced what was asked for: an output that had to
be repaired into JSON, or a routed tool's result standing in for the model's answer, marks its
step needs_review and stops the run there with what was expected, what came and the fix, unless
the state opts out. Every step records what produced its output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import TypeAdapter

from agent_core.agent.scaffold import create_agent
from agent_core.agent.workflow_files.files import template_for
from agent_core.providers.base import TokenUsage
from agent_core.workflows.records import StepRecord
from tests.support.workflow_runner import Runner, step

# What the bundled model wrote for the template's outline state (issue #31): prose around an
# object that JSON repair reads as {type, data}.
OUTLINE_AS_REPAIRED = 'Here is the outline: {type: "outline", data: ["history", "uses"]}'


NEEDS_POINTS = """
states:
  - id: outline
    task: Outline {{topic}}. Return JSON with points.
    next: {state_id: draft}
  - id: draft
    task: Write about {{topic}} covering {{points}}
    next: {state_id: end, output_key: text}
"""


def test_the_templates_outline_keeps_prose_with_braces_as_the_text_it_asked_for(runner: Runner) -> None:
    # The template's outline stores its answer as text (output_key: points): the bundled model's
    # prose with an object in it is that text, not JSON to repair into {type, data} (issue #31).
    runner.provider.enqueue_reply(OUTLINE_AS_REPAIRED)
    runner.provider.enqueue_reply("A short text about tea.")
    run = runner.run(template_for("essay"), {"topic": "tea"})
    assert run.status == "finished", run.error
    outline = step(run, "outline")
    assert outline.status == "done" and outline.parse_path == "string"
    assert run.store["points"] == OUTLINE_AS_REPAIRED and run.store["text"] == "A short text about tea."
    assert any(OUTLINE_AS_REPAIRED in m.content for m in runner.provider.requests[1].messages)


def test_a_state_that_expects_json_stops_when_its_output_had_to_be_repaired(runner: Runner) -> None:
    runner.provider.enqueue_reply(OUTLINE_AS_REPAIRED)
    run = runner.run(NEEDS_POINTS, {"topic": "tea"})
    assert run.status == "needs_review"
    outline = step(run, "outline")
    assert outline.status == "needs_review" and outline.parse_path == "repaired"
    for said in ("state 'outline'", "expected output with points, read by state 'draft'", "keys type, data",
                 "a model that follows JSON schemas", "accept_unchecked_output: true"):  # fmt: skip
        assert said in run.error, run.error
    assert [s.state_id for s in run.steps] == ["outline"]  # the draft never ran on it
    assert len(runner.provider.requests) == 1
    stored = runner.runs.run(run.id)
    assert stored is not None and stored.status == "needs_review" and stored.steps[0].status == "needs_review"


# What the bundled model wrote for the template's outline on "bird feeders": its prompt said back.
ECHOED = 'The workflow so far, for reference: user: {"topic": "bird feeders"} <history> user: bird'


def test_an_answer_that_says_its_prompt_back_stops_the_run_for_review(runner: Runner) -> None:
    runner.provider.enqueue_reply(ECHOED)
    run = runner.run(template_for("essay"), {"topic": "bird feeders"})
    assert run.status == "needs_review"
    assert "state 'outline' needs review: its answer repeats the prompt it was given" in run.error
    assert "accept_unchecked_output: true" in run.error
    assert [s.state_id for s in run.steps] == ["outline"] and len(runner.provider.requests) == 1


def test_a_later_answer_that_says_the_history_back_without_its_tags_stops_the_run_for_review(
    runner: Runner,
) -> None:
    # Seen with the bundled model: the draft dropped the tags and kept the frame and the points.
    points = "1. Owls are nocturnal. 2. They hunt by sound."
    runner.provider.enqueue_reply(points)
    runner.provider.enqueue_reply(f"The workflow so far, for reference:\n{points}")
    run = runner.run(template_for("essay"), {"topic": "owls"})
    assert run.status == "needs_review", run.error
    assert "its answer repeats the prompt it was given" in run.error
    assert (
        step(run, "outline").status == "done" and step(run, run.steps[-1].state_id).status == "needs_review"
    )


def test_valid_json_without_what_the_next_state_reads_stops_the_run_at_the_state_that_gave_it(
    runner: Runner,
) -> None:
    # What the bundled model wrote for the template's outline (issue #31): JSON, the wrong keys.
    runner.provider.enqueue_reply('{"type": "json", "data": {"name": "green tea"}}')
    run = runner.run(NEEDS_POINTS, {"topic": "green tea"})
    assert run.status == "needs_review"
    outline = step(run, "outline")
    assert outline.status == "needs_review" and outline.parse_path == "json"
    assert "state 'outline' needs review: it expected output with points, read by state 'draft'" in run.error
    assert "keys type, data" in run.error and "an output_schema that requires points" in run.error
    assert len(runner.provider.requests) == 1


def test_a_next_state_that_reads_a_key_only_when_defined_lets_the_run_go_on(runner: Runner) -> None:
    text = NEEDS_POINTS.replace(
        "covering {{points}}", "{% if points is defined %}covering {{points}}{% endif %}"
    )
    runner.provider.enqueue_reply('{"type": "json"}')
    runner.provider.enqueue_reply("A text about tea.")
    run = runner.run(text, {"topic": "tea"})
    assert run.status == "finished", run.error
    assert run.store["text"] == "A text about tea."


def test_a_state_that_opts_out_goes_on_with_repaired_output(runner: Runner) -> None:
    text = NEEDS_POINTS.replace(
        "    next: {state_id: draft}", "    accept_unchecked_output: true\n    next: {state_id: end}"
    )
    assert "accept_unchecked_output" in text
    runner.provider.enqueue_reply(OUTLINE_AS_REPAIRED)
    run = runner.run(text, {"topic": "tea"})
    assert run.status == "finished", run.error
    assert step(run, "outline").status == "done" and run.store["data"] == ["history", "uses"]


def test_the_template_finishes_when_the_outline_is_the_plain_text_asked_for(runner: Runner) -> None:
    runner.provider.enqueue_reply("- history\n- uses\n- taste")
    runner.provider.enqueue_reply("Tea has a long history and many uses.")
    run = runner.run(template_for("essay"), {"topic": "tea"})
    assert run.status == "finished", run.error
    assert run.store["text"] == "Tea has a long history and many uses."
    assert run.store["points"] == "- history\n- uses\n- taste"
    assert step(run, "draft").rendered_task.endswith("covering these points - - history\n- uses\n- taste")
    assert step(run, "draft").history_before == ()  # the outline clears it: nothing to echo
    provenance = step(run, "draft").provenance
    assert provenance is not None and provenance.produced_by == "model" and provenance.model == "scripted:x"


WRITER = """
assistants:
  - id: writer
    system_prompt: You write release notes.
    tools: [{name: workspace.read_file}]
states:
  - id: write
    assistant_id: writer
    task: Write release notes for {{topic}} from these notes - {{notes}}
    next: {state_id: end, output_key: text}
"""


def test_a_writer_state_a_tool_answered_stops_the_run_naming_the_tool(runner: Runner) -> None:
    runner.provider.enqueue_tool_call("workspace__read_file", {"path": "notes.md"})
    runner.provider.enqueue_reply('{"path": "notes.md", "lines": 12}', usage=TokenUsage(without_model=True))
    run = runner.run(WRITER, {"topic": "Bluefin 0.9.2", "notes": "fixed the login"})
    assert run.status == "needs_review", run.error
    written = step(run, "write")
    assert written.status == "needs_review"
    assert written.provenance is not None and written.provenance.produced_by == "tool_result"
    assert "state 'write'" in run.error and "workspace.read_file" in run.error
    assert "answered instead" in run.error and "model that can choose tools" in run.error
    assert "reword the task" in run.error


def test_tool_states_and_mock_outputs_record_what_produced_them(runner: Runner) -> None:
    text = """
tools:
  - id: reader
    tool: workspace.read_file
states:
  - id: read
    tool_id: reader
    tool_args: {path: '{{file}}'}
    next: {state_id: note}
  - id: note
    task: 'Note {{lines}}'
    next: {state_id: end, output_key: noted}
"""
    run = runner.run(text, {"file": "a.md"}, [{"state_id": "note", "output": "noted"}])
    assert run.status == "finished", run.error
    stored = runner.runs.run(run.id)
    assert stored is not None
    read, note = stored.steps
    assert read.provenance is not None and read.provenance.produced_by == "tool"
    assert read.provenance.line() == 'the tool workspace.read_file {"path": "a.md"}'
    assert note.provenance is not None and note.provenance.produced_by == "mock"


def test_the_command_line_says_needs_review_and_what_produced_each_step(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main

    root = create_agent(tmp_path / "agent").root
    (root / "workflows").mkdir()
    (root / "workflows" / "essay.yaml").write_text(NEEDS_POINTS, encoding="utf-8")
    mock = json.dumps([{"state_id": "outline", "output": {"type": "json"}}])
    args = [
        "workflow",
        "run",
        "--agent",
        str(root),
        "essay",
        "--input",
        '{"topic": "tea"}',
        "--mock-outputs",
        mock,
    ]
    assert main([*args, "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "needs_review" and "state 'outline' needs review" in result["error"]
    [outline] = result["steps"]
    assert (
        outline["status"] == "needs_review"
        and outline["produced_by"] == "a mock output, no model or tool ran"
    )
    assert main(["workflow", "show", result["run_id"]]) == 1
    shown = capsys.readouterr().out
    assert "outline: needs_review" in shown and "produced by a mock output" in shown


def test_a_step_saved_before_provenance_was_kept_loads_without_it() -> None:
    adapter = TypeAdapter(StepRecord)
    saved = json.loads(adapter.dump_json(StepRecord(1, "outline", "assistant", {}, ())))
    del saved["provenance"]
    assert adapter.validate_json(json.dumps(saved)).provenance is None
