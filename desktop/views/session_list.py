"""The chats list: newest first, full-text search (saying so when nothing matches), rename in place,
delete with undo, new chat."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QStackedWidget,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from desktop.models.sessions import Column, Role, SessionListModel
from desktop.theme import colors

__all__ = ["SessionListPanel"]

SEARCH_DELAY_MS = 200


class SessionListPanel(QWidget):
    open_requested = Signal(str)  # session id
    new_requested = Signal()
    delete_requested = Signal(str)  # session id
    search_changed = Signal(str)  # debounced; "" shows all chats

    def __init__(self, model: SessionListModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = model
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        top = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search chats (Ctrl+K)")
        self.search.setClearButtonEnabled(True)
        self.new_button = QPushButton("New chat")
        self.new_button.setToolTip("Start a new chat (Ctrl+N)")
        self.new_button.clicked.connect(self.new_requested)
        top.addWidget(self.search, 1)
        top.addWidget(self.new_button)
        layout.addLayout(top)

        self.table = QTableView()
        self.table.setModel(model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed | QAbstractItemView.EditTrigger.SelectedClicked
        )
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(Column.TITLE, QHeaderView.ResizeMode.Stretch)
        self.table.horizontalHeader().setSectionResizeMode(
            Column.UPDATED, QHeaderView.ResizeMode.ResizeToContents
        )
        self.table.verticalHeader().setDefaultSectionSize(30)
        self.table.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.table.customContextMenuRequested.connect(self._menu)
        self.table.activated.connect(self._open_index)
        self.table.clicked.connect(self._open_index)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.table)
        self.pages.addWidget(self._no_match_page())
        layout.addWidget(self.pages, 1)
        self._results_for = ""  # the search whose results the list shows ("" when it shows all)
        for changed in (model.modelReset, model.rowsInserted, model.rowsRemoved):
            changed.connect(self._update_no_match)

        delete = QAction("Delete chat", self.table)
        delete.setShortcut(QKeySequence.StandardKey.Delete)
        delete.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        delete.triggered.connect(self._delete_selected)
        self.table.addAction(delete)

        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(lambda: self.search_changed.emit(self.search.text().strip()))
        self.search.textChanged.connect(lambda _t: self._search_timer.start())

    def _no_match_page(self) -> QWidget:
        page = QWidget()
        column = QVBoxLayout(page)
        column.setContentsMargins(8, 16, 8, 8)
        self.no_match = QLabel()
        self.no_match.setWordWrap(True)
        self.no_match.setTextFormat(Qt.TextFormat.PlainText)
        self.no_match.setStyleSheet(f"color: {colors().muted};")
        self.clear_search_button = QPushButton("Clear search")
        self.clear_search_button.clicked.connect(self._clear_search)
        column.addWidget(self.no_match)
        column.addWidget(self.clear_search_button, 0, Qt.AlignmentFlag.AlignLeft)
        column.addStretch(1)
        return page

    def show_results_for(self, text: str) -> None:
        """The list now holds the chats matching ``text`` (all chats for "")."""
        self._results_for = text
        self._update_no_match()

    def _update_no_match(self, *_: object) -> None:
        empty = bool(self._results_for) and self.model.rowCount() == 0
        if empty:
            self.no_match.setText(f"No chats match “{self._results_for}”.")
        self.pages.setCurrentIndex(1 if empty else 0)

    def _clear_search(self) -> None:
        self.search.clear()
        self.search.setFocus(Qt.FocusReason.OtherFocusReason)

    def select_session(self, session_id: str) -> None:
        row = self.model.row_of(session_id)
        if row is not None:
            self.table.selectRow(row)

    def focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _open_index(self, index: QModelIndex) -> None:
        if index.isValid():
            self.open_requested.emit(index.data(Role.SESSION_ID))

    def _selected_id(self) -> str | None:
        index = self.table.currentIndex()
        return index.data(Role.SESSION_ID) if index.isValid() else None

    def _delete_selected(self) -> None:
        session_id = self._selected_id()
        if session_id:
            self.delete_requested.emit(session_id)

    def _menu(self, position: QPoint) -> None:
        index = self.table.indexAt(position)
        if not index.isValid():
            return
        menu = QMenu(self)
        menu.addAction("Open", lambda: self._open_index(index))
        menu.addAction("Rename", lambda: self.table.edit(index.siblingAtColumn(Column.TITLE)))
        menu.addSeparator()
        menu.addAction("Delete", lambda: self.delete_requested.emit(index.data(Role.SESSION_ID)))
        menu.exec(self.table.viewport().mapToGlobal(position))
