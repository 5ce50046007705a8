"""The trust dialog shows every server's launch whole, however long: what the user trusts is
exactly what they could read, with no part of it behind a scroll bar."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from agent_core.agent.schema import StdioServerConfig
from agent_core.agent.server_trust import UntrustedServer, launch_text
from desktop.dialogs.server_trust import ServerTrustDialog


def untrusted(name: str, command: str, args: list[str], env: dict[str, str] | None = None) -> UntrustedServer:
    config = StdioServerConfig(command=command, args=args, env=env or {})
    return UntrustedServer(name, config, launch_text(config))


def test_a_long_command_line_is_shown_whole_without_a_scroll_bar(qtbot: QtBot, tmp_path: Path) -> None:
    long_args = [
        "--config",
        "/home/someone/projects/" + "very-long-folder/" * 20 + "config.json",
        "--verbose",
    ]
    servers = [
        untrusted("short", "/usr/bin/mcp-server-time", []),
        untrusted(
            "long", "/usr/bin/python3", ["-m", "some_server", *long_args], env={"TOKEN": "env://TOKEN"}
        ),
    ]
    dialog = ServerTrustDialog(servers, tmp_path)
    qtbot.addWidget(dialog)
    dialog.resize(640, 420)
    dialog.show()
    qtbot.waitExposed(dialog)
    for name, shown in dialog.command_lines.items():
        qtbot.waitUntil(lambda shown=shown: shown.verticalScrollBar().maximum() == 0, timeout=5000)
        assert shown.toPlainText() == next(s.launch for s in servers if s.name == name)
    # The long one wraps onto several lines, all of them in view.
    long_box, short_box = dialog.command_lines["long"], dialog.command_lines["short"]
    assert long_box.height() > 2 * short_box.height()

    dialog.resize(900, 420)  # wider: fewer lines, still whole
    qtbot.waitUntil(lambda: long_box.verticalScrollBar().maximum() == 0, timeout=5000)
