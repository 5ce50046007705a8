"""Rich tool results in the chat, with the real server-everything: structured content as a table,
an image as a thumbnail that opens full size, resource links that open and attach; and tool hints
in the Tools panel."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QTableView
from pytestqt.qtbot import QtBot

from agent_core.mcp.types import ServerState
from desktop.app import DesktopApp, create_app
from desktop.dialogs.resource_preview import ResourcePreviewDialog
from desktop.models.context_items import Role
from desktop.models.structured_result import StructuredTableModel, StructuredTreeModel, table_shape
from desktop.models.tools import ToolColumn
from desktop.views.message_widgets import MessageWidget
from desktop.views.rich_result import ImageDialog, RichResultView, decode_image
from desktop.views.tool_call_widget import ToolCallWidget
from tests.support.desktop_driver import WAIT_MS, idle, open_manager, screenshot, scripted, send
from tests.support.mcp_servers import NODE_MODULES, npm_server
from tests.support.server_trust import trust_servers


@pytest.fixture
def with_everything(qtbot: QtBot, agent_dir: Path, theme: str) -> Iterator[DesktopApp]:
    """The test agent with server-everything, whose tools run without asking."""
    if not (NODE_MODULES / "@modelcontextprotocol" / "server-everything").is_dir():
        pytest.skip("tests/node_modules is not installed (npm ci in tests/)")
    server = npm_server(NODE_MODULES, "server-everything", "stdio")
    config = agent_dir / "agent.yaml"
    config.write_text(
        # The scripted model can see, like a vision model (visionModels).
        config.read_text().replace("  scripted: {}", "  scripted: {visionModels: ['*']}")
        + f"  everything:\n    command: {json.dumps(server.command)}\n    args: {json.dumps(server.args)}\n"
        "    toolDefaults: {permissionRequired: false}\n"
    )
    trust_servers(agent_dir)
    create_app()
    app = DesktopApp()
    app.start(agent_dir)

    def ready() -> bool:
        manager = app.host.mcp
        return manager is not None and all(s.state is ServerState.READY for s in manager.statuses())

    try:
        qtbot.waitUntil(lambda: app.window.current_controller() is not None and ready(), timeout=WAIT_MS)
        yield app
    finally:
        app.close()


def call_tools(qtbot: QtBot, app: DesktopApp, *calls: tuple[str, dict[str, object]]) -> list[ToolCallWidget]:
    provider = scripted(app)
    provider.enqueue_tool_calls([(f"everything__{name}", arguments, None) for name, arguments in calls])
    provider.enqueue_reply("Here you are.")
    send(qtbot, app, "Show me.")
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
    view = app.window.current_view()
    assert view is not None
    rows = [w for w in view.conversation.widgets() if isinstance(w, ToolCallWidget)]
    assert len(rows) == len(calls)
    return rows


def test_structured_content_and_an_image_show_in_the_tool_rows(
    qtbot: QtBot, with_everything: DesktopApp, theme: str
) -> None:
    weather, image = call_tools(
        qtbot,
        with_everything,
        ("get-structured-content", {"location": "New York"}),
        ("get-tiny-image", {}),
    )
    assert weather.rich is not None and isinstance(weather.rich.structured_view, QTableView)
    table = weather.rich.structured_view.model()
    fields = {table.index(r, 0).data(): table.index(r, 1).data() for r in range(table.rowCount())}
    assert set(fields) == {"temperature", "conditions", "humidity"}
    assert not hasattr(weather.rich, "problem")

    assert image.rich is not None and len(image.rich.thumbnails) == 1
    thumbnail = image.rich.thumbnails[0]
    assert "20×20 image/png" in thumbnail.toolTip()
    screenshot(with_everything.window, f"rich_results_{theme}")
    screenshot(weather, f"rich_structured_{theme}")
    screenshot(image, f"rich_image_{theme}")

    qtbot.mouseClick(thumbnail, Qt.MouseButton.LeftButton)
    dialog = image.rich.image_dialog
    assert isinstance(dialog, ImageDialog)
    pixmap = dialog.picture.pixmap()
    assert (pixmap.width(), pixmap.height()) == (20, 20)
    screenshot(dialog, f"rich_image_full_{theme}")
    dialog.close()

    # The model read a one-line summary of the image, and the weather once.
    request = scripted(with_everything).requests[-1]
    said = "\n".join(m.content for m in request.messages if m.role == "tool")
    assert "[image: PNG 20x20, " in said and said.count('"temperature"') == 1
    # A model that can see is given the image itself beside that line (see ChatMessage.images).
    [with_image] = [m for m in request.messages if m.role == "tool" and m.images]
    assert with_image.images[0].mime_type == "image/png" and with_image.images[0].data.startswith("iVBOR")
    # View Context of the reply that read the result says the image was passed to the model.
    view = with_everything.window.current_view()
    assert view is not None
    reply = [w for w in view.conversation.widgets() if isinstance(w, MessageWidget)][-1]
    qtbot.mouseClick(reply.context_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: with_everything.window.dialogs.last_context_dialog is not None, timeout=WAIT_MS)
    context_dialog = with_everything.window.dialogs.last_context_dialog
    assert context_dialog is not None
    images = context_dialog.tokens.images
    assert images.isVisible()
    assert "everything.get-tiny-image image 1 (image/png, 3.9 KB): passed to the model" in images.text()
    screenshot(context_dialog, f"view_context_images_{theme}")
    context_dialog.close()


def test_resource_links_open_and_attach_to_the_chat(
    qtbot: QtBot, with_everything: DesktopApp, theme: str
) -> None:
    [links] = call_tools(qtbot, with_everything, ("get-resource-links", {"count": 2}))
    assert links.rich is not None and len(links.rich.open_buttons) == 2
    screenshot(links, f"rich_links_{theme}")
    window = with_everything.window
    qtbot.mouseClick(links.rich.open_buttons[1], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: window.dialogs.last_preview_dialog is not None, timeout=WAIT_MS)
    preview = window.dialogs.last_preview_dialog
    assert isinstance(preview, ResourcePreviewDialog)
    assert preview.text.toPlainText().strip()

    references = window.context_panel.sections["reference"]
    before = references.model.rowCount()
    qtbot.mouseClick(preview.attach, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: references.model.rowCount() == before + 1, timeout=WAIT_MS)
    names = [references.model.row_at(r).ref.name for r in range(references.model.rowCount())]
    assert "demo://resource/dynamic/text/2" in names


def test_the_tools_panel_shows_each_tools_hints(
    qtbot: QtBot, with_everything: DesktopApp, theme: str
) -> None:
    manager = open_manager(qtbot, with_everything, "tools")
    panel = manager.tools
    qtbot.waitUntil(lambda: panel.tools.rowCount() > 0, timeout=WAIT_MS)
    hints = {
        panel.tools.tool(r).name: panel.tools.index(r, ToolColumn.HINTS).data()
        for r in range(panel.tools.rowCount())
    }
    assert hints["echo"] == "read-only"
    assert hints["gzip-file-as-resource"] == "idempotent · open-world"
    screenshot(manager, f"tool_hints_{theme}")

    # The chat's context panel marks them too.
    tools = with_everything.window.context_panel.sections["tool"].model
    qtbot.waitUntil(lambda: tools.rowCount() > 0, timeout=WAIT_MS)
    marked = {tools.row_at(r).ref.name: tools.index(r, 0).data(Role.HINTS) for r in range(tools.rowCount())}
    assert marked["echo"] == ("read-only",)
    screenshot(with_everything.window.context_panel, f"context_tool_hints_{theme}")


def test_a_nested_result_is_a_bounded_tree_and_an_invalid_one_says_why(qtbot: QtBot) -> None:
    from agent_core.store.records import ToolCallRecord

    nested = {"city": {"name": "Oslo", "days": [{"t": 3}, {"t": 5}]}, "ok": True}
    assert table_shape(nested) is None
    tree = StructuredTreeModel(nested)
    city = tree.index(0, 0)
    assert (city.data(), tree.index(0, 1).data()) == ("city", "2 fields")
    assert tree.rowCount(city) == 2 and tree.parent(tree.index(0, 0, city)) == city
    huge = StructuredTreeModel({"x": list(range(100_000))})
    assert huge.rowCount(huge.index(0, 0)) < 6000 and huge.index(1, 1).data() == "more left out"

    rows = {"items": [{"a": 1, "b": "x"}, {"a": 2, "c": None}]}
    columns, values = table_shape(rows) or ([], [])
    table = StructuredTableModel(columns, values)
    assert [table.headerData(i, Qt.Orientation.Horizontal) for i in range(3)] == ["a", "b", "c"]
    assert table.index(1, 1).data() == ""

    record = ToolCallRecord(
        id="1", server="s", tool="t", arguments={}, structured=nested, structured_problem="at city: wrong"
    )
    view = RichResultView(record)
    qtbot.addWidget(view)
    assert view.problem.text() == "at city: wrong"
    view.resize(600, view.sizeHint().height())
    screenshot(view, "rich_invalid_tree")


def wav(seconds: float, rate: int = 8000) -> bytes:
    samples = int(seconds * rate)
    fmt = struct.pack("<HHIIHH", 1, 1, rate, rate * 2, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", 36 + samples * 2)
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", 16)
        + fmt
        + b"data"
        + struct.pack("<I", samples * 2)
        + b"\0" * (samples * 2)
    )


def test_audio_is_a_line_with_its_facts_and_save_writes_it(qtbot: QtBot, tmp_path: Path) -> None:
    from agent_core.content_parts import ContentPart
    from agent_core.store.records import ToolCallRecord

    clip = wav(1.5)
    part = ContentPart("audio", mime_type="audio/wav", data=base64.b64encode(clip).decode())
    view = RichResultView(ToolCallRecord(id="1", server="s", tool="speak", arguments={}, parts=(part,)))
    qtbot.addWidget(view)
    line = next(label.text() for label in view.findChildren(QLabel) if label.text().startswith("Audio"))
    assert line == "Audio  WAV · 1.5 s · 23.5 KB"
    target = tmp_path / "clip.wav"
    view.choose_save_path = lambda suggested: str(target) if suggested == "speak.wav" else ""
    qtbot.mouseClick(view.save_buttons[0], Qt.MouseButton.LeftButton)
    assert target.read_bytes() == clip


def test_an_untrusted_image_that_is_not_one_or_too_big_is_described_not_decoded(qtbot: QtBot) -> None:
    from agent_core.content_parts import ContentPart
    from agent_core.store.records import ToolCallRecord

    # A PNG header claiming 100000 x 100000 pixels: refused from the header, before any decoding.
    ihdr = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 6, 0, 0, 0)
    giant = (
        b"\x89PNG\r\n\x1a\n"
        + struct.pack(">I", 13)
        + b"IHDR"
        + ihdr
        + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    )
    assert decode_image(base64.b64encode(giant).decode()) is None
    parts = (
        ContentPart("image", mime_type="image/png", data=base64.b64encode(giant).decode()),
        ContentPart("image", mime_type="image/png", data="!!not base64!!"),
        ContentPart("image", mime_type="image/png", dropped_size=9_000_000),
    )
    view = RichResultView(ToolCallRecord(id="1", server="s", tool="t", arguments={}, parts=parts))
    qtbot.addWidget(view)
    assert not view.thumbnails
    notes = [label.text() for label in view.findChildren(QLabel) if label.text().startswith("[image")]
    assert len(notes) == 3 and "8.6 MB: not shown" in notes[2]


def test_an_embedded_resource_opens_and_attaches_as_it_came(
    qtbot: QtBot, with_everything: DesktopApp, theme: str
) -> None:
    [row] = call_tools(
        qtbot, with_everything, ("get-resource-reference", {"resourceType": "Text", "resourceId": 1})
    )
    assert row.rich is not None and len(row.rich.attach_buttons) == 1
    screenshot(row, f"rich_embedded_{theme}")
    window = with_everything.window
    qtbot.mouseClick(row.rich.open_buttons[0], Qt.MouseButton.LeftButton)
    preview = window.dialogs.last_preview_dialog
    assert isinstance(preview, ResourcePreviewDialog)
    assert preview.text.toPlainText().startswith("Resource 1: This is a plaintext resource")
    preview.close()

    references = window.context_panel.sections["reference"]
    qtbot.mouseClick(row.rich.attach_buttons[0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: references.model.rowCount() == 1, timeout=WAIT_MS)
    assert references.model.row_at(0).ref.name == "demo://resource/dynamic/text/1"
    view = window.current_view()
    assert view is not None
    attached = view.controller.session.attached_resources()
    [text] = [item.text for item in attached.values()]
    assert text.startswith("Resource 1:")
