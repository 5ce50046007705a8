"""Servers an agent folder names start only once the user has trusted exactly what they run: in
the CLI (`agent trust`, a y/N in a terminal, never without one), the desktop (a dialog) and for a
workflow assistant's own servers; a changed command asks again."""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.importers import import_source
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import AgentConfig, StdioServerConfig
from agent_core.agent.server_trust import ServerTrust, launch_text
from agent_core.agent.writer import save_agent_config
from agent_core.cli.main import main
from agent_core.mcp import ServerState, ServerStatus
from agent_core.workflows.server_trust import workflow_servers
from agent_core.workspace import Workspace
from desktop.app import DesktopApp
from desktop.dialogs.server_trust import ServerTrustDialog
from tests.support.desktop_driver import WAIT_MS, screenshot, start
from tests.support.mcp_servers import DEMO_SERVER
from tests.support.server_trust import trust_servers
from tests.support.workflow_runner import Runner


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- trust of the servers an agent folder names ------------------------------------------------

# A "server" that leaves a marker file when it runs (a hostile one would delete a folder instead),
# then serves the demo server's tools, so a trusted start is seen to work.
MARKER_SERVER = (
    "import pathlib, runpy, sys; pathlib.Path(sys.argv[1]).write_text('ran'); "
    "sys.argv = [sys.argv[2]]; runpy.run_path(sys.argv[0], run_name='__main__')"
)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def marker_project(tmp_path: Path, marker: Path) -> Path:
    """A cloned project whose .mcp.json names a server that leaves ``marker`` when it runs."""
    project = tmp_path / "cloned"
    block = {"command": sys.executable, "args": ["-c", MARKER_SERVER, str(marker), str(DEMO_SERVER)]}
    write(project / ".mcp.json", json.dumps({"mcpServers": {"marker": block}}))
    return project


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "the-server-ran"


@pytest.fixture
def imported_agent(tmp_path: Path, marker: Path) -> Path:
    """A scripted agent (no model to load) into which the cloned project's servers were imported."""
    root = tmp_path / "agent"
    create_agent(root)
    script = write(tmp_path / "script.json", json.dumps({"steps": [{"reply": "Hello."}] * 3}))
    text = (root / "agent.yaml").read_text(encoding="utf-8")
    text = text.replace("model: local:smollm2-135m-instruct", "model: scripted:demo")
    text = text.replace(
        "providers:\n  local: {}", f"providers:\n  scripted:\n    options:\n      script: {script}"
    )
    (root / "agent.yaml").write_text(text, encoding="utf-8")
    for path in [*(root / "rules").glob("*.md"), *(root / "references").glob("*.md")]:
        path.unlink()
    report = import_source(marker_project(tmp_path, marker), root)
    assert any("contextdesk agent trust" in line for line in report.warnings)  # the import says so
    return root


def test_show_select_and_chat_never_start_an_imported_server_and_say_how_to_trust_it(
    capsys: pytest.CaptureFixture[str], imported_agent: Path, marker: Path
) -> None:
    code, out, _ = run(capsys, "agent", "show", str(imported_agent))
    assert code == 0
    assert "not trusted: not started" in out
    assert f"contextdesk agent trust {imported_agent.resolve()} marker" in out

    code, out, err = run(capsys, "select", "--agent", str(imported_agent), "--json", "what time is it?")
    assert code == 0, err
    assert "marker" in err and "contextdesk agent trust" in err

    code, out, err = run(capsys, "chat", "--agent", str(imported_agent), "hello")  # stdin is no terminal
    assert code == 0, err
    assert out.strip() == "Hello."  # the chat goes on without the server
    assert "'marker'" in err and "is not trusted yet" in err and sys.executable in err
    assert "contextdesk agent trust" in err

    assert not marker.exists()


def test_agent_trust_prints_the_exact_command_line_and_then_the_server_starts(
    capsys: pytest.CaptureFixture[str], imported_agent: Path, marker: Path
) -> None:
    code, out, _ = run(capsys, "agent", "trust", str(imported_agent), "--json")
    assert code == 0
    [trusted] = json.loads(out)["trusted"]
    assert trusted["name"] == "marker"
    assert trusted["launch"] == shlex.join(
        [sys.executable, "-c", MARKER_SERVER, str(marker), str(DEMO_SERVER)]
    )

    _, out, _ = run(capsys, "agent", "show", str(imported_agent))
    assert code == 0
    assert "not trusted" not in out
    assert marker.read_text(encoding="utf-8") == "ran"
    assert "ready (" in out


def test_a_changed_command_needs_trust_again(
    capsys: pytest.CaptureFixture[str], imported_agent: Path, marker: Path, tmp_path: Path
) -> None:
    run(capsys, "agent", "trust", str(imported_agent), "marker")
    other = tmp_path / "another-marker"
    new_args = json.dumps(["-c", MARKER_SERVER, str(other), str(DEMO_SERVER)])
    assert run(capsys, "agent", "set", str(imported_agent), "mcpServers.marker.args", new_args)[0] == 0

    _, out, _ = run(capsys, "agent", "show", str(imported_agent))

    assert "not trusted: not started" in out
    assert not other.exists() and not marker.exists()


def test_a_server_the_user_writes_whole_with_agent_set_is_trusted_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, marker: Path
) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    block = {"command": sys.executable, "args": ["-c", MARKER_SERVER, str(marker), str(DEMO_SERVER)]}

    assert run(capsys, "agent", "set", str(root), "mcpServers.marker", json.dumps(block))[0] == 0
    _, out, _ = run(capsys, "agent", "show", str(root))

    assert "not trusted" not in out
    assert marker.read_text(encoding="utf-8") == "ran"


def test_the_error_of_a_failing_server_never_tells_the_user_to_run_its_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    folder = tmp_path / "victim"
    folder.mkdir()
    # What a hostile file would like the user to paste into a terminal.
    hostile = StdioServerConfig(command=sys.executable, args=["-c", "import sys; sys.exit(3)", str(folder)])
    save_agent_config(Agent(root=root, config=AgentConfig(name="A", mcp_servers={"evil": hostile})))
    trust_servers(root)

    _, out, _ = run(capsys, "agent", "show", str(root))

    assert "exited unexpectedly" in out
    assert shlex.join([hostile.command, *hostile.args]) not in out
    assert "run `" not in out
    assert "agent.yaml" in out  # points at the entry instead


def test_a_server_the_user_has_not_trusted_is_held_by_the_workspace_and_its_restart(
    imported_agent: Path, marker: Path
) -> None:
    async def scenario() -> list[ServerStatus]:
        workspace = Workspace.open(imported_agent)
        try:
            started = await workspace.start_tools()
            assert workspace.mcp is not None
            restarted = await workspace.mcp.restart("marker")
            return [*started, restarted]
        finally:
            await workspace.aclose()

    statuses = asyncio.run(scenario())

    assert {s.state for s in statuses if s.name == "marker"} == {ServerState.UNTRUSTED}
    assert not marker.exists()


def test_a_trust_file_that_cannot_be_read_trusts_nothing(
    imported_agent: Path, isolated_user_dirs: Path
) -> None:
    trust = ServerTrust()
    agent = load_agent(imported_agent)
    trust.trust(agent.root, agent.config.mcp_servers)
    assert not trust.untrusted(agent.root, agent.config.mcp_servers)
    trust.path.write_text("{not json", encoding="utf-8")

    assert [s.name for s in trust.untrusted(agent.root, agent.config.mcp_servers)] == ["marker"]


def test_what_a_server_runs_is_shown_with_control_characters_escaped() -> None:
    sneaky = StdioServerConfig(command="ls", args=["\x1b[8mrm -rf ~\x1b[0m", "\u202eevil"])

    shown = launch_text(sneaky)

    assert "\x1b" not in shown and "\u202e" not in shown
    assert "\\x1b[8mrm -rf ~" in shown


def test_what_a_server_runs_shows_its_environment_and_folder_each_on_a_line_of_its_own() -> None:
    config = StdioServerConfig(command="srv", args=["--a\nb"], env={"TOKEN": "env://TOKEN"}, cwd="/tmp/w")

    assert launch_text(config).split("\n") == [
        "srv '--a\\nb'",  # a line break inside an argument is still shown escaped
        "environment: TOKEN=env://TOKEN",
        "in folder: /tmp/w",
    ]


# --- the desktop asks before starting them ------------------------------------------------------


@pytest.fixture
def desktop_agent(imported_agent: Path) -> Path:
    text = (imported_agent / "agent.yaml").read_text(encoding="utf-8").replace("scripted:demo", "scripted:x")
    (imported_agent / "agent.yaml").write_text(text, encoding="utf-8")
    return imported_agent


def shown_dialog(qtbot: QtBot, app: DesktopApp) -> ServerTrustDialog:
    dialogs: list[ServerTrustDialog] = []
    app.host.trust_asker.asked.connect(dialogs.append)
    qtbot.waitUntil(lambda: bool(dialogs) or _open_dialog(app) is not None, timeout=WAIT_MS)
    dialog = dialogs[0] if dialogs else _open_dialog(app)
    assert dialog is not None
    return dialog


def _open_dialog(app: DesktopApp) -> ServerTrustDialog | None:
    return next(iter(app.window.findChildren(ServerTrustDialog)), None)


def marker_state(app: DesktopApp) -> ServerState | None:
    manager = app.host.mcp
    return None if manager is None else manager.status("marker").state


def test_the_desktop_shows_the_exact_command_line_and_dont_start_keeps_the_server_off(
    qtbot: QtBot, desktop_agent: Path, marker: Path
) -> None:
    app = start(qtbot, desktop_agent)
    try:
        dialog = shown_dialog(qtbot, app)
        shown = dialog.command_lines["marker"]
        assert shown.toPlainText() == shlex.join(
            [sys.executable, "-c", MARKER_SERVER, str(marker), str(DEMO_SERVER)]
        )
        assert shown.isReadOnly() and dialog.dont_button.isDefault()
        screenshot(dialog, "server-trust-dialog")

        dialog.dont_button.click()

        qtbot.waitUntil(lambda: marker_state(app) is ServerState.UNTRUSTED, timeout=WAIT_MS)
        assert not marker.exists()
        assert [
            s.name
            for s in ServerTrust().untrusted(desktop_agent, load_agent(desktop_agent).config.mcp_servers)
        ] == ["marker"]
    finally:
        app.close()


def test_the_desktop_starts_a_server_once_trusted_and_keeps_the_trust(
    qtbot: QtBot, desktop_agent: Path, marker: Path
) -> None:
    app = start(qtbot, desktop_agent)
    try:
        dialog = shown_dialog(qtbot, app)

        dialog.trust_button.click()

        qtbot.waitUntil(lambda: marker_state(app) is ServerState.READY, timeout=WAIT_MS)
        assert marker.read_text(encoding="utf-8") == "ran"
        assert not ServerTrust().untrusted(desktop_agent, load_agent(desktop_agent).config.mcp_servers)
    finally:
        app.close()


# --- a workflow's own servers -------------------------------------------------------------------


def marker_workflow(marker: Path) -> str:
    args = json.dumps(["-c", MARKER_SERVER, str(marker), str(DEMO_SERVER)])
    return f"""
assistants:
  - id: helper
    system_prompt: You help.
    mcp_servers:
      - name: marker
        config:
          command: {json.dumps(sys.executable)}
          args: {args}
states:
  - id: only
    assistant_id: helper
    task: Say hello.
    next: {{state_id: end, output_key: answer}}
"""


def test_a_workflow_assistants_own_server_starts_only_once_trusted(tmp_path: Path, marker: Path) -> None:
    runner = Runner(tmp_path)

    refused = runner.run(marker_workflow(marker), {}, trusted=False)

    assert refused.status == "failed"
    assert refused.error is not None and "is not trusted" in refused.error
    assert "contextdesk agent trust" in refused.error
    assert not marker.exists()

    runner.provider.enqueue_reply("Hello.")
    trusted = runner.run(marker_workflow(marker), {})
    assert trusted.status == "finished", trusted.error
    assert marker.read_text(encoding="utf-8") == "ran"


def test_agent_trust_lists_the_workflows_servers_with_their_command_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, marker: Path
) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    write(root / "workflows" / "greet.yaml", marker_workflow(marker))

    code, out, _ = run(capsys, "agent", "trust", str(root), "--json")

    assert code == 0
    [server] = [s for s in json.loads(out)["trusted"] if s["name"].startswith("workflow helper/marker")]
    assert server["launch"] == shlex.join(
        [sys.executable, "-c", MARKER_SERVER, str(marker), str(DEMO_SERVER)]
    )
    agent = load_agent(root)
    assert not ServerTrust().untrusted(agent.root, workflow_servers(agent))


def test_after_dont_start_restart_asks_again_and_a_trust_from_the_terminal_starts_it(
    qtbot: QtBot, desktop_agent: Path, marker: Path
) -> None:
    app = start(qtbot, desktop_agent)
    try:
        shown_dialog(qtbot, app).dont_button.click()
        qtbot.waitUntil(lambda: marker_state(app) is ServerState.UNTRUSTED, timeout=WAIT_MS)

        again: list[ServerTrustDialog] = []
        app.host.trust_asker.asked.connect(again.append)
        app.host.ask_trust()  # what Restart on the server in Tools does
        qtbot.waitUntil(lambda: bool(again), timeout=WAIT_MS)
        again[0].dont_button.click()
        qtbot.waitUntil(lambda: not again[0].isVisible(), timeout=WAIT_MS)

        trust_servers(desktop_agent)  # `contextdesk agent trust` in a terminal meanwhile
        app.host.ask_trust()

        qtbot.waitUntil(lambda: marker_state(app) is ServerState.READY, timeout=WAIT_MS)
        assert len(again) == 1  # nothing left to ask: it simply starts
        assert marker.read_text(encoding="utf-8") == "ran"
    finally:
        app.close()
