"""CodeMie workflows (a workflow YAML, or its template form with ``execution_config``; Sequential
with states, or Autonomous with a supervisor and assistants): placed under ``workflows/`` with
``undefined: keep`` added (CodeMie leaves an undefined ``{{name}}`` as text), and what ContextDesk
cannot resolve listed (assistants, tools, custom nodes, what Autonomous mode does not run)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from agent_core.agent.importers._common import (
    AgentImportError,
    ImportedAgent,
    Importer,
    ImportReport,
    read_import_text,
    safe_item_name,
)
from agent_core.agent.items import Problem
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import parse_workflow
from agent_core.plugins import Register

__all__ = ["detects_codemie_workflow", "import_codemie_workflow", "register_importers"]

KEEP_LINE = "undefined: keep  # imported from CodeMie, which leaves an undefined {{name}} as text\n"


def _workflow_data(data: Any) -> Mapping[str, Any] | None:
    if not isinstance(data, Mapping):
        return None
    inner = data.get("execution_config")
    body = inner if isinstance(inner, Mapping) else data
    states = body.get("states")
    if isinstance(states, list) and states and all(isinstance(s, Mapping) and "id" in s for s in states):
        return data
    # Autonomous mode: a supervisor delegating to the assistants, no states.
    mode, assistants = body.get("mode", data.get("mode")), body.get("assistants")
    autonomous = isinstance(mode, str) and mode.strip().lower() == "autonomous"
    if autonomous and isinstance(assistants, list) and assistants:
        return data
    return None


def detects_codemie_workflow(source: Path) -> bool:
    if not source.is_file() or source.suffix not in (".yaml", ".yml"):
        return False
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8", errors="replace")[:2_000_000])
    except (OSError, yaml.YAMLError):
        return False
    return _workflow_data(data) is not None


def _import_detected(source: Path, *, copy_secrets: bool) -> ImportedAgent:
    return import_codemie_workflow(source)


def register_importers(register: Register[Importer]) -> None:
    """The CodeMie workflow importer."""
    register(
        "codemie-workflow", Importer("a CodeMie workflow YAML", detects_codemie_workflow, _import_detected)
    )


def import_codemie_workflow(source: Path) -> ImportedAgent:
    """The workflow in ``source``, its text kept, ready for ``workflows/``.

    Raises:
        AgentImportError: the file is not a CodeMie workflow.
    """
    imported = ImportedAgent(report=ImportReport("a CodeMie workflow"))
    text = read_import_text(source)
    data = yaml.safe_load(text)
    if _workflow_data(data) is None:
        raise AgentImportError(
            f"{source} is not a CodeMie workflow: it has no 'states' list (nor mode: Autonomous with "
            "assistants); check that it is a workflow's YAML"
        )
    raw_name = (
        str(data.get("slug") or data.get("name") or source.stem) if isinstance(data, Mapping) else source.stem
    )
    name = safe_item_name(raw_name.replace(" ", "-").lower(), imported.report, "workflow")
    body = text if "undefined:" in text else _with_keep_line(text)
    problems: list[Problem] = []
    workflow = parse_workflow(Path("workflows") / f"{name}.yaml", body, problems)
    if workflow is not None:
        problems += check_workflow(workflow)
    for problem in problems:
        line = f" (line {problem.line})" if problem.line else ""
        target = imported.report.warnings if problem.severity == "warning" else imported.report.skipped
        target.append(f"workflow '{name}'{line}: {problem.message}")
    imported.workflow_files[name] = body
    return imported


def _with_keep_line(text: str) -> str:
    """``text`` with KEEP_LINE as its first key: after a ``---`` that starts the document (CodeMie's
    templates open with a licence comment, then ``---``), else at the top."""
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped == "---":
            return "".join([*lines[: index + 1], KEEP_LINE, *lines[index + 1 :]])
        break
    return KEEP_LINE + text
