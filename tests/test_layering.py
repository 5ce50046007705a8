"""The layers: desktop -> agent_core -> indexer, never upwards; the core without Qt; the core's own
floors (a package imports only from the floors below it); and a chat that imports no feature.

The contracts are import-linter's, in pyproject.toml; `python3 dev.py test` runs them. These tests
show that they catch a back-import, and that no third-party package the core uses loads Qt.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT

QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qtpy")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--no-logo"],
        cwd=root,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "HOME": str(root)},
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def copy_of_the_packages(tmp_path: Path) -> Path:
    """The three packages and the contracts, where a test may break them."""
    if not LINT_IMPORTS.exists():
        pytest.skip("import-linter is not installed: run python3 dev.py test")
    for package in ("agent_core", "indexer", "desktop"):
        shutil.copytree(REPO_ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_layer_contracts_hold_on_the_code_as_it_is(copy_of_the_packages: Path) -> None:
    result = lint_imports(copy_of_the_packages)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "desktop -> agent_core -> indexer, never upwards KEPT" in result.stdout
    assert "agent_core's floors, never upwards KEPT" in result.stdout
    assert "The chat imports no feature that plugs into it KEPT" in result.stdout


@pytest.mark.parametrize(
    ("module", "back_import", "reported"),
    [
        ("agent_core/workspace.py", "import desktop.app", "agent_core.workspace -> desktop.app"),
        ("indexer/index.py", "from agent_core import errors", "indexer.index -> agent_core"),
        (
            "agent_core/database/connection.py",
            "import PySide6.QtCore",
            "agent_core.database.connection -> PySide6",
        ),
        (
            "agent_core/store/records.py",
            "import agent_core.budget.counting",
            "agent_core.store.records -> agent_core.budget.counting",
        ),
        (
            "agent_core/context/items.py",
            "import agent_core.store.records",
            "agent_core.context.items -> agent_core.store.records",
        ),
        # A floor of the core importing one above it.
        (
            "agent_core/agent/agent.py",
            "import agent_core.chat.session",
            "agent_core.agent.agent -> agent_core.chat.session",
        ),
        (
            "agent_core/context/items.py",
            "from agent_core import memory",
            "agent_core.context.items -> agent_core.memory",
        ),
        # The chat importing a feature that plugs into it from the side.
        (
            "agent_core/chat/tool_calls.py",
            "import agent_core.subagents.runner",
            "agent_core.chat.tool_calls -> agent_core.subagents.runner",
        ),
        (
            "agent_core/chat/session.py",
            "import agent_core.workflows.chat_runs",
            "agent_core.chat.session -> agent_core.workflows.chat_runs",
        ),
        # The chat reaching a kind of item it carries other than through chat/item_kinds.py.
        (
            "agent_core/chat/prompt.py",
            "import agent_core.skills_in_chat.blocks",
            "agent_core.chat.prompt -> agent_core.skills_in_chat.blocks",
        ),
    ],
)
def test_a_back_import_breaks_the_contracts_and_is_named(
    copy_of_the_packages: Path, module: str, back_import: str, reported: str
) -> None:
    path = copy_of_the_packages / module
    path.write_text(path.read_text(encoding="utf-8") + f"\n{back_import}  # a deliberate back-import\n")
    result = lint_imports(copy_of_the_packages)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout and reported in result.stdout, result.stdout


def test_importing_every_core_module_loads_no_qt_module() -> None:
    """Through third-party packages too, which the contracts do not follow."""
    script = (
        "import importlib, pkgutil, sys\n"
        "import agent_core, indexer\n"
        "for pkg in (agent_core, indexer):\n"
        "    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}]\n"
        "print(bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_chat_importing_the_skills_it_carries_breaks_the_chats_own_contract(
    copy_of_the_packages: Path,
) -> None:
    """Not the floors alone: chat-knows-no-feature names skills_in_chat too."""
    session = copy_of_the_packages / "agent_core" / "chat" / "session.py"
    session.write_text(
        session.read_text(encoding="utf-8") + "\nimport agent_core.skills_in_chat.loads  # deliberate\n"
    )
    result = lint_imports(copy_of_the_packages)
    assert "The chat imports no feature that plugs into it BROKEN" in result.stdout, result.stdout
    assert "agent_core.chat is not allowed to import agent_core.skills_in_chat" in result.stdout
