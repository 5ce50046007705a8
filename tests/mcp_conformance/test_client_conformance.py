"""Every client scenario of the official MCP conformance suite, run against ContextDesk's command line.

Each scenario passes, or is listed in ``EXPECTED_FAILURES`` (tests/support/conformance.py) with the
reason, and then must fail (strict). The scenarios come from the pinned suite itself, so a new
suite version brings its new scenarios here without anyone listing them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.conformance import EXPECTED_FAILURES, SUITE_VERSION, Suite, find_suite, markdown_table
from tests.support.paths import REPO_ROOT

SUITE = find_suite()


def _scenarios() -> list[object]:
    if isinstance(SUITE, str):
        return [pytest.param("(none)", marks=pytest.mark.skip(reason=SUITE))]
    return [
        pytest.param(
            scenario,
            marks=[pytest.mark.xfail(strict=True, reason=EXPECTED_FAILURES[scenario])]
            if scenario in EXPECTED_FAILURES
            else [],
        )
        for scenario in SUITE.client_scenarios()
    ]


def _failed_checks(results: Path) -> list[str]:
    """What the suite's checks.json files under ``results`` report as failed."""
    failed = []
    for checks in results.rglob("checks.json"):
        for check in json.loads(checks.read_text(encoding="utf-8")):
            if check.get("status") == "FAILURE":
                failed.append(f"{check.get('id')}: {check.get('errorMessage') or check.get('description')}")
    return failed


@pytest.mark.slow
@pytest.mark.parametrize("scenario", _scenarios())
def test_the_client_passes_the_conformance_scenario(scenario: str, tmp_path: Path) -> None:
    assert isinstance(SUITE, Suite)
    run = SUITE.run_client_scenario(scenario, tmp_path)
    client_said = "\n".join(p.read_text(encoding="utf-8")[-3000:] for p in tmp_path.rglob("stderr.txt"))
    assert run.returncode == 0, (
        f"suite {SUITE_VERSION}, scenario {scenario}: failed checks {_failed_checks(tmp_path)}\n"
        f"{run.stdout[-3000:]}\n--- what the client printed ---\n{client_said}"
    )


def test_the_expected_failures_are_scenarios_of_the_suite() -> None:
    if isinstance(SUITE, str):
        pytest.skip(SUITE)
    assert set(EXPECTED_FAILURES) <= set(SUITE.client_scenarios())


def test_the_conformance_table_in_the_docs_is_the_expected_failures_table() -> None:
    if isinstance(SUITE, str):
        pytest.skip(SUITE)
    table = markdown_table(SUITE.client_scenarios())
    docs = (REPO_ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    assert f"suite {SUITE_VERSION}" in docs, "docs/mcp.md names another suite version than the pinned one"
    assert table in docs, f"docs/mcp.md's conformance table is out of date; it should read:\n\n{table}\n"
