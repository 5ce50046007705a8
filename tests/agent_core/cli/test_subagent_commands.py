"""Sub-agents from the command line: listed by ``agent show``, run by ``subagent run`` and by a
chat, their transcripts in ``sessions show`` and ``sessions export`` (a scripted model at the
provider boundary)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli_runs import run, scripted_agent, with_researcher


def test_agent_show_lists_the_sub_agents(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = with_researcher(scripted_agent(tmp_path, []))
    code, out, _ = run(capsys, "agent", "show", str(agent), "--json", "--no-start")
    assert code == 0
    [sub] = json.loads(out)["subagents"]
    assert sub["name"] == "researcher" and sub["context"] == "isolated"
    assert sub["tools"] == ["workspace.read_file", "workspace.search_files"]
    assert sub["limits"] == {
        "maxTurns": 4, "maxTokens": 20000, "timeoutSeconds": 60.0, "maxDepth": 1, "maxParallel": 3
    }  # fmt: skip
    code, out, _ = run(capsys, "agent", "show", str(agent), "--no-start")
    assert "Sub-agents (1)" in out and "researcher" in out


def test_subagent_run_prints_the_result_and_keeps_the_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = with_researcher(scripted_agent(tmp_path, [{"reply": "The launch is on Friday."}]))
    code, out, err = run(
        capsys, "subagent", "run", "--agent", str(agent), "researcher", "When is the launch?", "--json"
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["result"] == "The launch is on Friday." and result["stopped_by"] is None
    assert result["usage"]["input_tokens"] > 0 and result["turns"] == 1
    # What produced it, as the card says: the model, without any tool (so nothing grounds it).
    assert result["produced_by"] == "the model scripted:demo, answered without using any tool"
    assert result["grounded"] is False
    code, out, _ = run(capsys, "sessions", "show", result["transcript_id"])
    assert code == 0 and "user> When is the launch?" in out and "assistant> The launch is on Friday." in out
    code, _, err = run(capsys, "subagent", "run", "--agent", str(agent), "nobody", "x")
    assert code != 0 and "no sub-agent named 'nobody' (it has: researcher)" in err


def test_a_chat_delegates_and_its_export_holds_the_childs_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [
        {
            "tool_calls": [
                {"name": "subagents__researcher", "arguments": {"task": "Find the launch date"}, "id": "c1"}
            ]
        },
        {"reply": "notes.md: Friday."},
        {"reply": "The launch is on Friday."},
    ]
    agent = with_researcher(scripted_agent(tmp_path, steps))
    code, out, err = run(capsys, "chat", "--agent", str(agent), "when is the launch?")
    assert code == 0, err
    assert out.strip().endswith("The launch is on Friday.")
    assert "[sub-agent researcher started (isolated): Find the launch date]" in err
    assert "sub-agent researcher finished: 1 turns" in err
    code, out, _ = run(capsys, "sessions", "list", "--json")
    [chat] = json.loads(out)  # the sub-agent's chat is not listed among the user's
    code, out, _ = run(capsys, "sessions", "export", chat["id"], "--format", "json")
    exported = json.loads(out)
    [child] = exported["subagent_chats"]
    assert child["session"]["parent"]["subagent"] == "researcher"
    assert [m["content"] for m in child["messages"]] == ["Find the launch date", "notes.md: Friday."]
    delegation = exported["messages"][-2]["request_context"]["delegations"][0]
    assert (
        delegation["task"] == "Find the launch date"
        and delegation["child_session_id"] == child["session"]["id"]
    )
    code, out, _ = run(capsys, "sessions", "show", chat["id"])
    assert "=== sub-agent researcher" in out and "  assistant> notes.md: Friday." in out
    assert "**Sub-agents**:" in out
