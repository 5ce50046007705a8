"""``contextdesk chat`` and ``contextdesk sessions``, with a scripted model at the provider boundary."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from tests.support.cli_runs import run, scripted_agent, with_always_skill
from tests.support.server_trust import trust_servers


def test_a_one_shot_chat_streams_the_reply_and_saves_the_session(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = scripted_agent(tmp_path, [{"reply": "Hello from the script."}])
    code, out, err = run(capsys, "chat", "--agent", str(agent), "hello")
    assert code == 0, err
    assert out.strip() == "Hello from the script."

    code, out, _ = run(capsys, "sessions", "list", "--json")
    [session] = json.loads(out)
    assert session["title"] == "hello"

    code, out, _ = run(capsys, "sessions", "export", session["id"], "--format", "json")
    exported = json.loads(out)
    user, reply = exported["messages"]
    assert (user["role"], user["content"]) == ("user", "hello")
    assert reply["request_context"]["items"][0]["ref"] == {
        "type": "rule",
        "name": "clear-answers",
        "server": None,
    }
    assert reply["request_context"]["model"] == "scripted:demo"

    target = tmp_path / "chat.md"
    code, _, _ = run(capsys, "sessions", "export", session["id"][:8], "--format", "md", "-o", str(target))
    markdown = target.read_text()
    assert code == 0 and "## You" in markdown and "Hello from the script." in markdown
    assert "**Rules**: clear-answers [Always]" in markdown

    code, out, _ = run(capsys, "sessions", "search", "script")
    assert code == 0 and "[script]" in out

    code, out, _ = run(capsys, "sessions", "show", session["id"])
    assert "assistant> Hello from the script." in out and "clear-answers [Always]" in out


def test_a_reply_that_claims_to_have_read_a_file_no_tool_read_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = scripted_agent(tmp_path, [{"reply": "I have read notes.md and the launch is on 1 April."}])
    code, out, err = run(capsys, "chat", "--agent", str(agent), "when is the launch?")
    assert code == 0, err
    assert out.strip() == "I have read notes.md and the launch is on 1 April."
    assert "[No tool was used for this reply, yet it says “I have read notes.md”" in err


def test_a_server_that_never_answers_is_said_to_be_starting_then_to_have_failed_before_the_reply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = scripted_agent(tmp_path, [{"reply": "Hello."}])
    silent = [sys.executable, "-c", "import sys; sys.stdin.read()"]  # a real process that never answers
    config = (
        (agent / "agent.yaml")
        .read_text()
        .replace(
            "mcpServers:\n",
            f"mcpServers:\n  silent:\n    command: {json.dumps(silent[0])}\n    args: {json.dumps(silent[1:])}\n"
            "    startTimeoutSeconds: 4\n",
            1,
        )
    )
    (agent / "agent.yaml").write_text(config)
    trust_servers(agent)
    code, out, err = run(capsys, "chat", "--agent", str(agent), "hello")
    assert code == 0, err
    assert out.strip() == "Hello."
    waiting = err.index("[tools: waiting for silent to start (2 s so far;")
    assert err.index("[tools: silent failed:") > waiting


def test_continuing_a_session_sends_its_history(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = scripted_agent(tmp_path, [{"reply": "First."}, {"reply": "Second."}])
    run(capsys, "chat", "--agent", str(agent), "one")
    _, out, _ = run(capsys, "sessions", "list", "--json")
    session_id = json.loads(out)[0]["id"]
    # A new process would reload the script; the two steps are shared through one script file
    # per invocation, so the second invocation plays the first step again.
    code, out, _ = run(capsys, "chat", "--agent", str(agent), "--session", session_id, "two")
    assert code == 0 and out.strip() == "First."
    _, out, _ = run(capsys, "sessions", "show", session_id)
    assert out.index("user> one") < out.index("user> two")


def test_a_provider_failure_exits_1_with_the_fix_and_keeps_the_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = scripted_agent(
        tmp_path, [{"error": {"kind": "auth", "message": "The key was refused: check it in Providers"}}]
    )
    code, _, err = run(capsys, "chat", "--agent", str(agent), "hello")
    assert code == 1 and "check it in Providers" in err
    _, out, _ = run(capsys, "sessions", "search", "hello")
    assert "user: [hello]" in out


def test_an_unknown_model_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    agent = scripted_agent(tmp_path, [])
    code, _, err = run(capsys, "chat", "--agent", str(agent), "--model", "nowhere:model", "hi")
    assert code == 1 and "no provider 'nowhere'" in err


def test_an_unknown_session_is_a_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "sessions", "show", "does-not-exist")
    assert code == 1 and "contextdesk sessions list" in err


def test_interactive_chat_asks_for_tool_approval_and_shows_context(tmp_path: Path) -> None:
    import subprocess
    import sys

    agent = scripted_agent(
        tmp_path,
        [
            {"reply": "Hi! Ask me anything."},
            {"tool_calls": [{"name": "workspace__list_files", "arguments": {"path": "."}, "id": "c1"}]},
            {"reply": "Those are your files."},
        ],
    )
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plan.md").write_text("the plan")
    config = (agent / "agent.yaml").read_text().replace("root: ~/Documents", f"root: {tmp_path / 'docs'}")
    (agent / "agent.yaml").write_text(config)
    script = Path(sys.executable).with_name("contextdesk")
    result = subprocess.run(
        [str(script), "chat", "--agent", str(agent)],
        input="hello\n/context\nlist my files\no\n/sessions\n/exit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Hi! Ask me anything." in out
    assert "**Rules**: clear-answers [Always]" in out and "Context window" in out
    assert "Allow workspace.list_files(" in out
    assert "← result" in out and "plan.md" in out
    assert "Those are your files." in out
    assert re.search(r"[0-9a-f]{32}  hello$", out, re.MULTILINE)  # /sessions lists the saved chat


def test_slash_run_runs_a_workflow_with_a_real_tool_and_context_shows_the_run(tmp_path: Path) -> None:
    import subprocess
    import sys

    agent = scripted_agent(tmp_path, [{"reply": '{"summary": "one plan"}'}])
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "plan.md").write_text("the plan")
    config = (agent / "agent.yaml").read_text().replace("root: ~/Documents", f"root: {tmp_path / 'docs'}")
    (agent / "agent.yaml").write_text(config)
    (agent / "workflows").mkdir()
    (agent / "workflows" / "files.yaml").write_text(
        """
inputs:
  path: {type: string}
tools:
  - id: lister
    tool: workspace.list_files
states:
  - id: list
    tool_id: lister
    tool_args: {path: '{{path}}'}
    next: {state_id: summarise, output_key: listing}
  - id: summarise
    task: 'Summarise {{listing}}. Return JSON: {"summary": "..."}'
    next: {state_id: end}
"""
    )
    script = Path(sys.executable).with_name("contextdesk")
    result = subprocess.run(
        [str(script), "chat", "--agent", str(agent)],
        input='/run files {"path": "."}\no\n/context\n/exit\n',
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert 'Workflow files asks: allow workspace.list_files({"path": "."})' in out  # asked as the chat asks
    assert "Workflow **files** finished after 2 steps" in out and '"summary": "one plan"' in out
    assert "plan.md" in out  # the real tool's listing is in the store
    assert "**Tools**: workflows.files [Manual]" in out
    assert "**Workflows**:" in out and "`files`: finished; 2 steps" in out
    assert "[workflow files: list done]" in result.stderr and "error" not in result.stderr


def test_compact_with_nothing_to_compact_says_so_without_a_word_about_the_model(tmp_path: Path) -> None:
    import subprocess
    import sys

    agent = scripted_agent(tmp_path, [{"reply": "Hi."}])
    config = (agent / "agent.yaml").read_text()
    # A model that does not choose its own tools: /compact would warn about it before compacting.
    config = config.replace("      script:", "      toolCalling: none\n      script:")
    (agent / "agent.yaml").write_text(config)
    result = subprocess.run(
        [str(Path(sys.executable).with_name("contextdesk")), "chat", "--agent", str(agent)],
        input="hello\n/compact\n/exit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "Too little to compact yet." in result.stdout
    assert "faithful summary" not in result.stderr


def test_a_request_that_cannot_fit_names_the_terminals_commands_for_an_always_on_skill(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = with_always_skill(scripted_agent(tmp_path, []), "lamp-care", 3_000)
    code, _, err = run(capsys, "chat", "--agent", str(agent), "hello")
    assert code == 1
    assert "The largest part is the chat's skills ('lamp-care'" in err
    assert "`contextdesk skill set lamp-care --include agent`" in err and "/drop skill:lamp-care" in err
    assert "Context panel" not in err  # the terminal has none


def test_drop_and_add_name_a_skill_as_they_name_rules_and_references() -> None:
    from agent_core.cli.chat_command import item_ref
    from agent_core.context.items import ItemRef

    assert item_ref("skill:lamp-care") == ItemRef("skill", "lamp-care")
    assert item_ref("rule:tone") == ItemRef("rule", "tone") and item_ref("skill:") is None
