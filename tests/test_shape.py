"""The code keeps the shape docs/architecture.md describes: no module over 500 lines in the three
packages. (The floors inside the core and the chat that imports no feature are import-linter
contracts in pyproject.toml; tests/test_layering.py shows them failing on a deliberate violation.)
"""

from __future__ import annotations

from pathlib import Path

from tests.support.paths import REPO_ROOT

PACKAGES = ("agent_core", "indexer", "desktop")
MAX_LINES = 500
# A module allowed to be longer, with why: only a generated or table-like file qualifies. None is.
LONGER_ALLOWED: dict[str, str] = {}


def modules_over(root: Path, limit: int = MAX_LINES) -> list[tuple[str, int]]:
    """The Python modules of the packages under ``root`` longer than ``limit`` lines, with their
    line counts, as paths relative to ``root``."""
    found = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            lines = len(path.read_text(encoding="utf-8").splitlines())
            relative = path.relative_to(root).as_posix()
            if lines > limit and relative not in LONGER_ALLOWED:
                found.append((relative, lines))
    return found


def test_no_module_is_longer_than_500_lines() -> None:
    assert modules_over(REPO_ROOT) == [], "split these modules by job (docs/architecture.md)"


def test_a_module_longer_than_500_lines_is_named(tmp_path: Path) -> None:
    (tmp_path / "agent_core" / "chat").mkdir(parents=True)
    (tmp_path / "desktop").mkdir()
    (tmp_path / "agent_core" / "chat" / "grown.py").write_text("x = 1\n" * 501)
    (tmp_path / "agent_core" / "chat" / "just_fits.py").write_text("x = 1\n" * 500)
    (tmp_path / "desktop" / "small.py").write_text('"""Small."""\n')
    assert modules_over(tmp_path) == [("agent_core/chat/grown.py", 501)]


def test_the_allowed_longer_modules_exist_and_say_why() -> None:
    for path, why in LONGER_ALLOWED.items():
        assert (REPO_ROOT / path).is_file(), f"{path} is gone: take it off the list"
        assert why.strip(), f"{path}: say why it may be longer"
