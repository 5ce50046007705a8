"""The core packages must stay usable without Qt."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "qtpy")


@pytest.mark.parametrize("package", ["agent_core", "indexer"])
def test_core_package_source_never_imports_qt(package: str) -> None:
    offenders = []
    for path in sorted((REPO_ROOT / package).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(REPO_ROOT)}: {n}" for n in names if n.split(".")[0] in QT_MODULES
            ]
    assert offenders == []


def test_importing_every_core_module_loads_no_qt_module() -> None:
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
