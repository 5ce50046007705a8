"""The labelled memory benchmark files stay sane: the checks of benchmarks/memory/validate.py
that need no model (ids, labels, categories, sizes), so that a bad edit fails CI, not a benchmark run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

VALIDATE = Path(__file__).resolve().parents[2] / "benchmarks" / "memory" / "validate.py"


@pytest.fixture(scope="module")
def validate() -> ModuleType:
    spec = importlib.util.spec_from_file_location("memory_benchmark_validate", VALIDATE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_memories_and_queries_are_consistent(validate: ModuleType) -> None:
    problems: list[str] = []
    memories = {split: validate.load_memories(split, problems) for split in validate.SPLITS}
    queries = {
        split: validate.check_queries(split, memories[split], problems, now=1_795_000_000.0)
        for split in validate.SPLITS
    }
    validate.check_sizes(memories, queries, problems)
    assert problems == []


def test_a_relevant_memory_that_a_later_one_names_as_superseded_is_reported(
    validate: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "memories_dev.jsonl").write_text(
        '{"id": "a", "text": "I live in Berlin", "created_at": "2025-01-01"}\n'
        '{"id": "b", "text": "I moved to Lisbon", "created_at": "2025-02-01", "supersedes": "a"}\n'
        '{"id": "c", "text": "dentist on March 3", "kind": "event", "created_at": "2025-02-01", "expires_at": "2025-03-04"}\n'
    )
    (tmp_path / "queries_dev.jsonl").write_text(
        '{"id": "q1", "query": "weekend plans near home?", "relevant": ["a"], "category": "superseded"}\n'
        '{"id": "q2", "query": "when is the dentist?", "relevant": ["c", "zz"], "category": "direct"}\n'
        '{"id": "q3", "query": "hi", "relevant": ["b"], "category": "none"}\n'
        '{"id": "q3", "query": "ok", "relevant": [], "category": "chitchat"}\n'
    )
    monkeypatch.setattr(validate, "HERE", tmp_path)
    problems: list[str] = []
    memories = validate.load_memories("dev", problems)
    validate.check_queries("dev", memories, problems, now=1_795_000_000.0)
    text = "\n".join(problems)
    assert "q1: relevant a is superseded by b" in text
    assert "q2: relevant c has expired" in text
    assert "q2: relevant zz is not in memories_dev.jsonl" in text
    assert "q3: category none with 1 relevant memories" in text
    assert "q3: id used twice" in text
    assert "category 'chitchat' is not one of" in text


def test_extraction_conversations_are_consistent(validate: ModuleType) -> None:
    problems: list[str] = []
    validate.check_extraction(problems)
    assert problems == []


def test_the_rule_extractor_meets_the_precision_goal_and_never_misattributes() -> None:
    path = VALIDATE.with_name("evaluate_extraction.py")
    spec = importlib.util.spec_from_file_location("memory_benchmark_extraction", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    for split in ("dev", "holdout"):
        result = module.evaluate(module.load(split))
        assert result["misattributed"] == 0, split
        assert result["precision"] >= module.GOAL_PRECISION, (split, result)


def test_conflict_pairs_are_consistent(validate: ModuleType) -> None:
    problems: list[str] = []
    validate.check_conflicts(problems)
    assert problems == []
