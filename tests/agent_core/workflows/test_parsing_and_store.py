"""A state's output as data (CodeMie's chain, then repair) and what it does to the context store:
each example of CodeMie's context-management chapter, and 200 realistic model outputs."""

from __future__ import annotations

import json
import random

import pytest

from agent_core.workflows.context_store import Transition, apply_output
from agent_core.workflows.parsing import parse_output
from tests.support.workflow_runner import store_after


@pytest.mark.parametrize(
    ("raw", "value", "path"),
    [
        ('{"status": "success", "count": 42}', {"status": "success", "count": 42}, "json"),
        (
            "{'status': 'success', 'ok': True, 'n': None}",
            {"status": "success", "ok": True, "n": None},
            "literal",
        ),
        ('Result:\n```json\n{"a": 1}\n```\nDone.', {"a": 1}, "fenced"),
        ('~~~json\n{"a": [1, 2]}\n~~~', {"a": [1, 2]}, "fenced"),
        ('Here is the result: {"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}, "repaired"),
        ('{"summary": "ok", "items": ["x", "y"', {"summary": "ok", "items": ["x", "y"]}, "repaired"),
        ("The analysis completed successfully with no structured data", None, "string"),
        ('["file1.txt", "file2.txt"]', ["file1.txt", "file2.txt"], "json"),
        ("[" * 500 + "]" * 500, None, "string"),  # too deep to parse safely
    ],
)
def test_the_parse_chain_and_the_path_it_took(raw: str, value: object, path: str) -> None:
    parsed = parse_output(raw)
    assert parsed.path == path
    assert parsed.value == (raw if value is None else value)


def test_dictionary_output_stores_every_root_key_and_keeps_nesting() -> None:
    after = store_after(
        {"department": "engineering"}, '{"name": "Alice", "user": {"profile": {"name": "A"}}}'
    )
    assert after == {"department": "engineering", "name": "Alice", "user": {"profile": {"name": "A"}}}


def test_a_list_of_dicts_is_merged_the_last_value_winning() -> None:
    raw = '[{"file": "a.txt", "size": 100}, {"file": "b.txt", "size": 200}]'
    assert store_after({}, raw) == {"file": "b.txt", "size": 200}


def test_simple_lists_and_plain_strings_are_stored_only_under_output_key() -> None:
    assert store_after({"x": 1}, '["file1.txt", "file2.txt"]') == {"x": 1}
    assert store_after({"x": 1}, "A paragraph of text.") == {"x": 1}
    assert store_after({}, '["a", "b"]', output_key="files") == {"files": ["a", "b"]}
    assert store_after({}, "A paragraph.", output_key="paragraph_text") == {"paragraph_text": "A paragraph."}
    assert store_after({}, '{"k": 1}', output_key="whole") == {"k": 1, "whole": {"k": 1}}


def test_store_in_context_false_stores_nothing() -> None:
    assert store_after({"old": 1}, '{"report": "..."}', store_in_context=False) == {"old": 1}


def test_clear_context_store_true_keep_current_and_false_as_documented() -> None:
    raw, before = '{"result": "success", "data": [1, 2, 3]}', {"old_key": "old_value"}
    assert store_after(before, raw, clear_context_store=True) == {}
    assert store_after(before, raw, clear_context_store="keep_current") == {
        "result": "success",
        "data": [1, 2, 3],
    }
    assert store_after(before, raw) == {"old_key": "old_value", "result": "success", "data": [1, 2, 3]}


def test_reset_keys_removes_only_those_and_ignores_missing_ones() -> None:
    before = {"temp_file_path": "/tmp/x", "temp_config": {}, "final_result": 1}
    after = store_after(before, "{}", reset_keys_in_context_store=["temp_file_path", "temp_config", "nope"])
    assert after == {"final_result": 1}


def test_a_fresh_start_that_keeps_the_current_output_and_the_diff_reports_sizes() -> None:
    before = {"a": "x" * 400, "b": 2}
    parsed = parse_output('{"summary": "short", "b": 3}')
    after, change = apply_output(before, parsed.value, "", Transition(clear_context_store="keep_current"))
    assert after == {"summary": "short", "b": 3}
    assert set(change.added) == {"summary"} and set(change.changed) == {"b"} and set(change.removed) == {"a"}
    assert change.removed["a"] == 100 and not change.empty  # 400 characters, about 4 a token


def realistic_outputs() -> list[tuple[str, dict]]:
    """200 outputs in the shapes models write, each with the data it holds."""
    rng = random.Random(11)
    payloads = [
        {"status": "success", "count": rng.randint(0, 99), "items": ["a", "b"]},
        {"summary": "The build failed: 2 tests", "failed": ["test_a", "test_b"], "ok": False},
        {"user": {"name": "Alice", "email": "alice@example.com"}, "role": "admin"},
        {"kind": "bug", "priority": 2, "labels": ["ui", "regression"], "notes": None},
        {"answer": 'It\'s "quoted" and has a, comma', "sources": ["notes.md"]},
    ]
    wrappers = [
        lambda j: j,
        lambda j: f"```json\n{j}\n```",
        lambda j: f"Here is the result:\n```json\n{j}\n```\nLet me know if you need more.",
        lambda j: f"~~~json\n{j}\n~~~",
        lambda j: f"Sure! {j}",
        lambda j: f"{j}\n\nThis covers everything you asked.",
        lambda j: f"```\n{j}\n```",
        lambda j: "Result: " + j.replace("]", ",]").replace("}", ",}"),  # trailing commas
        lambda j: f"The JSON is:\n\n{j}",
        lambda j: f"```JSON\n{j}\n```",
    ]
    out = []
    for i in range(200):
        payload = payloads[i % len(payloads)]
        text = json.dumps(payload, indent=2 if i % 3 else None)
        if i % 7 == 0:
            text = repr(payload)  # a Python literal, as models trained on Python print
        out.append((wrappers[(i // len(payloads)) % len(wrappers)](text), payload))
    return out


def test_at_least_98_percent_of_realistic_outputs_parse_to_their_data() -> None:
    cases = realistic_outputs()
    assert len(cases) == 200
    right = sum(1 for raw, payload in cases if parse_output(raw).value == payload)
    assert right / len(cases) >= 0.98, right
