"""The pieces that let a messy Claude Code agent file import: the line-by-line header reader, the
names made valid, the header found where real files put it, and the files that truly cannot be
imported, each left out with its reason."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_core.agent._loose_header import read_loose_header
from agent_core.agent.importers import import_source, read_source
from agent_core.agent.importers._claude_agent_text import described_by_text, find_header, renamed
from agent_core.agent.importers.claude_agents import MAX_AGENT_FILES
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.subagent_files.naming import subagent_name
from tests.support.agent_files import write

GOOD = "---\nname: helper\ndescription: Helps.\n---\nYou help.\n"
# An alias bomb: valid YAML, refused (never read line by line instead).
BOMB = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(6)
)


def agents_folder(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    folder = tmp_path / "project" / ".claude" / "agents"
    folder.mkdir(parents=True)
    for name, content in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return tmp_path / "project"


def test_a_tag_block_keeps_key_like_lines_in_the_value_and_hash_lines_are_comments() -> None:
    header = (
        "# written by a generator\n"
        "name: reviewer\n"
        "description: Use it to review. Examples:\n"
        "<example>\n"
        "Context: a pull request\n"
        'user: "Review this"\n'
        "</example>\n"
        "model: sonnet\n"
    )
    values = read_loose_header(header)
    assert set(values) == {"name", "description", "model"}
    assert values["description"] == (
        'Use it to review. Examples:\n<example>\nContext: a pull request\nuser: "Review this"\n</example>'
    )
    assert values["model"] == "sonnet"


def test_a_tag_never_closed_does_not_swallow_the_keys_after_it() -> None:
    values = read_loose_header("description: Use it. <example>user: hi\ntools: Read, Grep\nmodel: haiku\n")
    assert values == {"description": "Use it. <example>user: hi", "tools": "Read, Grep", "model": "haiku"}


def test_quotes_are_taken_off_only_around_a_whole_value() -> None:
    values = read_loose_header("a: 'It''s'\nb: \"x \\\"y\\\"\"\nc: \"one\" and \"two\"\nd: 'one' and 'two'\n")
    assert values == {"a": "It's", "b": 'x "y"', "c": '"one" and "two"', "d": "'one' and 'two'"}


@pytest.mark.parametrize(
    ("given", "name", "display"),
    [
        ("Code Reviewer", "code-reviewer", "Code Reviewer"),
        ("\U0001f9ea Test Runner", "test-runner", "\U0001f9ea Test Runner"),
        ("Café Bot", "cafe-bot", "Café Bot"),
        ("node-20.1-expert", "node-20-1-expert", "node-20.1-expert"),
        ("\u667a\u80fd\u4f53", "my-file", "\u667a\u80fd\u4f53"),  # nothing to build on: the file's name
        ("con", "con-item", "con"),
        ("Researcher", "Researcher", None),  # valid as it is: kept
        (None, "my-file", None),
        (5, "my-file", None),
    ],
)
def test_a_name_becomes_a_valid_one_close_to_it(given: object, name: str, display: str | None) -> None:
    chosen = subagent_name(given, "my-file")
    assert (chosen.name, chosen.display_name) == (name, display)
    assert (chosen.change is None) == (given in (None, "Researcher"))


def test_a_file_name_that_is_not_a_valid_name_is_made_one() -> None:
    chosen = subagent_name(None, "My Agent")
    assert chosen.name == "my-agent" and chosen.change and "file name 'My Agent'" in chosen.change


def test_a_header_without_its_opening_line_is_found() -> None:
    found = find_header("\nname: Code Reviewer Agent\ndescription: Use on all changes\n---\n\nYou review.\n")
    assert found.header == "name: Code Reviewer Agent\ndescription: Use on all changes"
    assert found.text.startswith("---\nname: Code Reviewer Agent\n") and found.text.endswith("You review.\n")
    assert found.repair and "no opening '---'" in found.repair


def test_a_header_never_closed_ends_at_the_first_blank_line() -> None:
    found = find_header("---\nname: a\ndescription: b\n\nThe prompt.\n")
    assert found.header == "name: a\ndescription: b"
    assert found.text.endswith("---\n\nThe prompt.\n")
    assert found.repair and "closing '---'" in found.repair


def test_a_header_closed_by_a_longer_run_of_dashes_is_found() -> None:
    found = find_header("---\n\nname: ui\ndescription: Builds UIs.\n--------------\n\n# UI\n")
    assert found.header == "name: ui\ndescription: Builds UIs."
    assert found.text == "---\nname: ui\ndescription: Builds UIs.\n---\n\n# UI\n"
    assert found.repair and "longer run of dashes" in found.repair


def test_a_thematic_break_in_plain_markdown_is_not_a_header() -> None:
    text = "# Notes\n\nSome words.\n---\nMore words.\n"
    assert find_header(text).header is None
    assert find_header("Just a prompt.\n---\nwith a rule.\n").header is None


def test_renaming_changes_only_the_name_line() -> None:
    text = "\ufeff---\r\nname: reviewer\r\ndescription: x\r\n---\r\nBody\r\n"
    assert renamed(find_header(text), "reviewer-2") == (
        '\ufeff---\r\nname: "reviewer-2"\r\ndescription: x\r\n---\r\nBody\r\n'
    )


def test_the_description_of_a_file_without_a_header_is_its_heading_and_first_paragraph() -> None:
    text = "# Helper\n\n```\ncode: here\n```\n\n## Role\n\n**You** help with `git`.\nAlways.\n\nLater.\n"
    assert described_by_text(text) == "Helper: You help with git. Always."
    assert described_by_text("Only prose here.\n") == "Only prose here."
    assert described_by_text("---\n\n\n") is None
    long = described_by_text("word " * 200)
    assert long is not None and len(long) <= 300 and long.endswith("…")


def test_what_cannot_be_imported_is_left_out_with_its_reason(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text(GOOD, encoding="utf-8")
    project = agents_folder(
        tmp_path,
        {
            "good.md": GOOD.replace("helper", "good"),
            "latin1.md": "---\ndescription: caf\xe9\n---\n".encode("latin-1"),
            "binary.md": b"---\ndescription: x\n---\n\x00\x01\x02",
            "huge.md": "---\ndescription: big\n---\n" + "x" * (5 * 1024 * 1024 + 1),
            "empty.md": "",
            "README.md": "# About these agents\n",
            "TESTING.md": "# How we test the agents\n",
            "bomb.md": f"---\ndescription: x\n{BOMB}---\nHa.\n",
        },
    )
    os.symlink(outside, project / ".claude" / "agents" / "linked.md")
    target = create_agent(tmp_path / "agent").root
    report = import_source(project, target)
    reasons = {line.split(": ", 1)[0]: line for line in report.skipped}
    assert set(reasons) == {
        "binary.md",
        "bomb.md",
        "empty.md",
        "huge.md",
        "latin1.md",
        "linked.md",
        "README.md",
        "TESTING.md",
    }
    assert "expand to more than" in reasons["bomb.md"]
    assert "NUL" in reasons["binary.md"]
    assert "not UTF-8" in reasons["latin1.md"]
    assert "larger than 5 MB" in reasons["huge.md"]
    assert "outside the folder being imported" in reasons["linked.md"]
    assert "empty" in reasons["empty.md"]
    assert sorted(load_agent(target).subagents) == ["good"]


def test_two_files_named_alike_in_case_only_are_both_kept(tmp_path: Path) -> None:
    project = agents_folder(
        tmp_path,
        {"a.md": GOOD.replace("helper", "Planner"), "b/b.md": GOOD.replace("helper", "planner")},
    )
    imported = read_source(project)
    assert sorted(imported.subagent_files) == ["Planner", "planner-2"]
    assert any("b/b.md: a.md is already the sub-agent 'planner'" in line for line in imported.report.warnings)


def test_a_file_without_a_name_taken_by_another_is_numbered_by_its_file(tmp_path: Path) -> None:
    no_name = "---\ndescription: Plans.\n---\nPlan.\n"
    project = agents_folder(tmp_path, {"one/planner.md": no_name, "two/planner.md": no_name})
    target = create_agent(tmp_path / "agent").root
    import_source(project, target)
    assert sorted(load_agent(target).subagents) == ["planner", "planner-2"]
    assert (target / "subagents" / "planner-2.md").read_text(encoding="utf-8") == no_name  # unchanged


def test_a_folder_with_more_files_than_the_cap_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent_core.agent.importers.claude_agents as claude_agents

    monkeypatch.setattr(claude_agents, "MAX_AGENT_FILES", 3)
    project = agents_folder(tmp_path, {f"a{i}.md": GOOD.replace("helper", f"a{i}") for i in range(5)})
    imported = read_source(project)
    assert sorted(imported.subagent_files) == ["a0", "a1", "a2"]
    assert any("more than 3 .md files" in line for line in imported.report.skipped)
    assert MAX_AGENT_FILES == 1_000


def test_the_loader_reads_a_lenient_file_in_subagents_with_a_warning(tmp_path: Path) -> None:
    root = create_agent(tmp_path / "agent").root
    write(
        root / "subagents" / "code-reviewer.md",
        "---\nname: Code Reviewer\ndescription: Reviews: diffs. Examples:\n<example>\nuser: review\n</example>\n---\nReview.\n",
    )
    agent = load_agent(root)
    reviewer = agent.subagents["code-reviewer"]
    assert reviewer.display_name == "Code Reviewer"
    assert reviewer.description == "Reviews: diffs. Examples: <example> user: review </example>"
    messages = [p.message for p in agent.problems]
    assert all(p.severity == "warning" for p in agent.problems)
    assert any("read line by line" in m for m in messages) and any("display name" in m for m in messages)
