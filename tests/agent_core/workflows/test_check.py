"""``workflow check`` before anything runs: unknown states, assistants and tools, unreachable
states, parallel writes without a merge rule, CodeMie features not run here, and undefined
variables, each on its line; 30+ seeded workflows caught, their correct versions clean."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from agent_core.agent.items import Problem
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import parse_workflow


def check(tmp_path: Path, text: str, **kwargs: object) -> list[Problem]:
    problems: list[Problem] = []
    workflow = parse_workflow(tmp_path / "flow.yaml", text, problems)
    if workflow is None:
        return problems
    return problems + check_workflow(workflow, **kwargs)  # type: ignore[arg-type]


def errors(problems: list[Problem]) -> list[str]:
    return [p.message for p in problems if p.severity == "error"]


GOOD = """\
inputs:
  file_path: {type: string}
  mode: {type: string, required: false, default: quick}
assistants:
  - id: analyst
    system_prompt: You analyse code.
tools:
  - id: reader
    tool: workspace.read_file
states:
  - id: read
    tool_id: reader
    tool_args: {path: "{{file_path}}"}
    next: {state_id: analyse, output_key: source}
  - id: analyse
    assistant_id: analyst
    task: |
      Analyse {{source}} in {{mode}} mode. Return JSON: {"summary": "...", "issues": ["..."], "severity": "low"}
    next:
      condition: {expression: "severity == 'high'", then: escalate, otherwise: report}
  - id: escalate
    assistant_id: analyst
    task: Escalate {{summary}} with {{issues}}
    next: {state_id: end}
  - id: report
    assistant_id: analyst
    task: Report {{summary}}
    next: {state_id: end}
"""


def test_a_correct_workflow_has_no_error(tmp_path: Path) -> None:
    assert errors(check(tmp_path, GOOD, tools={"workspace.read_file"})) == []


def test_references_that_do_not_exist_are_errors_on_their_lines(tmp_path: Path) -> None:
    text = GOOD.replace("state_id: analyse", "state_id: analyze").replace("tool_id: reader", "tool_id: readr")
    text = text.replace("assistant_id: analyst\n    task: Report", "assistant_id: nobody\n    task: Report")
    problems = check(tmp_path, text)
    by_message = {p.message: p for p in problems if p.severity == "error"}
    assert any("goes to 'analyze', which is not a state" in m for m in by_message)
    assert any("names tool 'readr'" in m for m in by_message)
    assert any("names assistant 'nobody'" in m for m in by_message)
    tool_problem = next(p for m, p in by_message.items() if "readr" in m)
    assert tool_problem.line == 12


def test_unreachable_states_parallel_writes_and_unsupported_codemie_features(tmp_path: Path) -> None:
    text = """\
mode: Hierarchical
enable_summarization_node: true
states:
  - id: fan
    task: split the work
    next: {state_ids: [a, b]}
  - id: a
    task: part a
    next: {state_id: end, output_key: result}
  - id: b
    task: part b
    next: {state_id: end, output_key: result}
  - id: each
    task: each
    parallel: 3
    next: {state_id: end}
  - id: custom
    custom_node_id: my_node
    next: {state_id: end}
"""
    problems = check(tmp_path, text)
    messages = [p.message for p in problems]
    assert any("mode Hierarchical is not supported" in m for m in errors(problems))
    assert any("both write 'result'" in m for m in errors(problems))
    assert any("runs 3 at a time but says nothing of how their outputs merge" in m for m in errors(problems))
    assert any("custom node" in m for m in errors(problems))
    assert any("'each' can never run" in m for m in messages)
    assert any("summarization nodes" in m for m in messages)


def test_the_codemie_template_form_loads_with_its_lines(tmp_path: Path) -> None:
    text = "name: Demo\nexecution_config:\n  states:\n    - id: s\n      task: x\n      next: {state_id: nowhere}\n"
    [problem] = errors(check(tmp_path, text)) and [p for p in check(tmp_path, text) if p.severity == "error"]
    assert "nowhere" in problem.message and problem.line == 6


def test_a_malformed_file_is_a_located_problem(tmp_path: Path) -> None:
    problems = check(tmp_path, "states:\n  - id: s\n    task: x\n    next: {state_id: end, state_ids: [a]}\n")
    assert len(problems) == 1 and "exactly one of state_id" in problems[0].message and problems[0].line == 4


def seeded(tmp_path: Path) -> list[tuple[str, str]]:
    """Workflows with one undefined variable seeded each, and the variable."""
    base = yaml.safe_load(GOOD)
    cases: list[tuple[str, str]] = []

    def variant(mutate: object, variable: str) -> None:
        data = yaml.safe_load(GOOD)
        mutate(data)  # type: ignore[operator]
        cases.append((yaml.safe_dump(data, sort_keys=False), variable))

    for name in ["file_pth", "filepath", "path", "file", "input_file"]:
        variant(lambda d, n=name: d["states"][0]["tool_args"].update(path="{{" + n + "}}"), name)
    for name in ["sourc", "src", "code", "text", "content"]:
        variant(
            lambda d, n=name: d["states"][1].update(
                task="Analyse {{" + n + '}}. Return JSON: {"summary": 1, "issues": 2, "severity": 3}'
            ),
            name,
        )
    for name in ["sumary", "summry", "overview", "report", "findings"]:
        variant(lambda d, n=name: d["states"][3].update(task="Report {{" + n + "}}"), name)
    for name in ["severty", "level", "risk", "sev", "priority"]:
        variant(
            lambda d, n=name: d["states"][1]["next"]["condition"].update(expression=f"{n} == 'high'"), name
        )
    for name in ["issue", "problems", "bugs", "isues", "errors_found"]:
        variant(
            lambda d, n=name: d["states"][2].update(task="Escalate {{summary}} with {{" + n + ".0}}"), name
        )
    for name in ["mod", "mode_", "style", "depth", "flavour"]:
        variant(
            lambda d, n=name: d["states"][1].update(
                task=d["states"][1]["task"].replace("{{mode}}", "{{" + n + "}}")
            ),
            name,
        )
    # A key reset before it is read, and a store cleared before it is read.
    variant(
        lambda d: (
            d["states"][1]["next"].update(reset_keys_in_context_store=["summary"])
            if False
            else d["states"][0]["next"].update(reset_keys_in_context_store=["source"])
        ),
        "source",
    )
    variant(lambda d: d["states"][0]["next"].update(clear_context_store=True), "source")
    assert base is not None
    return cases


def test_every_seeded_undefined_variable_is_found(tmp_path: Path) -> None:
    cases = seeded(tmp_path)
    assert len(cases) >= 30
    for text, variable in cases:
        found = errors(check(tmp_path, text))
        assert any(f"'{variable}' is undefined" in m for m in found), (variable, found)


@pytest.mark.parametrize("undefined", ["error", "keep"])
def test_no_false_positive_on_correct_workflows(tmp_path: Path, undefined: str) -> None:
    data = yaml.safe_load(GOOD)
    data["undefined"] = undefined
    assert errors(check(tmp_path, yaml.safe_dump(data))) == []


def test_agent_check_and_workflow_check_report_workflow_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.agent.scaffold import create_agent
    from agent_core.cli.main import main

    root = create_agent(tmp_path / "agent").root
    (root / "workflows").mkdir()
    (root / "workflows" / "good.yaml").write_text(GOOD, encoding="utf-8")
    (root / "workflows" / "bad.yaml").write_text(
        GOOD.replace("{{summary}}\n", "{{sumary}}\n"), encoding="utf-8"
    )
    assert main(["workflow", "check", str(root), "good"]) == 0
    assert main(["workflow", "check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "workflows/bad.yaml:" in out and "'sumary' is undefined" in out
    assert main(["agent", "check", str(root)]) == 1
    assert "'sumary' is undefined" in capsys.readouterr().out


CODEMIE = """\
slug: release-notes
name: "Release notes from merged changes"
description: Writes release notes.
mode: Sequential
execution_config:
  enable_summarization_node: false
  assistants:
    - id: writer
      system_prompt: You write release notes for users.
      tools:
        - name: _read_file
  tools:
    - id: changes
      tool: generic_git_tool
  states:
    - id: collect
      tool_id: changes
      next: {state_id: write, output_key: changes}
    - id: write
      assistant_id: writer
      task: "Write release notes for {{changes}} in {{language}}"
      next: {state_id: end}
    - id: publish
      custom_node_id: confluence_publisher
      next: {state_id: end}
"""


def test_a_codemie_workflow_imports_with_what_it_cannot_resolve_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.agent.loader import load_agent
    from agent_core.agent.scaffold import create_agent
    from agent_core.cli.main import main

    source = tmp_path / "release_notes.yaml"
    source.write_text(CODEMIE, encoding="utf-8")
    target = create_agent(tmp_path / "agent").root
    assert main(["agent", "import", str(source), str(target)]) == 0
    out = capsys.readouterr().out
    assert "imported: workflow 'release-notes'" in out
    assert "'generic_git_tool', not a tool of this agent" in out and "custom node" in out
    written = (target / "workflows" / "release-notes.yaml").read_text()
    assert written.startswith("undefined: keep") and written.endswith(CODEMIE)
    agent = load_agent(target)
    assert agent.workflows["release-notes"].spec.undefined == "keep"
    # With undefined: keep, {{language}} (never stored) is a warning, not an error.
    problems = [p for p in agent.problems if "language" in p.message]
    assert problems and all(p.severity == "warning" for p in problems)


def test_an_undefined_variable_is_reported_on_the_line_that_reads_it(tmp_path: Path) -> None:
    text = (
        "states:\n"
        "  - id: first\n"
        "    task: hello\n"
        "    next:\n"
        "      condition: {expression: \"mood == 'good'\", then: second, otherwise: end}\n"
        "  - id: second\n"
        "    task: 'Greet {{nmae}}'\n"
        "    next: {state_id: end}\n"
    )
    problems: list[Problem] = []
    workflow = parse_workflow(tmp_path / "flow.yaml", text, problems)
    assert workflow is not None, problems
    lines = {
        p.message.split(":")[0] + ":" + p.message.split("'")[3]: p.line for p in check_workflow(workflow)
    }
    assert lines == {"state 'first', condition:mood": 5, "state 'second', task:nmae": 7}
