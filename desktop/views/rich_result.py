"""What a tool call gave back beyond its text, in the chat's tool row: structured content as a
table or tree (and why it breaks the tool's schema, if it does), images as thumbnails that open
full size, audio as a line with a Save button, and resources that open and attach to the chat.

Everything shown here came from an untrusted server: images are decoded with a pixel and memory
limit, after their header says how big they are."""

from __future__ import annotations

import base64
import binascii
import html
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QModelIndex, QSize, Qt, Signal
from PySide6.QtGui import QIcon, QImage, QImageReader, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTableView,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from agent_core.content_parts import ContentPart, decoded_size, human_size, media_facts
from agent_core.store.records import ToolCallRecord
from desktop.models.structured_result import StructuredTableModel, StructuredTreeModel, table_shape
from desktop.theme import colors
from desktop.views.file_dialogs import choose_save_path
from desktop.views.tables import row_table

__all__ = ["MAX_IMAGE_PIXELS", "ImageDialog", "ResultResource", "RichResultView", "decode_image"]

THUMBNAIL = 160  # the longest side of an image in the chat, in pixels
MAX_IMAGE_PIXELS = 40_000_000  # a bigger image (by its header) is not decoded
MAX_DECODE_MB = 256  # Qt's allocation limit while decoding


@dataclass(frozen=True)
class ResultResource:
    """A resource in a result, with the server that sent it (which is the one to read it from)."""

    server: str
    part: ContentPart


def decode_image(data: str) -> QImage | None:
    """The image, or None when it is not valid base64, not an image Qt reads, or too big."""
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    buffer = QBuffer()
    buffer.setData(QByteArray(raw))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    reader.setAllocationLimit(MAX_DECODE_MB)
    size = reader.size()
    if not size.isValid() or size.width() * size.height() > MAX_IMAGE_PIXELS:
        return None
    image = reader.read()
    return None if image.isNull() else image


def _save_path(parent: QWidget, suggested: str) -> str:
    chosen = choose_save_path(parent, "Save", suggested)
    return str(chosen) if chosen is not None else ""


class RichResultView(QWidget):
    """The rich parts of one tool call's result (see the module docstring)."""

    resource_open_requested = Signal(object)  # ResultResource
    resource_attach_requested = Signal(object)  # ResultResource
    save_failed = Signal(str)  # what went wrong, to show in the chat

    def __init__(self, record: ToolCallRecord, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record = record
        # Where Save writes: asks with a file dialog; tests put a function here.
        self.choose_save_path: Callable[[str], str] = lambda name: _save_path(self, name)
        self.image_dialog: ImageDialog | None = None
        self.structured_view: QTableView | QTreeView | None = None
        self.thumbnails: list[QPushButton] = []
        self.save_buttons: list[QPushButton] = []
        self.open_buttons: list[QPushButton] = []
        self.attach_buttons: list[QPushButton] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        palette = colors()
        if record.structured_problem:
            self.problem = QLabel(record.structured_problem)  # a sentence: what is wrong, and where
            self.problem.setWordWrap(True)
            self.problem.setStyleSheet(f"color: {palette.warning};")
            layout.addWidget(self.problem)
        if record.structured is not None:
            layout.addWidget(QLabel("Structured content"))
            self.structured_view = self._structured_view(record)
            layout.addWidget(self.structured_view)
        images = [p for p in record.parts if p.type == "image"]
        if images:
            row = QHBoxLayout()
            for part in images:
                row.addWidget(self._thumbnail(part))
            row.addStretch(1)
            layout.addLayout(row)
        for part in record.parts:
            if part.type == "audio":
                layout.addLayout(self._audio_line(part))
            elif part.type in ("resource", "resource_link"):
                layout.addLayout(self._resource_line(part))

    def _structured_view(self, record: ToolCallRecord) -> QTableView | QTreeView:
        assert record.structured is not None
        shape = table_shape(record.structured)
        view: QTableView | QTreeView
        if shape is not None:
            view = row_table(StructuredTableModel(*shape, parent=self))
            view.setSelectionMode(QAbstractItemView.SelectionMode.NoSelection)
            rows = view.model().rowCount()
            # Tall enough for every row up to a limit; beyond it the table scrolls.
            body = view.verticalHeader().defaultSectionSize() * max(1, rows)
            frame = 2 * view.frameWidth() + view.horizontalHeader().sizeHint().height()
            view.setFixedHeight(min(320, body + frame + 2))
        else:
            tree = view = QTreeView()
            model = StructuredTreeModel(record.structured, self)
            tree.setModel(model)
            tree.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
            tree.expandToDepth(1)
            tree.setColumnWidth(0, 180)
            # As tall as the rows open at first (three levels), up to 12; then it scrolls.
            shown = _rows_to_depth(model, QModelIndex(), 3, limit=12)
            row_height = tree.fontMetrics().height() + 6
            tree.setFixedHeight(
                tree.header().sizeHint().height() + 2 * tree.frameWidth() + row_height * shown + 4
            )
        return view

    def _thumbnail(self, part: ContentPart) -> QWidget:
        image = decode_image(part.data) if part.data else None
        if image is None:
            size = human_size(part.dropped_size or decoded_size(part.data or ""))
            note = QLabel(f"[image: {part.mime_type or 'unknown type'}, {size}: not shown]")
            note.setStyleSheet(f"color: {colors().muted};")
            return note
        button = QPushButton()
        button.setFlat(True)
        thumb = image.scaled(
            QSize(THUMBNAIL, THUMBNAIL),
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
        if max(image.width(), image.height()) < THUMBNAIL // 2:  # tiny images: enlarge, crisp
            thumb = image.scaled(
                QSize(THUMBNAIL // 2, THUMBNAIL // 2),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.FastTransformation,
            )
        button.setIcon(QIcon(QPixmap.fromImage(thumb)))
        button.setIconSize(thumb.size())
        button.setToolTip(f"{image.width()}×{image.height()} {part.mime_type or ''}: click to view full size")
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.clicked.connect(lambda _=False, i=image: self._show_full(i))
        self.thumbnails.append(button)
        return button

    def _show_full(self, image: QImage) -> None:
        self.image_dialog = ImageDialog(image, self)
        self.image_dialog.open()

    def _audio_line(self, part: ContentPart) -> QHBoxLayout:
        row = QHBoxLayout()
        kind = (part.mime_type or "audio").split("/")[-1].upper()
        if part.data is None:
            size = human_size(part.dropped_size or 0)
            row.addWidget(QLabel(f"Audio  {kind} · {size} (too big to keep)"))
            row.addStretch(1)
            return row
        facts = media_facts(part.data)
        details = [kind, human_size(facts.size)]
        if facts.seconds is not None:
            details.insert(1, f"{facts.seconds:.1f} s")
        row.addWidget(QLabel("Audio  " + " · ".join(details)))
        save = QPushButton("Save…")
        save.setToolTip("Save the audio to a file")
        save.clicked.connect(lambda _=False, p=part: self._save(p))
        self.save_buttons.append(save)
        row.addWidget(save)
        row.addStretch(1)
        return row

    def _save(self, part: ContentPart) -> None:
        extension = {"wav": ".wav", "mpeg": ".mp3", "mp3": ".mp3", "ogg": ".ogg", "flac": ".flac"}.get(
            (part.mime_type or "").split("/")[-1], ".audio"
        )
        path = self.choose_save_path(f"{self.record.tool}{extension}")
        if path and part.data is not None:
            try:
                Path(path).write_bytes(base64.b64decode(part.data, validate=True))
            except (binascii.Error, ValueError, OSError) as error:
                self.save_failed.emit(f"Could not save the audio to {path}: {error}")

    def _resource_line(self, part: ContentPart) -> QHBoxLayout:
        row = QHBoxLayout()
        if part.type == "resource_link":
            kind, name = "Link", part.text or part.uri or "resource"
        else:  # an embedded resource has no name of its own: say what it holds
            size = len(part.text) if part.text is not None else decoded_size(part.data or "")
            kind, name = "Resource", f"{part.mime_type or 'unknown type'}, {human_size(size)}"
        # The names come from the server: escaped, so they cannot style or link the label.
        label = QLabel(
            f"{kind}  {html.escape(name)}  <span style='color:{colors().muted}'>{html.escape(part.uri or '')}</span>"
        )
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setToolTip("\n".join(t for t in (part.uri, part.description or part.mime_type) if t))
        # A long name or address is cut at the row's width: the buttons always show.
        label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        row.addWidget(label, 1)
        resource = ResultResource(self.record.server, part)
        opener = QPushButton("Open")
        opener.setToolTip("Read it and show its text")
        opener.clicked.connect(lambda: self.resource_open_requested.emit(resource))
        attach = QPushButton("Attach to chat")
        attach.setToolTip("Attach its text to this chat as a reference: the next messages use it")
        attach.clicked.connect(lambda: self.resource_attach_requested.emit(resource))
        self.open_buttons.append(opener)
        self.attach_buttons.append(attach)
        row.addWidget(opener)
        row.addWidget(attach)
        return row


def _rows_to_depth(model: StructuredTreeModel, parent: QModelIndex, depth: int, *, limit: int) -> int:
    """How many rows show with the first ``depth`` levels open, counting no further than ``limit``."""
    count = 0
    for row in range(model.rowCount(parent)):
        count += 1
        if depth > 1 and count < limit:
            count += _rows_to_depth(model, model.index(row, 0, parent), depth - 1, limit=limit - count)
        if count >= limit:
            return limit
    return count


class ImageDialog(QDialog):
    """An image of a tool result at full size (scrolling when it is bigger than the screen)."""

    def __init__(self, image: QImage, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Image {image.width()}×{image.height()}")
        layout = QVBoxLayout(self)
        scroll = QScrollArea()
        self.picture = QLabel()
        self.picture.setPixmap(QPixmap.fromImage(image))
        scroll.setWidget(self.picture)
        scroll.setAlignment(Qt.AlignmentFlag.AlignCenter)
        layout.addWidget(scroll)
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        layout.addWidget(close, 0, Qt.AlignmentFlag.AlignRight)
        self.resize(max(320, min(1000, image.width() + 60)), max(240, min(800, image.height() + 90)))
