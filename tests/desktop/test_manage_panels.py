"""The management window: edit a rule and see it used, tools with status and a hand-run call, providers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from pytestqt.qtbot import QtBot

from agent_core.agent.schema import StdioServerConfig
from desktop.app import DesktopApp
from desktop.models.documents import Role as DocumentRole
from tests.support.desktop_driver import WAIT_MS, idle, open_manager, screenshot, scripted, send
from tests.support.fake_api import FakeApi, Reply, json_fixture
from tests.support.memory_keyring import MemoryKeyring


def system_prompt(app: DesktopApp) -> str:
    return scripted(app).requests[-1].messages[0].content


def test_a_rule_edited_in_the_panel_is_saved_and_used_by_the_next_message(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    manager = open_manager(qtbot, desktop, "rules")
    panel = manager.rules
    panel.open_item("clear-answers")
    panel.editor.body.setPlainText("Always end with the word BANANA.")
    assert panel.save_button.isEnabled()
    screenshot(manager, "rules_panel")
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(
        lambda: "BANANA" in desktop.host.workspace.agent.rules["clear-answers"].text,  # type: ignore[union-attr]
        timeout=WAIT_MS,
    )
    assert "BANANA" in (agent_dir / "rules" / "clear-answers.md").read_text()

    scripted(desktop).enqueue_reply("ok BANANA")
    send(qtbot, desktop, "hi")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    assert "Always end with the word BANANA." in system_prompt(desktop)


def test_a_new_rule_with_a_bad_name_shows_the_error_at_the_field(qtbot: QtBot, desktop: DesktopApp) -> None:
    panel = open_manager(qtbot, desktop, "rules").rules
    panel.new_item()
    panel.editor.name.setText("bad name!")
    panel.editor.body.setPlainText("text")
    panel.save()
    assert not panel.editor.name_error.isHidden()
    assert "not a safe name" in panel.editor.name_error.text()
    panel.editor.name.setText("pirate")
    panel.save()
    assert "already called" in panel.editor.name_error.text()


def test_a_field_error_goes_as_soon_as_the_field_is_fixed(qtbot: QtBot, desktop: DesktopApp) -> None:
    panel = open_manager(qtbot, desktop, "rules").rules
    panel.new_item()
    panel.editor.name.clear()
    qtbot.keyClicks(panel.editor.name, "bad name!")
    panel.editor.body.clear()
    panel.save()
    assert not panel.editor.name_error.isHidden() and not panel.editor.body_error.isHidden()

    qtbot.keyClick(panel.editor.name, Qt.Key.Key_Backspace)  # "bad name": still not a safe name
    assert "not a safe name" in panel.editor.name_error.text()
    panel.editor.name.setText("pirate")
    assert "already called" in panel.editor.name_error.text()
    qtbot.keyClicks(panel.editor.name, "-two")
    assert panel.editor.name_error.isHidden()
    qtbot.keyClicks(panel.editor.body, "Say arr.")
    assert panel.editor.body_error.isHidden()


def test_an_external_edit_to_a_rule_file_is_picked_up(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    path = agent_dir / "rules" / "pirate.md"
    path.write_text(
        "---\ndescription: Talk like a pirate\npriorityLevel: 7\ninclude: manual\n---\nYo ho ho.\n"
    )
    qtbot.waitUntil(
        lambda: desktop.host.workspace.agent.rules["pirate"].priority_level == 7,  # type: ignore[union-attr]
        timeout=WAIT_MS,
    )
    manager = open_manager(qtbot, desktop, "rules")
    row = manager.rules.model.row_of("pirate")
    assert row is not None
    assert manager.rules.model.index(row, 0).data(DocumentRole.DOCUMENT).text.strip() == "Yo ho ho."


def test_the_tools_panel_lists_servers_with_status_and_runs_a_tool(qtbot: QtBot, desktop: DesktopApp) -> None:
    manager = open_manager(qtbot, desktop, "tools")
    tools = manager.tools
    qtbot.waitUntil(lambda: tools.servers.rowCount() == 1 and tools.tools.rowCount() == 4, timeout=WAIT_MS)
    assert tools.servers.index(0, 2).data() == "ready"
    tools.server_table.selectRow(0)
    assert "workspace: ready" in tools.log.toPlainText()
    names = [tools.tools.index(r, 0).data() for r in range(tools.tools.rowCount())]
    tools.tool_table.selectRow(names.index("workspace.read_file"))
    screenshot(manager, "tools_panel")
    tools.run_tool()
    dialog = tools.run_dialog
    _kind, field = dialog.form.fields["path"]
    field.setText("notes.md")  # type: ignore[attr-defined]
    qtbot.mouseClick(dialog.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "Friday" in dialog.output.toPlainText(), timeout=WAIT_MS)
    assert dialog.outcome.text().startswith("Result in ")
    screenshot(dialog, "run_tool")
    dialog.close()


def test_the_providers_panel_saves_an_env_key_and_tests_the_connection(
    qtbot: QtBot,
    desktop: DesktopApp,
    agent_dir: Path,
    local_server: FakeApi,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DEMO_KEY", "sk-demo")
    local_server.queue(*(Reply(json_body=json_fixture("openai/models.json")) for _ in range(3)))
    manager = open_manager(qtbot, desktop, "providers")
    panel = manager.providers
    panel.new_provider()
    panel.provider_id.setText("demo")
    panel.type.setCurrentText("openai-compatible")
    panel.base_url.setText(f"{local_server.url}/v1")
    panel.key_mode.setCurrentIndex(panel.key_mode.findData("env"))
    panel.key.setText("DEMO_KEY")
    panel.save()
    qtbot.waitUntil(
        lambda: "apiKey: env://DEMO_KEY" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS
    )
    # The reload that follows re-selects the row and resets the form: test only after it.
    qtbot.waitUntil(lambda: panel.model.row_of("demo") is not None, timeout=WAIT_MS)
    assert panel.key_mode.currentData() == "env" and panel.key.text() == "DEMO_KEY"
    panel.test_connection()
    qtbot.waitUntil(lambda: panel.test_result.text().startswith("Connected"), timeout=WAIT_MS)
    assert panel.models.stringList() == ["gpt-4o-mini", "gpt-4.1"]
    assert local_server.requests[-1].headers["authorization"] == "Bearer sk-demo"
    screenshot(manager, "providers_panel")


def test_without_a_keyring_the_panel_refuses_to_pretend_and_suggests_env(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    panel = open_manager(qtbot, desktop, "providers").providers
    panel.has_keyring = False
    panel.new_provider()
    panel.provider_id.setText("openai")
    panel.key_mode.setCurrentIndex(panel.key_mode.findData("keyring"))
    panel.key.setText("sk-secret")
    panel.save()
    assert "no system keyring" in panel.error.text()


def test_a_token_typed_as_a_servers_environment_is_kept_in_the_keyring_not_in_agent_yaml(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    tools = open_manager(qtbot, desktop, "tools").tools
    token = "ghp_SECRETTOKEN1234567890abcdefABCDEF"
    server = StdioServerConfig(
        type="stdio", command=sys.executable, args=["-c", "pass"], env={"GITHUB_TOKEN": token}
    )
    tools._save_servers(None, {"github": server})
    qtbot.waitUntil(lambda: "github" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)
    written = (agent_dir / "agent.yaml").read_text()
    assert token not in written and "keyring://contextdesk/" in written
    qtbot.waitUntil(
        lambda: "kept in the system keyring, not in agent.yaml" in tools.note.text(), timeout=WAIT_MS
    )
    assert token in memory_keyring.entries.values()


def test_esc_closes_the_management_window_and_it_keeps_the_apps_quit_key(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    manager = open_manager(qtbot, desktop, "rules")
    manager.show()
    manager.activateWindow()
    qtbot.waitUntil(manager.isActiveWindow, timeout=WAIT_MS)
    qtbot.keyClick(manager.tabs, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: not manager.isVisible(), timeout=WAIT_MS)
    quit_key = QKeySequence(QKeySequence.StandardKey.Quit)
    assert any(shortcut.key() == quit_key for shortcut in manager.findChildren(QShortcut))


def test_a_rule_header_edited_in_the_panel_changes_exactly_that_line_of_the_file(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    path = agent_dir / "rules" / "pirate.md"
    original = (
        "---\r\n# kept: a comment in the header\r\ndescription: 'Talk like a pirate'\r\npriorityLevel: 7\r\n"
        "include: manual\r\n---\r\n\r\nYo ho ho, ünïcödé.\r\n"
    )
    path.write_bytes(original.encode())
    qtbot.waitUntil(
        lambda: desktop.host.workspace.agent.rules["pirate"].priority_level == 7,  # type: ignore[union-attr]
        timeout=WAIT_MS,
    )
    panel = open_manager(qtbot, desktop, "rules").rules
    panel.open_item("pirate")
    panel.editor.priority.setValue(8)
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: b"priorityLevel: 8" in path.read_bytes(), timeout=WAIT_MS)
    assert path.read_bytes().decode() == original.replace("priorityLevel: 7", "priorityLevel: 8")
