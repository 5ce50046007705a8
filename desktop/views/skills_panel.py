"""The Skills section of the context panel: the agent's skills with a search box, those the open
chat holds marked, those with trust warnings marked, and for the chosen skill its warnings, include
mode, enabled, "Add to chat" / "Remove from chat", "Open folder" and "View SKILL.md"; "Import…"
brings more in.

The view only shows and asks: a change is a signal (the window hands it to
:class:`~desktop.controllers.skill_actions.SkillActions`, which writes agent.yaml on the core thread
and reloads the agent). The row changes at once, so the list does not wait for the reload.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from PySide6.QtCore import QModelIndex, QPoint, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QActionGroup, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.agent.items import Problem
from desktop.models.skills_model import (
    IN_CHAT_WORDS,
    INCLUDE_MODES,
    SkillFilterProxy,
    SkillRole,
    SkillsModel,
    skill_rows,
    warning_text,
)
from desktop.theme import colors
from desktop.views.skill_delegate import SkillDelegate

__all__ = ["NO_SKILLS_TEXT", "SkillsSection"]

NO_SKILLS_TEXT = "This agent has no skills yet — <a href='import'>Import skills…</a>"
DESCRIPTION_CHARS = 220  # of the chosen skill's description shown under the list
DESCRIPTION_LINES = 6  # the room under the list for the chosen skill's name and description
CHOOSE_TEXT = "Choose a skill to see its description and settings."
MODE_WORDS = {"agent": "Agent", "always": "Always", "manual": "Manual"}
WARNINGS_SHOWN = 5  # of the chosen skill's trust warnings, under its description (all in the tooltip)
WARNING_LINES = 9  # the most room they take before they scroll
# How the open chat holds the chosen skill, beside its include mode (its setting for new messages).
HOW_IN_CHAT = {
    "always": "In this chat: always on (include mode Always).",
    "added": "In this chat: added by you (Manual), whatever its include mode.",
    "loaded": "In this chat: loaded by the model (skills.load).",
}
ADD_TEXT = "Add to chat"
REMOVE_TEXT = "Remove from chat"


class SkillsSection(QWidget):
    include_requested = Signal(str, str)  # skill name, "agent" / "always" / "manual"
    enabled_requested = Signal(str, bool)
    view_requested = Signal(object)  # Path of the SKILL.md
    import_requested = Signal()
    add_to_chat_requested = Signal(str)  # skill name: into the open chat, with its body
    remove_from_chat_requested = Signal(str)
    agent_shown = Signal(object)  # Agent | None: its skills are listed (their warnings are wanted)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._agent: Agent | None = None
        self._chat: dict[str, str] | None = None  # how the open chat holds each skill; None: no chat
        self._showing = False  # the details are being filled: their signals are not the user's
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)

        header = QHBoxLayout()
        self.title = QLabel("Skills")
        self.title.setStyleSheet("font-weight: 600;")
        self.import_button = QToolButton()
        self.import_button.setText("Import…")
        self.import_button.setToolTip(
            "Import a skill folder, a folder of skills (.claude/skills, a cloned collection) or a project "
            "with AGENTS.md / CLAUDE.md into this agent"
        )
        self.import_button.clicked.connect(self.import_requested.emit)
        header.addWidget(self.title)
        header.addStretch(1)
        header.addWidget(self.import_button)
        layout.addLayout(header)

        self.search = QLineEdit()
        self.search.setPlaceholderText("Search skills by name or description")
        self.search.setClearButtonEnabled(True)
        self.search.setAccessibleName("Search skills")
        layout.addWidget(self.search)

        self.model = SkillsModel(parent=self)
        self.proxy = SkillFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self.search.textChanged.connect(self._search_changed)
        self.view = QListView()
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(SkillDelegate(self.view))
        self.view.setUniformItemSizes(True)  # a thousand rows lay out without measuring each
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.view.customContextMenuRequested.connect(self._menu)
        self.view.activated.connect(lambda index: self._view_file(index))
        self.view.selectionModel().currentChanged.connect(lambda *_: self._show_current())
        self.view.setMinimumHeight(120)
        self.view.setAccessibleName("Skills")
        layout.addWidget(self.view, 1)

        self.empty = QLabel(NO_SKILLS_TEXT)
        self.empty.setWordWrap(True)
        self.empty.setStyleSheet(f"color: {colors().muted}; padding: 4px;")
        self.empty.linkActivated.connect(lambda _link: self.import_requested.emit())
        # Right under the heading, not adrift in the room the list would take.
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        layout.addWidget(self.empty)

        self.details = QWidget()
        details = QVBoxLayout(self.details)
        details.setContentsMargins(0, 2, 0, 0)
        details.setSpacing(4)
        self.description = QLabel()
        self.description.setWordWrap(True)
        self.description.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.description.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        # Always as tall: choosing another skill moves nothing (the list keeps its place).
        self.description.setFixedHeight(self.description.fontMetrics().lineSpacing() * DESCRIPTION_LINES + 4)
        details.addWidget(self.description)
        self.warnings = QLabel()
        self.warnings.setWordWrap(True)
        self.warnings.setTextFormat(Qt.TextFormat.RichText)
        self.warnings.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.warnings.setStyleSheet(
            f"background-color: {colors().warning_background}; padding: 4px; border-radius: 4px;"
        )
        # A long list scrolls in its own box, so the warnings never push the skills list away.
        self.warnings_box = QScrollArea()
        self.warnings_box.setWidget(self.warnings)
        self.warnings_box.setWidgetResizable(True)
        self.warnings_box.setFrameShape(QFrame.Shape.NoFrame)
        self.warnings_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        line = self.warnings.fontMetrics().lineSpacing()
        self.warnings_box.setMaximumHeight(line * WARNING_LINES + 10)
        self.warnings_box.setMinimumHeight(line * 6 + 10)  # what was found shows, however tight
        self.warnings_box.hide()
        details.addWidget(self.warnings_box)
        settings_row = QHBoxLayout()
        # Its setting for new messages; how it got into the open chat is said above it.
        settings_row.addWidget(QLabel("Include mode"))
        self.include_box = QComboBox()
        for mode, words in INCLUDE_MODES:
            self.include_box.addItem(MODE_WORDS[mode], mode)
            self.include_box.setItemData(self.include_box.count() - 1, words, Qt.ItemDataRole.ToolTipRole)
        self.include_box.setToolTip(
            "How messages get this skill (saved in agent.yaml). Agent: offered when a message needs it. "
            "Always: in every request. Manual: only when added. A skill you added to a chat stays in it "
            "whatever its include mode."
        )
        self.include_box.currentIndexChanged.connect(self._include_chosen)
        self.enabled_box = QCheckBox("Enabled")
        self.enabled_box.setToolTip("A disabled skill is never offered to the model")
        self.enabled_box.toggled.connect(self._enabled_chosen)
        settings_row.addWidget(self.include_box)
        settings_row.addWidget(self.enabled_box)
        settings_row.addStretch(1)
        details.addLayout(settings_row)
        buttons = QHBoxLayout()
        self.chat_button = QPushButton(ADD_TEXT)
        self.chat_button.clicked.connect(self._toggle_chat)
        buttons.addWidget(self.chat_button)
        self.folder_button = QPushButton("Open folder")
        self.folder_button.clicked.connect(lambda: self._open_folder(self.view.currentIndex()))
        self.file_button = QPushButton("View SKILL.md")
        self.file_button.clicked.connect(lambda: self._view_file(self.view.currentIndex()))
        buttons.addWidget(self.folder_button)
        buttons.addWidget(self.file_button)
        buttons.addStretch(1)
        details.addLayout(buttons)
        layout.addWidget(self.details)
        layout.addStretch(0)  # takes the room only while the list is hidden
        self._show_counts()
        self._show_current()

    # --- the agent's skills -------------------------------------------------------------------

    def set_agent(self, agent: Agent | None) -> None:
        """List ``agent``'s skills (again after a reload, the chosen one still chosen)."""
        if agent is self._agent:
            return
        other = (agent is None) != (self._agent is None) or (
            agent is not None and self._agent is not None and agent.root != self._agent.root
        )
        self._agent = agent
        if other:  # another agent: a search or warnings for the last one would mislead
            self.model.set_rows([])
            self.search.clear()
        chosen = self.current_name()
        self.model.set_rows(skill_rows(agent.skills.values()) if agent is not None else [])
        self.model.set_in_chat(self._chat or {})
        if chosen is not None:
            self.select(chosen)
        self._show_counts()
        self._show_current()
        self.agent_shown.emit(agent)

    def set_warnings(self, warnings: Mapping[str, Sequence[Problem]]) -> None:
        """The trust warnings found for some skills (name -> warnings; empty: none found)."""
        self.model.set_warnings(
            {
                name: [warning_text(p) for p in sorted(found, key=lambda p: (str(p.path), p.line or 0))]
                for name, found in warnings.items()
            }
        )
        self._show_current()

    def set_chat_skills(self, states: Mapping[str, str] | None) -> None:
        """Mark the skills the open chat holds (name -> "always" / "added" / "loaded"); None when
        no chat is open (then none can be added)."""
        self._chat = None if states is None else dict(states)
        self.model.set_in_chat(self._chat or {})
        self._show_current()

    def select(self, name: str) -> bool:
        """Make skill ``name`` the chosen one (if the search shows it)."""
        row = self.model.row_of(name)
        if row is None:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return False
        self.view.setCurrentIndex(index)
        self.view.scrollTo(index, QAbstractItemView.ScrollHint.PositionAtCenter)
        return True

    def current_name(self) -> str | None:
        index = self.view.currentIndex()
        return str(index.data(SkillRole.NAME)) if index.isValid() else None

    def _search_changed(self, text: str) -> None:
        self.proxy.set_search(text)
        self._show_counts()
        self._show_current()

    def _show_counts(self) -> None:
        total, shown = self.model.rowCount(), self.proxy.rowCount()
        count = f"{shown:,} of {total:,}" if shown != total else f"{total:,}"
        self.title.setText(f"Skills  <span style='color:{colors().muted}'>{count}</span>")
        self.search.setVisible(total > 0)
        self.view.setVisible(shown > 0)
        if total == 0:
            self.empty.setText(NO_SKILLS_TEXT)
        else:
            self.empty.setText(f"No skill matches “{self.search.text().strip()}”.")
        self.empty.setVisible(shown == 0)

    # --- the chosen skill ---------------------------------------------------------------------

    def _show_current(self) -> None:
        index = self.view.currentIndex()
        self.details.setVisible(self.model.rowCount() > 0)
        for control in (self.include_box, self.enabled_box, self.file_button, self.folder_button):
            control.setEnabled(index.isValid())
        self._show_chat_button(index)
        if not index.isValid():
            self.description.setText(f"<span style='color:{colors().muted}'>{CHOOSE_TEXT}</span>")
            self.description.setToolTip("")
            self._show_warnings(())
            return
        self._showing = True
        title, folder = str(index.data(SkillRole.TITLE)), str(index.data(SkillRole.OTHER_FOLDER) or "")
        named = f"<b>{_escape(title)}</b>" + (f" <i>(folder skills/{_escape(folder)})</i>" if folder else "")
        in_chat = str(index.data(SkillRole.IN_CHAT) or "")
        if in_chat:
            named += f"<br>{_escape(HOW_IN_CHAT[in_chat])}"
        description = str(index.data(SkillRole.DESCRIPTION) or "No description.")
        # Descriptions run past 1,024 characters in real collections: the start here, all of it
        # in the tooltip, so the details never push the list out of the panel.
        shown = (
            description if len(description) <= DESCRIPTION_CHARS else description[:DESCRIPTION_CHARS] + "…"
        )
        self.description.setText(f"{named}<br><span style='color:{colors().muted}'>{_escape(shown)}</span>")
        self.description.setToolTip(description if shown != description else "")
        self._show_warnings(tuple(index.data(SkillRole.WARNINGS) or ()))
        self.include_box.setCurrentIndex(max(0, self.include_box.findData(index.data(SkillRole.INCLUDE))))
        self.enabled_box.setChecked(bool(index.data(SkillRole.ENABLED)))
        self.file_button.setEnabled(index.data(SkillRole.SKILL_FILE) is not None)
        self.folder_button.setEnabled(index.data(SkillRole.FOLDER) is not None)
        self._showing = False

    def _show_warnings(self, warnings: tuple[str, ...]) -> None:
        self.warnings_box.setVisible(bool(warnings))
        if not warnings:
            self.warnings.clear()
            self.warnings.setToolTip("")
            return
        count = len(warnings)
        items = "".join(f"<li>{_escape(warning)}</li>" for warning in warnings[:WARNINGS_SHOWN])
        more = count - WARNINGS_SHOWN
        rest = f"<br>…and {more} more (all in the tooltip, or `contextdesk agent check`)." if more > 0 else ""
        self.warnings.setText(
            f"<b>⚠ {count} trust warning{'s' if count != 1 else ''}</b>: read them before you add this skill "
            f"to a chat; if you do not trust where it came from, remove it.<ul style='margin: 0'>{items}</ul>{rest}"
        )
        self.warnings.setToolTip("\n\n".join(warnings) if more > 0 else "")

    def _include_chosen(self) -> None:
        name = self.current_name()
        if not self._showing and name is not None:
            self.set_include(name, str(self.include_box.currentData()))

    def _enabled_chosen(self, enabled: bool) -> None:
        name = self.current_name()
        if not self._showing and name is not None:
            self.set_enabled(name, enabled)

    def set_include(self, name: str, mode: str) -> None:
        """Show ``mode`` for skill ``name`` now and ask for it to be saved."""
        if self.model.update_row(name, include=mode):
            self.include_requested.emit(name, mode)
            self._show_current()

    def set_enabled(self, name: str, enabled: bool) -> None:
        if self.model.update_row(name, enabled=enabled):
            self.enabled_requested.emit(name, enabled)
            self._show_current()

    def _show_chat_button(self, index: QModelIndex) -> None:
        in_chat = str(index.data(SkillRole.IN_CHAT) or "") if index.isValid() else ""
        self.chat_button.setText(REMOVE_TEXT if in_chat else ADD_TEXT)
        enabled = index.isValid() and bool(index.data(SkillRole.ENABLED))
        self.chat_button.setEnabled(self._chat is not None and (bool(in_chat) or enabled))
        warned = index.isValid() and bool(index.data(SkillRole.WARNINGS))
        if self._chat is None:
            tip = "Open a chat to add skills to it"
        elif warned and not in_chat:
            tip = "This skill has trust warnings (above): read them before adding it to this chat"
        elif in_chat:
            tip = f"{IN_CHAT_WORDS[in_chat]}. Remove it: its instructions leave the chat's requests"
        elif index.isValid() and not enabled:
            tip = "A disabled skill cannot join a chat: tick Enabled first"
        else:
            tip = "Add it to this chat: its instructions go with every request until you remove it"
        self.chat_button.setToolTip(tip)

    def _toggle_chat(self) -> None:
        name = self.current_name()
        if name is None:
            return
        row = self.model.row_of(name)
        if row is not None and self.model.row_at(row).in_chat:
            self.remove_from_chat_requested.emit(name)
        else:
            self.add_to_chat_requested.emit(name)

    def _open_folder(self, index: QModelIndex) -> None:
        folder = index.data(SkillRole.FOLDER) if index.isValid() else None
        if isinstance(folder, Path):
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

    def _view_file(self, index: QModelIndex) -> None:
        path = index.data(SkillRole.SKILL_FILE) if index.isValid() else None
        if isinstance(path, Path):
            self.view_requested.emit(path)

    def _menu(self, position: QPoint) -> None:
        index = self.view.indexAt(position)
        if not index.isValid():
            return
        self.view.setCurrentIndex(index)
        self.menu_for(index).exec(self.view.viewport().mapToGlobal(position))

    def menu_for(self, index: QModelIndex) -> QMenu:
        """The context menu of the skill at ``index``."""
        name = str(index.data(SkillRole.NAME))
        menu = QMenu(self)
        if self._chat is not None:
            if index.data(SkillRole.IN_CHAT):
                menu.addAction(REMOVE_TEXT, lambda: self.remove_from_chat_requested.emit(name))
            else:
                add = menu.addAction(ADD_TEXT, lambda: self.add_to_chat_requested.emit(name))
                add.setEnabled(bool(index.data(SkillRole.ENABLED)))
            menu.addSeparator()
        menu.addAction("View SKILL.md", lambda: self._view_file(index))
        menu.addAction("Open folder", lambda: self._open_folder(index))
        menu.addSeparator()
        modes = QActionGroup(menu)
        for mode, words in INCLUDE_MODES:
            action = QAction(f"Included: {words}", menu)
            action.setCheckable(True)
            action.setChecked(index.data(SkillRole.INCLUDE) == mode)
            action.triggered.connect(lambda _checked=False, m=mode: self.set_include(name, m))
            modes.addAction(action)
            menu.addAction(action)
        enabled = bool(index.data(SkillRole.ENABLED))
        toggle = menu.addAction("Enabled")
        toggle.setCheckable(True)
        toggle.setChecked(enabled)
        toggle.triggered.connect(lambda _checked=False: self.set_enabled(name, not enabled))
        return menu


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
