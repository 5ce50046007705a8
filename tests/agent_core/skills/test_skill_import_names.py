"""The folder name an imported skill gets, and what counts as an unfilled template."""

from __future__ import annotations

import pytest

from agent_core.agent.importers._skill_names import placeholder_problem, skill_folder_name
from agent_core.agent.names import name_problem
from agent_core.agent.skill_files.definition import spec_name_problem


@pytest.mark.parametrize(
    ("header_name", "folder", "expected"),
    [
        ("pdf-tools", "pdf", "pdf-tools"),  # a valid header name wins over the folder's
        ("", "pdf-tools", "pdf-tools"),  # no header name: the folder's
        ("PDF Tools", "pdf", "pdf-tools"),
        ("pdf_tools", "x", "pdf-tools"),
        ("--pdf--tools--", "x", "pdf-tools"),
        ("Ünïcödé Tööls", "x", "unicode-tools"),
        ("🚀🚀", "rocket launcher", "rocket-launcher"),  # nothing left of the name: the folder's
        ("🚀", "🚀", "skill"),
        ("CON", "x", "con-skill"),  # a name Windows reserves
        ("a" * 70, "x", "a" * 64),
        ("word-" * 20, "x", "-".join(["word"] * 12)),  # cut at a word boundary
    ],
)
def test_a_skill_gets_a_valid_folder_name(header_name: str, folder: str, expected: str) -> None:
    name, reason = skill_folder_name(header_name, folder)
    assert name == expected
    assert spec_name_problem(name) is None and name_problem(name) is None
    assert (reason is None) == (name == (header_name or folder))


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("template-skill", "Replace with description of the skill and when Claude should use it."),
        (
            "Agent Name",
            "One paragraph describing what this agent does, who it's for, and when to activate it.",
        ),
        ("my-thing", "[Describe what this skill does and when to use it]"),
        ("my-thing", "TODO"),
        ("skill-name", "Does something."),
        ("template", ""),
    ],
)
def test_an_unfilled_template_is_recognised(name: str, description: str) -> None:
    assert placeholder_problem(name, description) is not None


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("atlassian-templates", "Create Confluence and Jira templates for teams."),
        ("todo-manager", "Manage TODO lists and find TODO comments in code."),
        ("regex-replace", "Find text and replace it with a new value across files."),
        ("email-template-builder", "Build HTML email templates."),
    ],
)
def test_a_real_skill_is_not_taken_for_a_template(name: str, description: str) -> None:
    assert placeholder_problem(name, description) is None
