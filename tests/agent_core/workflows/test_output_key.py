"""``output_key`` on a JSON object output, as CodeMie's engine does it: the object's root keys
enter the store as they would without it, and the whole output is stored under the key too."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.items import Problem
from agent_core.agent.workflow_files.check import check_workflow
from agent_core.agent.workflow_files.loader import parse_workflow
from tests.support.workflow_runner import Runner, step, store_after

ARTICLE = """
states:
  - id: describe
    assistant_id: writer
    task: Describe the article
    next: {state_id: announce, output_key: article_meta}
  - id: announce
    assistant_id: writer
    task: 'Announce {{title}} ({{words}} words); all of it: {{article_meta}}'
    next: {state_id: end}
"""


def test_an_object_output_with_an_output_key_stores_its_keys_and_the_whole_object(runner: Runner) -> None:
    run = runner.run(
        ARTICLE,
        {},
        [
            {"state_id": "describe", "output": {"title": "Caching 101", "words": 5}},
            {"state_id": "announce", "output": "Out now."},
        ],
    )
    assert run.status == "finished", run.error
    assert step(run, "announce").rendered_task == (
        'Announce Caching 101 (5 words); all of it: {"title": "Caching 101", "words": 5}'
    )
    assert run.store == {
        "title": "Caching 101",
        "words": 5,
        "article_meta": {"title": "Caching 101", "words": 5},
    }
    assert set(step(run, "describe").added) == {"title", "words", "article_meta"}


def test_the_output_key_wins_over_a_root_key_of_the_same_name_and_lists_of_objects_merge_too() -> None:
    assert store_after({}, '{"meta": 1, "b": 2}', output_key="meta") == {"meta": {"meta": 1, "b": 2}, "b": 2}
    raw = '[{"file": "a.txt"}, {"file": "b.txt", "size": 2}]'
    assert store_after({}, raw, output_key="files") == {
        "file": "b.txt",
        "size": 2,
        "files": [{"file": "a.txt"}, {"file": "b.txt", "size": 2}],
    }
    assert store_after({"x": 1}, '{"k": 1}', output_key="whole", store_in_context=False) == {"x": 1}


def test_the_check_knows_the_keys_an_output_key_state_asks_for() -> None:
    text = """
states:
  - id: describe
    task: 'Describe the article. Return JSON: {"title": "...", "words": 0}'
    next: {state_id: announce, output_key: article_meta}
  - id: announce
    task: 'Announce {{title}}: {{article_meta}}'
    next: {state_id: end}
"""
    problems: list[Problem] = []
    workflow = parse_workflow(Path("flow.yaml"), text, problems)
    assert workflow is not None, problems
    assert [p.message for p in check_workflow(workflow)] == []
