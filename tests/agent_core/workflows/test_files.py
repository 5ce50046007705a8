"""Workflow files for the desktop's editor, without Qt: a new file starts from a template that loads
cleanly, a file with problems is still saved (the agent's load then finds them at their lines),
names that are not safe file names are refused, and deleting is quiet when the file is gone."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.workflow_files.files import (
    check_workflow_text,
    delete_workflow,
    problems_of,
    save_workflow,
    template_for,
    workflow_path,
)
from agent_core.errors import AgentFileError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return create_agent(tmp_path / "agent").root


def test_the_template_saves_as_a_workflow_with_no_problem(root: Path) -> None:
    path = workflow_path(root, "outline")
    assert path == root / "workflows" / "outline.yaml"
    assert check_workflow_text(load_agent(root), path, template_for("outline")) == []
    save_workflow(path, template_for("outline"))
    agent = load_agent(root)
    assert "outline" in agent.workflows and problems_of(agent, path) == []


def test_a_workflow_with_an_error_is_saved_and_its_problem_is_on_its_line(root: Path) -> None:
    path = workflow_path(root, "draft")
    text = template_for("draft").replace("paragraph about {{topic}}", "paragraph about {{topc}}")
    [checked] = check_workflow_text(load_agent(root), path, text)
    assert checked.severity == "error" and "'topc' is undefined" in checked.message
    save_workflow(path, text)
    assert path.read_text(encoding="utf-8") == text  # saved, problems or not
    [loaded] = problems_of(load_agent(root), path)
    assert loaded.line == checked.line and checked.line is not None


def test_a_name_that_is_not_a_safe_file_name_is_refused(root: Path) -> None:
    with pytest.raises(AgentFileError, match="workflow name"):
        workflow_path(root, "../outside")


def test_deleting_removes_the_file_and_a_missing_file_is_not_an_error(root: Path) -> None:
    path = workflow_path(root, "gone")
    save_workflow(path, template_for("gone"))
    delete_workflow(path)
    assert not path.exists()
    delete_workflow(path)  # already gone: nothing happens
