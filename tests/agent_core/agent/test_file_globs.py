"""The glob language of ``globs:``: which patterns are refused (and where), and which paths match."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.file_globs import GlobMatch, GlobSet, glob_problem, is_catch_all, split_glob_list
from agent_core.agent.scaffold import create_agent


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("src/**/*.ts", "src/app/main.ts"),
        ("src/**/*.ts", "src/main.ts"),  # `**/` may be no folder at all
        ("src/**/*.ts", "/home/me/project/src/app/main.ts"),  # an absolute path names it too
        ("*.py", "utils.py"),
        ("*.py", "pkg/utils.py"),  # no `/` in the pattern: a file name in any folder
        ("**/*.{ts,tsx}", "src/components/Button.tsx"),
        ("src/components/**/*.tsx", "src/components/forms/Input.tsx"),
        ("app/api/**/route.ts", "app/api/users/[id]/route.ts"),
        ("**/components/**", "web/src/components/Button.tsx"),
        ("/docs/**/*", "docs/guide/intro.md"),  # Cursor's root-relative form
        ("./priv/", "priv/repo/seeds.exs"),  # a folder: everything below it
        ("{src,lib}/**/*.rs", "lib/net/socket.rs"),
        ("test_[a-c]*.py", "tests/test_api.py"),
        ("*.MDC", ".cursor/rules/style.mdc"),  # case is ignored
    ],
)
def test_real_shaped_globs_match_the_files_they_are_written_for(pattern: str, path: str) -> None:
    assert GlobSet([pattern]).first_match([path]) == GlobMatch(path, pattern)


@pytest.mark.parametrize(
    ("pattern", "path"),
    [
        ("src/**/*.ts", "lib/main.ts"),
        ("src/**/*.ts", "src/main.tsx"),
        ("src/**/*.ts", "mysrc/main.ts"),  # a folder boundary, not any suffix
        ("*.py", "utils.pyc"),
        ("src/*.ts", "src/app/main.ts"),  # `*` stays within a folder
        ("test_[a-c]*.py", "test_x.py"),
        ("docs/**", "docs"),
    ],
)
def test_globs_do_not_match_other_files(pattern: str, path: str) -> None:
    assert GlobSet([pattern]).first_match([path]) is None


def test_a_negated_glob_leaves_its_files_out_and_the_first_matching_path_is_reported() -> None:
    globs = GlobSet(["src/**/*.ts", "!**/*.test.ts"])
    assert globs.first_match(["src/a.test.ts", "README.md", "src/b.ts"]) == GlobMatch(
        "src/b.ts", "src/**/*.ts"
    )
    assert globs.first_match(["src/a.test.ts"]) is None


def test_cursor_one_line_lists_split_at_commas_outside_braces() -> None:
    assert split_glob_list("**/*.{ts,tsx}, a?.c") == ["**/*.{ts,tsx}", "a?.c"]
    assert split_glob_list("'*.py',\"*.js\",") == ["*.py", "*.js"]


@pytest.mark.parametrize("patterns", [["**/*"], ["*"], ["**"], ["**/*.*"], ["/**/*"], ["src/**", "**/*"]])
def test_catch_all_globs_are_recognised(patterns: list[str]) -> None:
    assert is_catch_all(patterns)


@pytest.mark.parametrize("patterns", [["**/*.ts"], ["src/**"], ["**/*", "!**/*.md"], []])
def test_narrow_globs_are_not_catch_all(patterns: list[str]) -> None:
    assert not is_catch_all(patterns)


@pytest.mark.parametrize(
    ("pattern", "fix"),
    [
        ("", "remove it"),
        ("src\\app\\*.ts", "write folders with '/'"),
        ("**/*.{ts,tsx", "{ts,tsx}"),
        ("src/[ab.ts", "[abc]"),
        ("!", "!**/*.test.ts"),
        ("*a*b*c*d*e*f*g*h*i", "simpler patterns"),
        ("x" * 301, "300 at most"),
    ],
)
def test_a_broken_pattern_is_refused_with_the_fix(pattern: str, fix: str) -> None:
    problem = glob_problem(pattern)
    assert problem is not None and fix in problem


def rule_file(tmp_path: Path, header: str) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "rules" / "react-components.md").write_text(f"---\n{header}---\nUse function components.\n")
    return root


def test_globs_load_from_a_list_or_cursor_s_one_line_string(tmp_path: Path) -> None:
    root = rule_file(tmp_path, 'include: manual\nglobs: "src/components/**/*.tsx, *.jsx"\n')
    rule = load_agent(root).rules["react-components"]
    assert rule.globs == ("src/components/**/*.tsx", "*.jsx")
    assert rule.include is IncludeMode.MANUAL


def test_a_bad_pattern_is_a_problem_on_its_own_line_and_the_rule_is_left_out(tmp_path: Path) -> None:
    root = rule_file(tmp_path, 'include: manual\nglobs:\n  - "src/**/*.ts"\n  - "src/[ab.ts"\n')
    agent = load_agent(root)
    assert "react-components" not in agent.rules
    [problem] = agent.errors
    assert problem.line == 5  # the second pattern's line
    assert "globs.1" in problem.message and "[abc]" in problem.message


def test_too_many_globs_are_refused(tmp_path: Path) -> None:
    patterns = "".join(f'  - "dir{i}/*.ts"\n' for i in range(41))
    agent = load_agent(rule_file(tmp_path, f"globs:\n{patterns}"))
    assert "react-components" not in agent.rules
    assert any("40" in p.message for p in agent.errors)


def test_an_unquoted_star_glob_gets_the_fix_of_quoting_it(tmp_path: Path) -> None:
    agent = load_agent(rule_file(tmp_path, "include: manual\nglobs: *.ts\n"))
    [problem] = agent.errors
    assert problem.line == 3 and 'globs: ["*.ts"' in problem.fix


def test_catch_all_globs_load_as_always_with_a_warning_saying_so(tmp_path: Path) -> None:
    agent = load_agent(rule_file(tmp_path, 'description: Style\ninclude: agent\nglobs: ["**/*"]\n'))
    assert agent.rules["react-components"].include is IncludeMode.ALWAYS
    [warning] = [p for p in agent.problems if "globs" in p.message]
    assert warning.severity == "warning" and warning.line == 4 and "include: always" in warning.fix
