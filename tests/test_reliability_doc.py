"""docs/reliability.md stays true: every test its table names exists."""

from __future__ import annotations

import re

from tests.support.paths import REPO_ROOT

# "tests/x.py::test_name", or "::test_name" for another test of the file named just before.
TEST_REFERENCE = re.compile(r"((?:tests)/[\w/.-]+?\.py)?::(test_\w+)")


def test_every_test_the_reliability_table_names_exists() -> None:
    doc = (REPO_ROOT / "docs" / "reliability.md").read_text(encoding="utf-8")
    named, missing, current = 0, [], None
    for path, name in TEST_REFERENCE.findall(doc):
        current = path or current
        assert current is not None, f"::{name} comes before any test file in docs/reliability.md"
        named += 1
        if f"def {name}(" not in (REPO_ROOT / current).read_text(encoding="utf-8"):
            missing.append(f"{current}::{name}")
    assert named > 30
    assert missing == []
