"""The MCP server add/edit dialog: the form, a pasted mcpServers JSON block, errors at the point of
failure, and an added server saved to agent.yaml and started through the Tools panel."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox
from pytestqt.qtbot import QtBot

from agent_core.agent.schema import (
    IncludeMode,
    InternalServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
    ToolDefaults,
    ToolSettings,
)
from agent_core.mcp.types import ServerState
from desktop.app import DesktopApp
from desktop.dialogs.server_dialog import ServerDialog
from desktop.theme import colors
from tests.support.desktop_driver import WAIT_MS, open_manager, screenshot
from tests.support.paths import FIXTURES
from tests.support.server_trust import trust_servers

FORM, JSON = 0, 1


@pytest.fixture
def dialog(qtbot: QtBot) -> ServerDialog:
    widget = ServerDialog(taken={"workspace"})
    qtbot.addWidget(widget)
    widget.show()
    return widget


def save(qtbot: QtBot, dialog: ServerDialog) -> None:
    button = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    assert button is not None
    button.click()


def test_the_form_makes_a_stdio_server_with_quoted_arguments_and_environment(
    qtbot: QtBot, dialog: ServerDialog
) -> None:
    assert dialog.windowTitle() == "Add MCP server"
    dialog.name.setText("time")
    dialog.command.setText("uvx")
    dialog.args.setText("mcp-server-time --local-timezone 'America/New York'")
    dialog.env.setPlainText("TZ=UTC\n\nTOKEN=env://TIME_TOKEN")
    assert not dialog.url.isEnabled() and dialog.command.isEnabled()
    screenshot(dialog, "server_dialog_form")
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    assert dialog.servers() == {
        "time": StdioServerConfig(
            command="uvx",
            args=["mcp-server-time", "--local-timezone", "America/New York"],
            env={"TZ": "UTC", "TOKEN": "env://TIME_TOKEN"},
            # A new server's tools are chosen per message unless the user says otherwise.
            tool_defaults=ToolDefaults(include=IncludeMode.AGENT),
        )
    }


def test_the_form_makes_an_http_server_with_headers(qtbot: QtBot, dialog: ServerDialog) -> None:
    dialog.name.setText("remote")
    dialog.type.setCurrentText("streamable-http")
    assert dialog.url.isEnabled() and not dialog.command.isEnabled()
    dialog.url.setText("https://example.com/mcp")
    dialog.headers.setPlainText("Authorization=env://REMOTE_TOKEN")
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    server = dialog.servers()["remote"]
    assert isinstance(server, StreamableHttpServerConfig)
    assert (server.url, server.headers) == (
        "https://example.com/mcp",
        {"Authorization": "env://REMOTE_TOKEN"},
    )


@pytest.mark.parametrize(
    ("fill", "expected"),
    [
        ({"name": "bad name!", "command": "uvx"}, "Name:"),
        ({"name": "workspace", "command": "uvx"}, "already has a server called workspace"),
        ({"name": "time", "command": "uvx", "args": "--zone 'Europe/Paris"}, "Arguments:"),
        ({"name": "time", "command": ""}, "command"),
        (
            {"name": "time", "command": "uvx", "env": "TZ=UTC\nnot a pair"},
            "Environment: “not a pair” is not KEY=value",
        ),
        ({"name": "remote", "type": "sse", "url": "ftp://example.com"}, "url"),
    ],
)
def test_a_form_mistake_is_shown_in_the_dialog_which_stays_open(
    qtbot: QtBot, dialog: ServerDialog, fill: dict[str, str], expected: str
) -> None:
    dialog.name.setText(fill["name"])
    dialog.type.setCurrentText(fill.get("type", "stdio"))
    dialog.command.setText(fill.get("command", ""))
    dialog.args.setText(fill.get("args", ""))
    dialog.env.setPlainText(fill.get("env", ""))
    dialog.url.setText(fill.get("url", ""))
    save(qtbot, dialog)
    assert dialog.isVisible() and dialog.servers() == {}
    assert not dialog.error.isHidden()
    assert expected in dialog.error.text()


def test_a_mistake_shown_in_the_dialog_goes_as_soon_as_it_is_fixed(
    qtbot: QtBot, dialog: ServerDialog
) -> None:
    dialog.name.setText("bad name!")
    dialog.command.setText("uvx")
    save(qtbot, dialog)
    assert "Name:" in dialog.error.text() and not dialog.error.isHidden()
    dialog.name.setText("workspace")
    assert "already has a server called workspace" in dialog.error.text()
    dialog.name.setText("time")
    assert dialog.error.isHidden()


def test_a_pasted_mcp_servers_block_adds_every_server_in_it(qtbot: QtBot, dialog: ServerDialog) -> None:
    dialog.tabs.setCurrentIndex(JSON)
    block = {
        "mcpServers": {
            "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
            "remote": {"type": "http", "url": "https://example.com/mcp"},
        }
    }
    dialog.json.setPlainText(json.dumps(block, indent=2))
    screenshot(dialog, "server_dialog_json")
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    servers = dialog.servers()
    assert set(servers) == {"time", "remote"}
    time = servers["time"]
    assert isinstance(time, StdioServerConfig)
    assert (time.command, time.args, time.env) == ("uvx", ["mcp-server-time"], {"TZ": "UTC"})
    assert isinstance(servers["remote"], StreamableHttpServerConfig)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"mcpServers": {"time": ', "Not valid JSON"),
        ('{"servers_list": []}', 'has no "mcpServers" object'),
        ('{"mcpServers": {"workspace": {"command": "uvx"}}}', "already has a server called workspace"),
    ],
)
def test_a_pasted_block_that_cannot_be_used_says_why(
    qtbot: QtBot, dialog: ServerDialog, text: str, expected: str
) -> None:
    dialog.tabs.setCurrentIndex(JSON)
    dialog.json.setPlainText(text)
    save(qtbot, dialog)
    assert dialog.isVisible() and expected in dialog.error.text()


def test_editing_a_server_shows_it_and_keeps_what_the_form_does_not_show(qtbot: QtBot) -> None:
    original = StdioServerConfig(
        command="uvx",
        args=["mcp-server-time"],
        cwd="/srv",
        start_timeout_seconds=12,
        tools={"get_time": ToolSettings(permission_required=False)},
    )
    dialog = ServerDialog("time", original, {"time", "workspace"})
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.windowTitle() == "Edit MCP server"
    assert (dialog.command.text(), dialog.args.text()) == ("uvx", "mcp-server-time")
    assert not dialog.tabs.isTabEnabled(JSON)
    dialog.name.setText("clock")  # renaming to a free name is fine; its own old name is not "taken"
    dialog.args.setText("mcp-server-time --local-timezone UTC")
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    edited = dialog.servers()["clock"]
    assert isinstance(edited, StdioServerConfig)
    assert edited.args == ["mcp-server-time", "--local-timezone", "UTC"]
    assert (edited.cwd, edited.start_timeout_seconds, edited.tools) == ("/srv", 12, original.tools)


def test_a_server_added_in_the_tools_panel_is_saved_and_started(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    tools = open_manager(qtbot, desktop, "tools").tools
    qtbot.waitUntil(lambda: tools.servers.rowCount() == 1, timeout=WAIT_MS)
    qtbot.mouseClick(tools.add_button, Qt.MouseButton.LeftButton)
    dialog = tools.server_dialog
    assert isinstance(dialog, ServerDialog) and dialog.isVisible()
    dialog.tabs.setCurrentIndex(JSON)
    demo = FIXTURES / "mcp" / "demo_server.py"
    dialog.json.setPlainText(
        json.dumps({"mcpServers": {"demo": {"command": sys.executable, "args": [str(demo)]}}})
    )
    save(qtbot, dialog)

    qtbot.waitUntil(lambda: "demo:" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: tools.servers.row_of("demo") is not None, timeout=WAIT_MS)
    row = tools.servers.row_of("demo")
    assert row is not None
    qtbot.waitUntil(lambda: tools.servers.status(row).state is ServerState.READY, timeout=WAIT_MS)
    # The note follows the start: once the server is ready, it no longer says "starting…".
    qtbot.waitUntil(lambda: tools.note.text().startswith("Saved demo: ready, "), timeout=WAIT_MS)


def test_a_saved_server_that_cannot_start_says_so_instead_of_starting(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    tools = open_manager(qtbot, desktop, "tools").tools
    qtbot.waitUntil(lambda: tools.servers.rowCount() == 1, timeout=WAIT_MS)
    qtbot.mouseClick(tools.add_button, Qt.MouseButton.LeftButton)
    dialog = tools.server_dialog
    dialog.name.setText("broken")
    dialog.command.setText(str(agent_dir / "no-such-program"))
    save(qtbot, dialog)
    qtbot.waitUntil(lambda: "starting…" in tools.note.text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: tools.note.text().startswith("Saved broken: failed to start"), timeout=WAIT_MS)
    assert colors().error in tools.note.styleSheet()
    screenshot(tools.window(), "tools_panel_server_failed")


def test_a_new_servers_tools_join_as_chosen_and_a_builtin_server_has_its_own_form(
    qtbot: QtBot, dialog: ServerDialog, tmp_path: Path
) -> None:
    dialog.name.setText("clock")
    dialog.command.setText("uvx")
    dialog.new_tools.setCurrentIndex(dialog.new_tools.findData("always"))
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    assert dialog.servers()["clock"].tool_defaults.include is IncludeMode.ALWAYS

    workspace = InternalServerConfig(type="internal", tool="workspace", options={"root": "~/Documents"})
    edit = ServerDialog("workspace", workspace, {"workspace"})
    qtbot.addWidget(edit)
    edit.show()
    assert edit.tabs.tabText(edit.tabs.currentIndex()) == "Built-in"
    assert edit.builtin_kind.text() == "workspace" and edit.root.text() == "~/Documents"
    assert edit.new_tools.isHidden()  # an edit keeps the server's own settings
    screenshot(edit, "server_dialog_builtin")
    edit.root.setText(str(tmp_path))
    with qtbot.waitSignal(edit.accepted, timeout=WAIT_MS):
        save(qtbot, edit)
    saved = edit.servers()["workspace"]
    assert isinstance(saved, InternalServerConfig) and saved.options == {"root": str(tmp_path)}
    assert saved.tool_defaults == workspace.tool_defaults


def test_the_new_server_and_builtin_forms_read_well_in_both_themes(qtbot: QtBot, theme: str) -> None:
    from desktop.app import create_app

    create_app()  # applies the theme the fixture chose
    new = ServerDialog(taken={"workspace"})
    qtbot.addWidget(new)
    new.show()
    # A new server's tools join as Agent unless the user says otherwise, and the form says why.
    assert new.new_tools.currentData() == "agent" and not new.new_tools_hint.isHidden()
    screenshot(new, f"server_dialog_new_{theme}")
    workspace = InternalServerConfig(type="internal", tool="workspace", options={"root": "~/Documents"})
    edit = ServerDialog("workspace", workspace, {"workspace"})
    qtbot.addWidget(edit)
    edit.show()
    assert edit.tabs.tabText(edit.tabs.currentIndex()) == "Built-in"
    screenshot(edit, f"server_dialog_builtin_{theme}")


MODELS = ["scripted:x", "lab:gpt-4o-mini", "lab:llava-1.6"]


def test_the_sampling_model_is_the_chats_unless_one_is_picked_or_typed_for_a_known_provider(
    qtbot: QtBot,
) -> None:
    dialog = ServerDialog(taken={"workspace"}, models=MODELS, providers={"scripted", "lab"})
    qtbot.addWidget(dialog)
    dialog.show()
    box = dialog.sampling_model
    offered = [box.itemText(i) for i in range(box.count())]
    assert offered == ["The chat's model", "lab:gpt-4o-mini", "lab:llava-1.6", "scripted:x"]
    assert box.currentText() == "The chat's model" and box.isEditable()
    dialog.name.setText("clock")
    dialog.command.setText("uvx")

    # Typed by hand: a provider the agent does not have is refused with why, and the dialog stays.
    box.setEditText("openai:gpt-4o")
    save(qtbot, dialog)
    assert dialog.isVisible()
    assert dialog.error.text().startswith(
        "Sampling model: No provider 'openai' is set up for this agent (it has: lab, scripted)"
    )
    screenshot(dialog, "server_dialog_sampling_model_refused")
    box.setEditText("gpt-4o")
    assert "Sampling model: 'gpt-4o' is not provider:model" in dialog.error.text()  # follows the edit
    box.setEditText("lab:qwen2.5-vl")  # a model no provider listed, of a provider the agent has
    assert dialog.error.isHidden()
    screenshot(dialog, "server_dialog_sampling_model")
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    assert dialog.servers()["clock"].sampling_model == "lab:qwen2.5-vl"


def test_editing_a_server_shows_its_sampling_model_and_the_chats_model_clears_it(qtbot: QtBot) -> None:
    original = StdioServerConfig(command="uvx", sampling_model="gone:model-9", sampling_max_tokens=500)
    dialog = ServerDialog("time", original, {"time"}, models=MODELS, providers={"scripted", "lab", "gone"})
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.sampling_model.currentText() == "gone:model-9"  # kept though no provider lists it
    dialog.sampling_model.setCurrentIndex(dialog.sampling_model.findText("The chat's model"))
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    edited = dialog.servers()["time"]
    assert edited.sampling_model is None and "sampling_model" not in edited.model_fields_set
    assert edited.sampling_max_tokens == 500  # what the form does not show is kept


def test_a_sampling_model_chosen_in_the_tools_panel_is_saved_to_agent_yaml_keeping_its_comments(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    config_file = agent_dir / "agent.yaml"
    demo = FIXTURES / "mcp" / "demo_server.py"
    config_file.write_text(
        config_file.read_text()
        + f"  # the demo server, for sampling\n  demo:\n    command: {json.dumps(sys.executable)}\n"
        f"    args: [{json.dumps(str(demo))}]\n"
    )
    trust_servers(agent_dir)
    desktop.host.reload_agent()
    window = desktop.window
    qtbot.waitUntil(lambda: "scripted:x" in window.model_choices, timeout=WAIT_MS)
    tools = open_manager(qtbot, desktop, "tools").tools
    qtbot.waitUntil(lambda: tools.servers.row_of("demo") is not None, timeout=WAIT_MS)
    tools.server_table.selectRow(tools.servers.row_of("demo"))  # type: ignore[arg-type]
    qtbot.mouseClick(tools.edit_button, Qt.MouseButton.LeftButton)
    dialog = tools.server_dialog
    assert isinstance(dialog, ServerDialog) and dialog.isVisible()
    box = dialog.sampling_model
    # The same models as the chat's model box.
    assert [box.itemText(i) for i in range(1, box.count())] == sorted(set(window.model_choices))
    box.setCurrentIndex(box.findText("scripted:x"))
    save(qtbot, dialog)
    qtbot.waitUntil(lambda: "samplingModel: scripted:x" in config_file.read_text(), timeout=WAIT_MS)
    assert "  # the demo server, for sampling\n  demo:\n" in config_file.read_text()
    qtbot.waitUntil(
        lambda: (
            tools.agent is not None and tools.agent.config.mcp_servers["demo"].sampling_model == "scripted:x"
        ),
        timeout=WAIT_MS,
    )

    tools.server_table.selectRow(tools.servers.row_of("demo"))  # type: ignore[arg-type]
    qtbot.mouseClick(tools.edit_button, Qt.MouseButton.LeftButton)
    dialog = tools.server_dialog
    assert isinstance(dialog, ServerDialog) and dialog.sampling_model.currentText() == "scripted:x"
    dialog.sampling_model.setCurrentIndex(0)  # the chat's model
    save(qtbot, dialog)
    qtbot.waitUntil(lambda: "samplingModel" not in config_file.read_text(), timeout=WAIT_MS)
    assert "  # the demo server, for sampling\n  demo:\n" in config_file.read_text()


def test_what_sampling_requests_meet_is_chosen_in_the_form_ask_first(qtbot: QtBot) -> None:
    from agent_core.agent.schema import SamplingPolicy

    dialog = ServerDialog(taken=set(), models=MODELS, providers={"scripted"})
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.sampling.currentText() == "Ask me each time"  # the default, as in agent.yaml
    dialog.name.setText("clock")
    dialog.command.setText("uvx")
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        save(qtbot, dialog)
    assert "sampling" not in dialog.servers()["clock"].model_fields_set  # the default is not written

    original = StdioServerConfig(command="uvx", sampling=SamplingPolicy.DENY, sampling_max_tokens=500)
    edit = ServerDialog("time", original, {"time"}, models=MODELS, providers={"scripted"})
    qtbot.addWidget(edit)
    edit.show()
    assert edit.sampling.currentText() == "Refuse them"
    edit.sampling.setCurrentIndex(edit.sampling.findData(SamplingPolicy.ALLOW))
    screenshot(edit, "server_dialog_sampling_policy")
    with qtbot.waitSignal(edit.accepted, timeout=WAIT_MS):
        save(qtbot, edit)
    edited = edit.servers()["time"]
    assert edited.sampling is SamplingPolicy.ALLOW and edited.sampling_max_tokens == 500
