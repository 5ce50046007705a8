"""Importing Cursor rules keeps their file globs, so a rule that Cursor attaches by file still
joins the chats that name such a file."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.importers import import_source
from agent_core.agent.importers._cursor_globs import cursor_attachment


def test_cursor_globs_map_onto_include_modes_and_globs(fixtures_dir: Path, tmp_path: Path) -> None:
    report = import_source(fixtures_dir / "importers" / "cursor-globs", tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert agent.errors == []
    assert [p.message for p in agent.problems if "globs" in p.message] == []  # no catch-all left as agent

    components = agent.rules["react-components"]  # globs only: fires by glob
    assert components.include is IncludeMode.MANUAL
    assert components.globs == ("src/components/**/*.tsx", "src/components/**/*.ts")

    conventions = agent.rules["conventions"]  # a catch-all: Cursor attaches it to nearly everything
    assert conventions.include is IncludeMode.ALWAYS

    tests = agent.rules["python-tests"]  # a description and a YAML list of globs
    assert tests.include is IncludeMode.AGENT
    assert tests.globs == ("tests/**/*.py", "**/conftest.py")

    kubernetes = agent.rules["kubernetes"]  # the JSON-list form, one pattern broken
    assert kubernetes.include is IncludeMode.AGENT
    assert kubernetes.globs == ("**/*.{yaml,yml}",)
    assert any("kubernetes.mdc" in line and "k8s/[ab.yaml" in line for line in report.skipped)

    assert agent.rules["sql"].include is IncludeMode.ALWAYS  # alwaysApply wins, as in Cursor
    assert not any("does not attach" in line for line in report.skipped)


@pytest.mark.parametrize(
    ("header", "globs"),
    [
        ("globs: *.ts", ("*.ts",)),
        ("globs: src/**/*.ts, *.{js,jsx}", ("src/**/*.ts", "*.{js,jsx}")),
        ('globs: ["**/*.mdc", "docs/**"]', ("**/*.mdc", "docs/**")),
        ("globs:\n  - 'lib/**'\n  - test/*.exs\nalwaysApply: false", ("lib/**", "test/*.exs")),
        ("globs:\r\n- app/**/route.ts\r\nalwaysApply: false", ("app/**/route.ts",)),
        ("globs:\nalwaysApply: false", ()),
        ("description: no globs at all", ()),
    ],
)
def test_every_form_of_cursor_globs_is_read(header: str, globs: tuple[str, ...]) -> None:
    assert cursor_attachment(header, description="", always_apply=False).globs == globs


def test_a_rule_with_globs_but_no_description_imports_as_manual_with_its_globs() -> None:
    attachment = cursor_attachment("globs: src/**/*.ts", description="", always_apply=False)
    assert (attachment.include, attachment.globs) == (IncludeMode.MANUAL, ("src/**/*.ts",))
    described = cursor_attachment("globs: **/*.*", description="Style", always_apply=False)
    assert described.include is IncludeMode.ALWAYS
