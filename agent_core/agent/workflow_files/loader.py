"""Loading ``workflows/*.yaml``: every valid file loads, each fault becomes a located Problem."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from agent_core.agent._text_file import outside_problem, read_text
from agent_core.agent._yaml_source import (
    YamlDocument,
    YamlSyntaxError,
    describe_validation_error,
    parse_yaml,
    validation_errors,
)
from agent_core.agent.items import Problem
from agent_core.agent.names import name_problem, suggest_name
from agent_core.agent.workflow_files.schema import WorkflowFile

__all__ = ["WORKFLOWS_FOLDER", "Workflow", "load_workflow", "load_workflows", "parse_workflow"]

WORKFLOWS_FOLDER = "workflows"
SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class Workflow:
    name: str
    spec: WorkflowFile
    path: Path
    document: YamlDocument | None = field(default=None, compare=False, repr=False)

    def line_of(self, *path: str | int) -> int | None:
        """The line of a value of the file (for a problem's location), when known."""
        if self.document is None:
            return None
        wrapped = isinstance(self.document.data, Mapping) and "execution_config" in self.document.data
        return self.document.line_of(["execution_config", *path] if wrapped else list(path))


def load_workflows(root: Path, problems: list[Problem]) -> dict[str, Workflow]:
    """Every valid workflow of the agent in ``root``, by name, sorted by name."""
    folder = root / WORKFLOWS_FOLDER
    if not folder.is_dir():
        if folder.exists() or folder.is_symlink():
            problems.append(
                Problem(
                    folder, f"'{WORKFLOWS_FOLDER}' is a file, not a folder", "make it a folder of .yaml files"
                )
            )
        return {}
    found: dict[str, Workflow] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.suffix not in SUFFIXES:
            continue
        if escape := outside_problem(path, root):
            problems.append(escape)
            continue
        workflow = load_workflow(path, problems)
        if workflow is None:
            continue
        if workflow.name.lower() in {n.lower() for n in found}:
            problems.append(
                Problem(
                    path,
                    f"another workflow is named '{workflow.name}'",
                    "rename one of the two; this one is left out",
                )
            )
            continue
        found[workflow.name] = workflow
    return dict(sorted(found.items()))


def load_workflow(path: Path, problems: list[Problem]) -> Workflow | None:
    text = read_text(path, problems, too_large_fix="split the workflow")
    return None if text is None else parse_workflow(path, text, problems)


def parse_workflow(path: Path, text: str, problems: list[Problem]) -> Workflow | None:
    """The workflow ``text`` describes (as the file ``path``), or None with its problems."""
    name = path.stem
    if problem := name_problem(name):
        problems.append(
            Problem(path, f"file name: {problem}", f"rename the file to {suggest_name(name)}.yaml")
        )
        return None
    try:
        document = parse_yaml(text)
    except YamlSyntaxError as error:
        problems.append(Problem(path, str(error), error.fix or "fix the YAML", error.line))
        return None
    if not isinstance(document.data, Mapping):
        problems.append(
            Problem(path, "a workflow file is a mapping with a 'states' list", "see docs/workflows.md", 1)
        )
        return None
    try:
        spec = WorkflowFile.model_validate(dict(document.data))
    except ValidationError as error:
        wrapped = "execution_config" in document.data
        for item in validation_errors(error):
            message, fix = describe_validation_error(item, WorkflowFile)
            loc = [part for part in item["loc"] if not str(part).startswith("function-")]
            line = document.line_of(["execution_config", *loc] if wrapped else loc)
            problems.append(Problem(path, message, f"{fix}; the workflow is left out until then", line))
        return None
    return Workflow(name, spec, path, document)
