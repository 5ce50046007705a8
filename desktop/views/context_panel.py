"""The chat's context: the context-window gauge (what the next request would send), then three sections (Rules,
References, Tools) with add, remove and pin, and under them the agent's Skills (search, include
mode, enabled, add to or remove from the chat, open the folder, view SKILL.md, import)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QListView,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.context.items import ItemRef, ItemType
from agent_core.tools.runtime import ToolDescriptor
from desktop.controllers.chat_controller import ChatController
from desktop.models.context_items import ContextItemsModel, Role, session_rows, sorted_proxy
from desktop.models.skills_model import chat_skill_states
from desktop.theme import colors
from desktop.views.common import fit_list_height
from desktop.views.item_delegate import ContextItemDelegate
from desktop.views.skills_panel import SkillsSection
from desktop.views.token_bar import ContextGauge

__all__ = ["NO_TOOLS_NOTE", "ROUTED_TOOLS_NOTE", "ContextPanel", "ContextSection"]

SECTIONS: tuple[tuple[str, ItemType], ...] = (
    ("Rules", "rule"),
    ("References", "reference"),
    ("Tools", "tool"),
)
NO_TOOLS_NOTE = (
    "This model cannot call tools; they are not sent. Choose a tool-capable model in the model picker."
)
ROUTED_TOOLS_NOTE = (
    "This model cannot choose tools itself: for each message ContextDesk calls the one tool the message "
    "clearly asks for (see View Context), or none."
)


class ContextSection(QWidget):
    def __init__(self, title: str, item_type: ItemType, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.item_type = item_type
        self.title_text = title
        self.model = ContextItemsModel(parent=self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        header = QHBoxLayout()
        self.title = QLabel(title)
        self.title.setStyleSheet("font-weight: 600;")
        self.add_button = QToolButton()
        self.add_button.setText("Add")
        self.add_button.setToolTip(f"Add {title.lower()} to this chat")
        self.add_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.add_menu = QMenu(self)
        self.add_button.setMenu(self.add_menu)
        # Filled when it opens: an agent of hundreds of references would otherwise rebuild a
        # menu of hundreds of entries on every refresh, on the GUI thread.
        self.add_menu.aboutToShow.connect(self.fill_add_menu)
        self._available: list[tuple[ItemRef, str]] = []
        self._menu_filled = False
        self.remove_button = QToolButton()
        self.remove_button.setText("Remove")
        self.remove_button.setToolTip("Remove the selected item from this chat (Delete)")
        self.remove_button.setEnabled(False)
        self.pin_button = QToolButton()
        self.pin_button.setText("Pin")
        self.pin_button.setCheckable(True)
        self.pin_button.setEnabled(False)
        self.pin_button.setToolTip("Pinned items stay in full whatever trimming or compaction does")
        self.pin_button.clicked.connect(self._pin_selected)
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.pin_button)
        header.addWidget(self.add_button)
        header.addWidget(self.remove_button)
        layout.addLayout(header)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(
            f"background-color: {colors().warning_background}; padding: 4px 6px; border-radius: 4px;"
        )
        self.note.hide()
        layout.addWidget(self.note)
        self.view = QListView()
        self.proxy = sorted_proxy(self.model, self.view)
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(ContextItemDelegate(self.view))
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)
        self.view.selectionModel().selectionChanged.connect(lambda *_: self._selection_changed())
        layout.addWidget(self.view)
        self.empty = QLabel(f"No {title.lower()} in this chat.")
        self.empty.setStyleSheet(f"color: {colors().muted}; padding: 4px;")
        layout.addWidget(self.empty)
        self.on_remove: Callable[[ItemRef], None] | None = None
        self.on_add: Callable[[ItemRef], None] | None = None
        self.on_pin: Callable[[ItemRef, bool], None] | None = None
        # Entries after the items, e.g. "Attach from a tool server…" under References.
        self.extra_actions: list[tuple[str, Callable[[], None]]] = []
        self.remove_button.clicked.connect(self._remove_selected)
        remove = QAction("Remove from chat", self.view)
        remove.setShortcut(QKeySequence.StandardKey.Delete)
        remove.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        remove.triggered.connect(self._remove_selected)
        self.view.addAction(remove)

    def set_rows(self, rows: list, available: list[tuple[ItemRef, str]]) -> None:  # type: ignore[type-arg]
        self.model.set_rows(rows)
        count = len(rows)
        self.title.setText(f"{self.title_text}  <span style='color:{colors().muted}'>{count}</span>")
        self.empty.setVisible(count == 0)
        self.view.setVisible(count > 0)
        fit_list_height(self.view)
        self._selection_changed()
        self._available = available
        self._menu_filled = False

    def fill_add_menu(self) -> QMenu:
        """The Add menu with what can be added now (built on first use after a change)."""
        if self._menu_filled:
            return self.add_menu
        self.add_menu.clear()
        for ref, label in self._available:
            action = self.add_menu.addAction(label)
            action.triggered.connect(lambda _checked=False, r=ref: self.on_add and self.on_add(r))
        if not self._available:
            self.add_menu.addAction("Everything is already in this chat").setEnabled(False)
        if self.extra_actions:
            self.add_menu.addSeparator()
        for text, callback in self.extra_actions:
            self.add_menu.addAction(text).triggered.connect(lambda _checked=False, c=callback: c())
        self._menu_filled = True
        return self.add_menu

    def set_note(self, text: str) -> None:
        """A short explanation under the title ("" hides it)."""
        self.note.setText(text)
        self.note.setVisible(bool(text))

    def _selection_changed(self) -> None:
        index = self.view.currentIndex()
        selected = index.isValid() and self.view.selectionModel().isSelected(index)
        self.remove_button.setEnabled(selected)
        self.pin_button.setEnabled(selected)
        pinned = bool(index.data(Role.PINNED)) if selected else False
        self.pin_button.setChecked(pinned)
        self.pin_button.setText("Unpin" if pinned else "Pin")

    def _pin_selected(self) -> None:
        index = self.view.currentIndex()
        if index.isValid() and self.on_pin is not None:
            self.on_pin(index.data(Role.REF), not bool(index.data(Role.PINNED)))

    def _remove_selected(self) -> None:
        index = self.view.currentIndex()
        if index.isValid() and self.on_remove is not None:
            self.on_remove(index.data(Role.REF))

    def _menu(self, position: QPoint) -> None:
        index = self.view.indexAt(position)
        if not index.isValid():
            return
        menu = QMenu(self)
        ref = index.data(Role.REF)
        pinned = bool(index.data(Role.PINNED))
        menu.addAction(
            "Unpin" if pinned else "Pin (keep in full)", lambda: self.on_pin and self.on_pin(ref, not pinned)
        )
        menu.addAction("Remove from chat", lambda: self.on_remove and self.on_remove(ref))
        menu.exec(self.view.viewport().mapToGlobal(position))


class ContextPanel(QWidget):
    """Bound to the current chat; ``refresh`` after the chat, the agent or the tools change."""

    attach_resource_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.setSpacing(10)
        self.gauge_slot = QWidget()
        self.gauge_slot.setObjectName("gaugeSlot")
        slot = QVBoxLayout(self.gauge_slot)
        slot.setContentsMargins(0, 0, 0, 0)
        self.gauge = ContextGauge()
        slot.addWidget(self.gauge)
        layout.addWidget(self.gauge_slot)
        self.sections: dict[ItemType, ContextSection] = {}
        for title, item_type in SECTIONS:
            section = ContextSection(title, item_type)
            section.on_add = self._add
            section.on_remove = self._remove
            section.on_pin = self._pin
            self.sections[item_type] = section
            layout.addWidget(section)
        self.sections["reference"].extra_actions.append(
            ("Attach from a tool server…", self.attach_resource_requested.emit)
        )
        # The agent's skills, not only the chat's: the list takes the room the sections leave.
        self.skills = SkillsSection()
        # A skill joins and leaves the chat as rules and references do (the session's add/remove).
        self.skills.add_to_chat_requested.connect(lambda name: self._add(ItemRef("skill", name)))
        self.skills.remove_from_chat_requested.connect(lambda name: self._remove(ItemRef("skill", name)))
        layout.addWidget(self.skills, 1)
        self.controller: ChatController | None = None
        self._tools: Callable[[], Sequence[ToolDescriptor]] = lambda: ()

    def bind(self, controller: ChatController | None, tools: Callable[[], Sequence[ToolDescriptor]]) -> None:
        if self.controller is not None:
            self.controller.items_changed.disconnect(self.refresh)
            self.controller.model_checked.disconnect(self.refresh)
            self.controller.context_changed.disconnect(self.refresh_gauge)
        self.controller = controller
        self._tools = tools
        if controller is not None:
            controller.items_changed.connect(self.refresh)
            controller.model_checked.connect(self.refresh)
            controller.context_changed.connect(self.refresh_gauge)
        self.refresh()
        self.refresh_gauge()

    def refresh_gauge(self) -> None:
        """What the next request would send (empty before the first reply; the last request's
        figures while the estimate is being made or if it could not be)."""
        controller = self.controller
        if controller is not None and controller.next_request_estimate is not None:
            self.gauge.set_estimate(controller.next_request_estimate, controller.estimate_before_compaction)
            return
        self.gauge.set_context(None if controller is None else controller.last_measured_context())

    def refresh(self) -> None:
        controller = self.controller
        if controller is None:
            for section in self.sections.values():
                section.set_rows([], [])
                section.set_note("")
            self.skills.set_chat_skills(None)
            self.setEnabled(False)
            return
        self.setEnabled(True)
        agent = controller.session.agent
        self.skills.set_agent(agent)
        tools = list(self._tools())
        items = controller.items()
        attached = controller.session.attached_resources()
        in_chat = {item.ref for item in items}
        self.skills.set_chat_skills(chat_skill_states(items))
        for item_type, section in self.sections.items():
            rows = session_rows(items, item_type, agent, tools, attached)
            section.set_rows(rows, _available(item_type, agent, tools, in_chat))
        # As the core does: a model that cannot call tools is sent none, a routed one at most one
        # per message (and View Context says which and why).
        notes = {"none": NO_TOOLS_NOTE, "routed": ROUTED_TOOLS_NOTE, "native": ""}
        self.sections["tool"].set_note(notes[controller.tool_calling] if tools else "")

    def _add(self, ref: ItemRef) -> None:
        if self.controller is not None:
            self.controller.add_item(ref)

    def _pin(self, ref: ItemRef, pinned: bool) -> None:
        if self.controller is not None:
            self.controller.pin_item(ref, pinned)

    def _remove(self, ref: ItemRef) -> None:
        if self.controller is not None:
            self.controller.remove_item(ref)


def _available(
    item_type: ItemType, agent: Agent, tools: Sequence[ToolDescriptor], in_chat: set[ItemRef]
) -> list[tuple[ItemRef, str]]:
    if item_type == "tool":
        refs = [
            (ItemRef("tool", t.name, t.server), f"{t.server}.{t.name}  ({t.include.value})") for t in tools
        ]
    else:
        documents = agent.documents("rule" if item_type == "rule" else "reference").values()
        ordered = sorted(documents, key=lambda d: (d.priority_level, d.name))
        refs = [
            (ItemRef(d.kind, d.name), f"{d.priority_level:03d}  {d.name}  ({d.include.value})")
            for d in ordered
        ]
    return [(ref, label) for ref, label in refs if ref not in in_chat]
