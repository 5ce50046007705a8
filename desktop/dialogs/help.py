"""Help ▸ Documentation: the pages that ship with ContextDesk, read inside the app (offline), and
Help ▸ About: the version and the licences of what it is built on."""

from __future__ import annotations

import platform
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QSize, Qt, QUrl
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QScrollArea,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from agent_core import __version__
from agent_core.resources import docs_dir
from desktop.views.common import MarkdownView, not_opened_words
from desktop.views.window_geometry import fit_size

__all__ = ["HelpDialog", "about_text", "show_about"]

#: The pages, in reading order: file, title.
PAGES = (
    ("README.md", "Getting started"),
    ("desktop.md", "Using the desktop app"),
    ("agent-format.md", "The agent folder"),
    ("selection.md", "How context is chosen"),
    ("context-management.md", "Context window and compaction"),
    ("memory.md", "Long-term memory"),
    ("skills.md", "Skills"),
    ("subagents.md", "Sub-agents"),
    ("workflows.md", "Workflows"),
    ("mcp.md", "Tool servers (MCP)"),
)
#: What ContextDesk is built on, and under which licence.
LICENCES = (
    ("Qt / PySide6", "LGPL-3.0"),
    ("all-MiniLM-L6-v2 (embeddings)", "Apache-2.0"),
    ("SmolLM2-135M-Instruct (offline model)", "Apache-2.0"),
    ("llama.cpp / llama-cpp-python", "MIT"),
    ("ONNX Runtime", "MIT"),
    ("MCP Python SDK", "MIT"),
    ("pydantic", "MIT"),
    ("Jinja2", "BSD-3-Clause"),
)


class HelpDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ContextDesk documentation")
        fit_size(self, QSize(1000, 720))
        layout = QVBoxLayout(self)
        row = QHBoxLayout()
        self.pages = QListWidget()
        self.pages.setMaximumWidth(240)
        self.view = MarkdownView()
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.view)
        row.addWidget(self.pages)
        row.addWidget(scroll, 1)
        layout.addLayout(row, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.folder = docs_dir()
        for file, title in PAGES:
            path = self._path(file)
            if path is not None:
                item = QListWidgetItem(title)
                item.setData(Qt.ItemDataRole.UserRole, str(path))
                self.pages.addItem(item)
        self.pages.currentItemChanged.connect(lambda item, _old: self._show(item))
        self.view.other_link.connect(self._follow)
        if self.pages.count():
            self.pages.setCurrentRow(0)
        else:
            self.view.set_markdown(
                "The documentation is not installed with this copy of ContextDesk. "
                "Reinstall it, or read the `docs/` folder of its source."
            )

    def _path(self, file: str) -> Path | None:
        if self.folder is None:
            return None
        # A checkout keeps README.md beside docs/; an installation ships it inside docs/.
        places = (
            [self.folder.parent / file, self.folder / file] if file == "README.md" else [self.folder / file]
        )
        return next((path for path in places if path.is_file()), None)

    def _follow(self, url: QUrl) -> None:
        """A link between the pages ("selection.md#indexing-in-tiers") shows that page; another
        (a source file named in the text) is not followed, and says so."""
        name = Path(url.path()).name
        for row in range(self.pages.count()):
            if Path(str(self.pages.item(row).data(Qt.ItemDataRole.UserRole))).name == name:
                self.pages.setCurrentRow(row)
                return
        QToolTip.showText(QCursor.pos(), not_opened_words(url), self.view)

    def _show(self, item: QListWidgetItem | None) -> None:
        if item is not None:
            text = Path(str(item.data(Qt.ItemDataRole.UserRole))).read_text(
                encoding="utf-8", errors="replace"
            )
            self.view.set_markdown(text)


def about_text() -> str:
    licences = "".join(f"<li>{name}: {licence}</li>" for name, licence in LICENCES)
    return (
        f"<h3>ContextDesk {__version__}</h3>"
        "<p>A local desktop AI agent whose context you can see and control.</p>"
        f"<p>Python {platform.python_version()}, PySide6 {pyside_version}, {platform.system()}.</p>"
        f"<p>Built on:</p><ul>{licences}</ul>"
    )


def show_about(parent: QWidget | None) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle("About ContextDesk")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_text())
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box
