"""A 1,000-skill folder built from real skills imports completely, with every name problem
reported, in under 30 s (issue #29; benchmarks/bench_skill_import.py measures it in a process)."""

from __future__ import annotations

import time
from pathlib import Path

from agent_core.agent.importers import import_source
from agent_core.agent.loader import load_agent
from agent_core.agent.skill_files.definition import spec_name_problem
from tests.support.skill_collection import build_collection


def test_a_thousand_skill_folder_imports_completely_in_under_30_seconds(tmp_path: Path) -> None:
    source = build_collection(tmp_path / "collection", 1_000)
    started = time.perf_counter()
    report = import_source(source, tmp_path / "agent")
    seconds = time.perf_counter() - started
    agent = load_agent(tmp_path / "agent")
    assert seconds < 30, f"the import took {seconds:.1f} s"
    assert len(agent.skills) == 980
    assert sum("a duplicate of" in line for line in report.skipped) == 20
    assert agent.errors == []
    warnings = "\n".join(report.warnings)
    invalid = [
        skill for skill in agent.skills.values() if spec_name_problem(skill.display_name or skill.name)
    ]
    assert len(invalid) > 500
    for skill in invalid:
        assert f"skill '{skill.name}' (from " in warnings and f"named '{skill.name}': " in warnings
