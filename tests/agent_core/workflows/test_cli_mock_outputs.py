"""``workflow run --mock-outputs`` takes the JSON list itself or a file holding it; anything else
is a one-line error that says what to give, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main

GREET = (
    "states:\n"
    '  - id: hello\n    task: \'Say hello. Return JSON: {"greeting": "..."}\'\n'
    "    next: {state_id: end}\n"
)
MOCKS = [{"state_id": "hello", "output": {"greeting": "hi Ana"}}]


@pytest.fixture
def agent_root(tmp_path: Path) -> Path:
    root = create_agent(tmp_path / "agent").root
    (root / "workflows").mkdir()
    (root / "workflows" / "greet.yaml").write_text(GREET, encoding="utf-8")
    return root


def _run(root: Path, mock_outputs: str) -> list[str]:
    return ["workflow", "run", "--agent", str(root), "greet", "--mock-outputs", mock_outputs, "--json"]


def test_the_mock_outputs_given_as_json_text_answer_the_states(
    agent_root: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(_run(agent_root, json.dumps(MOCKS))) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["status"] == "finished" and result["mocked"]
    assert result["context"] == {"greeting": "hi Ana"}


def test_the_mock_outputs_given_as_a_file_still_answer_the_states(
    agent_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mock = tmp_path / "mock.json"
    mock.write_text(json.dumps(MOCKS), encoding="utf-8")
    assert main(_run(agent_root, str(mock))) == 0
    assert json.loads(capsys.readouterr().out)["context"] == {"greeting": "hi Ana"}


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("missing.json", "neither a JSON list nor a file"),
        ('[{"state_id": "hello",', "not a JSON list"),
        ('{"state_id": "hello"}', "neither a JSON list nor a file"),
        ('["hello"]', "each mock output is an object"),
    ],
)
def test_mock_outputs_that_are_neither_json_nor_a_file_are_a_clear_error(
    agent_root: Path, capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    assert main(_run(agent_root, given)) == 1
    err = capsys.readouterr().err
    assert err.startswith("contextdesk: --mock-outputs") and said in err, err
    assert "Traceback" not in err and '{"state_id": ..., "output": ...}' in err


def test_a_mock_outputs_file_that_is_not_a_json_list_names_the_file(
    agent_root: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mock = tmp_path / "mock.json"
    mock.write_text("state_id: hello\n", encoding="utf-8")
    assert main(_run(agent_root, str(mock))) == 1
    err = capsys.readouterr().err
    assert str(mock) in err and "not a JSON list" in err
