"""A large skill collection for speed tests and the benchmark: the real skill folders of
``tests/fixtures/skill_import/collection`` copied many times, each copy with its own name written
the ways real collections write them (kebab-case, Title Case, snake_case, a leading hyphen, a
folder that differs from the name) and at the depths they keep them (``skills/*``,
``plugins/*/skills/*``, the top), with every 50th an exact copy of another (a duplicate)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from tests.support.paths import FIXTURES

SOURCE = FIXTURES / "skill_import" / "collection"
_NAME_LINE = re.compile(r"^name:.*$", re.MULTILINE)
_WORDS = ("data", "review", "deploy", "ledger", "search", "design", "audit", "report", "sync", "triage")


def real_skill_folders() -> list[Path]:
    """The committed real skills, the unfilled template left out."""
    return sorted(p.parent for p in SOURCE.rglob("SKILL.md") if p.parent.name != "TEMPLATE")


def build_collection(root: Path, count: int) -> Path:
    """``count`` skill folders under ``root`` (returned); ``count // 50`` of them duplicates."""
    originals = real_skill_folders()
    for index in range(count):
        if index % 50 == 49:  # the same skill in two places
            copy_of = _place(root, index - 1)
            shutil.copytree(copy_of, _place(root, index, duplicate=True))
            continue
        original = originals[index % len(originals)]
        words = f"{_WORDS[index % len(_WORDS)]} {_WORDS[(index // 10) % len(_WORDS)]} {index}"
        name = _styled(words, index)
        folder = _place(root, index)
        shutil.copytree(original, folder)
        text = (folder / "SKILL.md").read_text(encoding="utf-8")
        (folder / "SKILL.md").write_text(_NAME_LINE.sub(f"name: {name}", text, count=1), encoding="utf-8")
    return root


def _styled(words: str, index: int) -> str:
    style = index % 5
    if style == 0:
        return words.replace(" ", "-")
    if style == 1:
        return words.title()
    if style == 2:
        return words.replace(" ", "_")
    if style == 3:
        return "-" + words.replace(" ", "-")
    return words.replace(" ", "-") + "-skill"  # its folder keeps the plain words


def _place(root: Path, index: int, *, duplicate: bool = False) -> Path:
    folder = f"skill-{index:04d}" + ("-copy" if duplicate else "")
    depth = index % 3
    if depth == 0:
        return root / "skills" / folder
    if depth == 1:
        return root / "plugins" / f"plugin-{index % 20:02d}" / "skills" / folder
    return root / folder
