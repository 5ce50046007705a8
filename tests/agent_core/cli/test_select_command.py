"""``contextdesk select`` on a small agent with the real embedding model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main

TOOLS = [
    {
        "server": "time",
        "name": "get_current_time",
        "description": "Get current time in a specific timezones",
        "inputSchema": {
            "type": "object",
            "properties": {"timezone": {"type": "string", "description": "IANA timezone name"}},
        },
    },
    {
        "server": "github",
        "name": "create_issue",
        "description": "Create a new issue in a GitHub repository",
        "inputSchema": {
            "type": "object",
            "properties": {"title": {"type": "string", "description": "Issue title"}},
        },
    },
]


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    (root / "references" / "refund-policy.md").write_text(
        "---\ndescription: When customers get their money back\ninclude: agent\n---\n"
        "Refunds are possible within 30 days of purchase and go back to the original card.\n"
    )
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_select_batch_prints_one_json_line_per_message(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    batch = tmp_path / "batch.jsonl"
    batch.write_text(
        '{"id": "q1", "message": "what time is it in Tokyo right now?"}\n\n'
        '{"id": 2, "message": "can I get my money back?"}\n'
        '{"id": "q3", "message": "thanks, bye!"}\n'
    )
    code, out, err = run(
        capsys, "select", "--agent", str(agent_dir), "--tools", str(tools), "--batch", str(batch)
    )
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [line["id"] for line in lines] == ["q1", 2, "q3"]
    first = lines[0]["selected"][0]
    assert {k: first[k] for k in ("type", "name", "server")} == {
        "type": "tool",
        "name": "get_current_time",
        "server": "time",
    }
    assert isinstance(first["score"], float)
    assert lines[1]["selected"][0]["name"] == "refund-policy"
    assert "server" not in lines[1]["selected"][0]
    assert lines[2]["selected"] == []
    assert all("reason" in miss for line in lines for miss in line["near_misses"])


@pytest.mark.slow
def test_select_prints_scores_and_near_misses_and_takes_the_anchor_settings(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(capsys, "select", "--agent", str(agent_dir), "how do I write a table in markdown?")
    assert code == 0
    assert "reference markdown-cheatsheet" in out.split("Not selected")[0]
    code, out, _ = run(
        capsys,
        "select",
        "--agent",
        str(agent_dir),
        "--json",
        "--strategy",
        "anchor",
        "--top-n",
        "2",
        "--include-score",
        "0.99",
        "hello there",
    )
    data = json.loads(out)
    assert len(data["selected"]) == 2  # the anchor always fills topN


def test_select_refuses_bad_arguments_clearly(
    agent_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "select", "--agent", str(agent_dir))
    assert code == 1 and "either a MESSAGE or --batch" in err
    code, _, err = run(capsys, "select", "--agent", str(agent_dir), "--top-k", "0", "x")
    assert code == 1 and "--top-k" in err
    bad = tmp_path / "tools.json"
    bad.write_text('[{"name": "x"}]')
    code, _, err = run(capsys, "select", "--agent", str(agent_dir), "--tools", str(bad), "x")
    assert code == 1 and "server" in err


@pytest.mark.slow
def test_select_takes_tools_from_the_agents_mcp_servers(
    agent_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        capsys, "select", "--agent", str(agent_dir), "--json", "read me the reference about markdown tables"
    )
    assert code == 0, err
    data = json.loads(out)
    considered = data["selected"] + data["near_misses"]
    # The default agent's built-in references server offers agent-mode tools.
    assert {"type": "tool", "name": "read_reference", "server": "references"} in [
        {k: item[k] for k in ("type", "name", "server") if k in item} for item in considered
    ]
    code, out, _ = run(
        capsys, "select", "--agent", str(agent_dir), "--json", "--no-tools", "read me the reference"
    )
    assert all(
        item["type"] != "tool" for item in json.loads(out)["selected"] + json.loads(out)["near_misses"]
    )


def test_a_cold_start_reports_indexing_progress_about_every_tenth_in_a_log() -> None:
    import io

    from agent_core.cli.progress_lines import indexing_progress

    stream = io.StringIO()
    report = indexing_progress(stream)
    for done in range(512, 36_000, 512):
        report(done, 36_000)
    report(36_000, 36_000)
    lines = stream.getvalue().splitlines()
    assert 10 <= len(lines) <= 12
    assert lines[0] == "contextdesk: indexing 512 of 36,000 chunks"
    assert lines[-1] == "contextdesk: indexing 36,000 of 36,000 chunks"


def test_a_near_miss_reason_naming_an_item_keeps_its_underscores() -> None:
    from agent_core.context.reason_words import reason_words

    assert reason_words("below_floor") == "under minScore"  # a ranking's code, as View Context says it
    assert reason_words("not_named").startswith("one of many items described alike")
    assert reason_words("some_new_code") == "some new code"  # a code no front end knows yet, in words
    assert reason_words("duplicate of gh_fix_ci") == "duplicate of gh_fix_ci"  # a name stays as written
