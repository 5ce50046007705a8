"""View Context's actions on a memory a reply recalled (or left out): Edit, Pin, Forget, and
"Not for this chat". They change the memory from the next message on; this reply stays as it was
sent, but its rows show the change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QItemSelection, QSortFilterProxyModel
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.context.items import ItemRef
from agent_core.memory.records import Memory
from desktop.models.context_items import ContextItemsModel, ContextRow
from desktop.theme import colors

__all__ = ["MemoryActions", "MemoryRowActions"]


class MemoryActions(Protocol):
    """What the chat does for these buttons (off the GUI thread; ``on_done`` runs on it)."""

    def edit(self, memory_id: str, text: str, on_done: Callable[[Memory], None]) -> None: ...
    def pin(self, memory_id: str, pinned: bool, on_done: Callable[[Memory], None]) -> None: ...
    def forget(self, memory_id: str, on_done: Callable[[Memory], None]) -> None: ...
    def set_used_in_chat(self, memory_id: str, used: bool, on_done: Callable[[], None]) -> None: ...


class MemoryRowActions(QWidget):
    def __init__(
        self,
        views: tuple[QListView, QListView],
        models: tuple[ContextItemsModel, ContextItemsModel],
        actions: MemoryActions,
        parent: QWidget | None = None,
    ) -> None:
        """``views`` and ``models``: the column's recalled memories and its near misses."""
        super().__init__(parent)
        self._views = views
        self._models = models
        self._actions = actions
        self._pinned: set[str] = {r.ref.name for r in models[0].rows() if r.mode == "always"}
        self._left_out: set[str] = set()
        self._forgotten: set[str] = set()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        # Two rows of two: in one row the four buttons made the Memories column the widest of
        # View Context, and the other columns' names were elided to a few letters.
        buttons = QGridLayout()
        self.edit_button = QPushButton("Edit…")
        self.pin_button = QPushButton("Pin")
        self.forget_button = QPushButton("Forget")
        self.chat_button = QPushButton("Not for this chat")
        self.edit_button.setToolTip("Correct the memory's words")
        self.forget_button.setToolTip("Never recalled again (restore it from the Memories tab)")
        for index, button in enumerate(
            (self.edit_button, self.pin_button, self.forget_button, self.chat_button)
        ):
            button.setAutoDefault(False)
            buttons.addWidget(button, index // 2, index % 2)
        layout.addLayout(buttons)
        self.editor_row = QWidget()
        editing = QHBoxLayout(self.editor_row)
        editing.setContentsMargins(0, 0, 0, 0)
        self.editor = QLineEdit()
        self.save_button = QPushButton("Save")
        self.cancel_button = QPushButton("Cancel")
        editing.addWidget(self.editor, 1)
        editing.addWidget(self.save_button)
        editing.addWidget(self.cancel_button)
        self.editor_row.hide()
        layout.addWidget(self.editor_row)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(self.status)
        self.edit_button.clicked.connect(self._start_editing)
        self.save_button.clicked.connect(self._save)
        self.editor.returnPressed.connect(self._save)
        self.cancel_button.clicked.connect(self.editor_row.hide)
        self.pin_button.clicked.connect(self._toggle_pin)
        self.forget_button.clicked.connect(self._forget)
        self.chat_button.clicked.connect(self._toggle_chat)
        for number, view in enumerate(views):
            view.selectionModel().selectionChanged.connect(
                lambda selected, _deselected, n=number: self._on_selected(n, selected)
            )
        self._update()

    # --- which memory -----------------------------------------------------------------------------

    def selected(self) -> ContextRow | None:
        for view, model in zip(self._views, self._models, strict=True):
            indexes = view.selectionModel().selectedIndexes()
            if indexes:
                proxy = view.model()
                assert isinstance(proxy, QSortFilterProxyModel)
                return model.row_at(proxy.mapToSource(indexes[0]).row())
        return None

    def _on_selected(self, number: int, selected: QItemSelection) -> None:
        if not selected.isEmpty():  # one memory at a time across both lists
            self._views[1 - number].clearSelection()
        self.editor_row.hide()
        self.status.clear()
        self._update()

    def _update(self) -> None:
        row = self.selected()
        usable = row is not None and row.ref.name not in self._forgotten and not row.removed
        for button in (self.edit_button, self.pin_button, self.forget_button, self.chat_button):
            button.setEnabled(usable)
        pinned = row is not None and row.ref.name in self._pinned
        self.pin_button.setText("Unpin" if pinned else "Pin")
        self.pin_button.setToolTip(
            "Recalled only when relevant again" if pinned else "Recalled in every message of every chat"
        )
        left_out = row is not None and row.ref.name in self._left_out
        self.chat_button.setText("Use in this chat again" if left_out else "Not for this chat")
        if row is None:
            self.status.setText("Select a memory to edit, pin or forget it.")

    # --- actions ----------------------------------------------------------------------------------

    def _start_editing(self) -> None:
        row = self.selected()
        if row is not None:
            self.editor.setText(row.title)
            self.editor_row.show()
            self.editor.setFocus()

    def _save(self) -> None:
        row, text = self.selected(), self.editor.text().strip()
        self.editor_row.hide()
        if row is None or not text or text == row.title:
            return
        self._actions.edit(row.ref.name, text, self._edited)

    def _edited(self, memory: Memory) -> None:
        self._set_title(memory.id, memory.text)
        self.status.setText("Saved: the next message uses the new words.")

    def _toggle_pin(self) -> None:
        row = self.selected()
        if row is not None:
            self._actions.pin(row.ref.name, row.ref.name not in self._pinned, self._pin_changed)

    def _pin_changed(self, memory: Memory) -> None:
        if memory.tier == "pinned":
            self._pinned.add(memory.id)
            self.status.setText("Pinned: recalled in every message from now on.")
        else:
            self._pinned.discard(memory.id)
            self.status.setText("Unpinned: recalled only when relevant.")
        self._update()

    def _forget(self) -> None:
        row = self.selected()
        if row is not None:
            self._actions.forget(row.ref.name, self._forgot)

    def _forgot(self, memory: Memory) -> None:
        self._forgotten.add(memory.id)
        for model in self._models:
            model.update_row(ItemRef("memory", memory.id), removed=True)
        self.status.setText(
            "Forgotten: not recalled from the next message. Restore it from the Memories tab."
        )
        self._update()

    def _toggle_chat(self) -> None:
        row = self.selected()
        if row is None:
            return
        memory_id = row.ref.name
        used = memory_id in self._left_out

        def done() -> None:
            if used:
                self._left_out.discard(memory_id)
                self.status.setText("This chat recalls it again when it is relevant.")
            else:
                self._left_out.add(memory_id)
                self.status.setText("Not recalled in this chat any more (other chats still can).")
            self._update()

        self._actions.set_used_in_chat(memory_id, used, done)

    def _set_title(self, memory_id: str, text: str) -> None:
        for model in self._models:
            model.update_row(ItemRef("memory", memory_id), title=text)
