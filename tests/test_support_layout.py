"""Tests share helpers through tests/support only: no test module imports another one or a conftest."""

from __future__ import annotations

import ast

from tests.support.paths import REPO_ROOT

TESTS = REPO_ROOT / "tests"


def test_test_modules_import_shared_helpers_only_from_tests_support() -> None:
    offenders = []
    for path in sorted(TESTS.rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            modules = []
            if isinstance(node, ast.ImportFrom) and node.module:
                # A relative import of another test module (``from .test_x import``) counts too.
                relative_test = node.level and node.module.rpartition(".")[2].startswith("test_")
                modules = [f"tests.{node.module}" if relative_test else node.module]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            offenders += [
                f"{path.relative_to(REPO_ROOT)}: {module}"
                for module in modules
                if module.startswith("tests.") and not module.startswith("tests.support")
            ]
    assert offenders == []
