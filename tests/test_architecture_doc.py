"""docs/architecture.md matches the folders: every package has its file table, and every module
of it is a row there (a module added or moved without a word in the doc fails this test)."""

from __future__ import annotations

import re

from tests.support.paths import REPO_ROOT

PACKAGES = ("agent_core", "indexer", "desktop")


def file_tables(doc: str) -> dict[str, set[str]]:
    """The doc's file tables: a package folder (``### `agent_core/chat/```) -> its rows' files."""
    tables: dict[str, set[str]] = {}
    current: set[str] | None = None
    for line in doc.splitlines():
        heading = re.fullmatch(r"### `([\w/]+)/`", line.strip())
        if heading:
            current = tables.setdefault(heading.group(1), set())
        elif line.startswith("## "):
            current = None
        elif current is not None and (row := re.match(r"\| `([\w.]+\.py)` \|", line)):
            current.add(row.group(1))
    return tables


def test_every_module_is_in_its_packages_file_table() -> None:
    tables = file_tables((REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    missing = [
        path.relative_to(REPO_ROOT).as_posix()
        for package in PACKAGES
        for path in sorted((REPO_ROOT / package).rglob("*.py"))
        if path.name not in tables.get(path.parent.relative_to(REPO_ROOT).as_posix(), set())
    ]
    assert missing == [], "add these to docs/architecture.md's file tables"


def test_a_table_row_names_a_module_that_exists() -> None:
    tables = file_tables((REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    gone = [
        f"{folder}/{name}"
        for folder, names in tables.items()
        for name in names
        if not (REPO_ROOT / folder / name).is_file()
    ]
    assert gone == [], "take these out of docs/architecture.md's file tables"


def test_a_module_missing_from_the_doc_is_named() -> None:
    doc = "### `agent_core/chat/`\n\n| file | job |\n|---|---|\n| `session.py` | One chat. |\n## Next\n| `other.py` | x |\n"
    assert file_tables(doc) == {"agent_core/chat": {"session.py"}}
