"""The main window's menu bar: File, Chat, View, Agent and Help, with their keyboard shortcuts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMenu

if TYPE_CHECKING:
    from desktop.views.agents_menu import AgentsMenu
    from desktop.views.main_window import MainWindow

__all__ = ["build_menus"]

Shortcut = QKeySequence.StandardKey | str | None


def _action(
    window: MainWindow, menu: QMenu, text: str, slot: Callable[[], object], shortcut: Shortcut = None
) -> None:
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
    action.triggered.connect(lambda _checked=False: slot())
    menu.addAction(action)


def _panel_toggle(window: MainWindow, menu: QMenu, text: str, index: int, shortcut: str) -> None:
    """A ticked entry that opens or folds a side of the window, kept in step with dragging."""
    action = QAction(text, window)
    action.setCheckable(True)
    action.setShortcut(QKeySequence(shortcut))
    action.setChecked(window.panel_shown(index))
    action.toggled.connect(lambda shown: window.set_panel_shown(index, shown))
    window.splitter.splitterMoved.connect(lambda _pos, _i: action.setChecked(window.panel_shown(index)))
    menu.addAction(action)


def build_menus(window: MainWindow) -> AgentsMenu:
    """Fill ``window``'s menu bar; returns the File menu's agent entries (open, recent, import)."""
    from desktop.views.agents_menu import AgentsMenu  # with the agent importers: loaded only when needed

    bar = window.menuBar()
    file = bar.addMenu("&File")
    _action(window, file, "New chat", window.new_chat, QKeySequence.StandardKey.New)
    file.addSeparator()
    agents_menu = AgentsMenu(file, window.bridge, window.host, window)
    file.addSeparator()
    _action(
        window, file, "Preferences…", window.dialogs.show_preferences, QKeySequence.StandardKey.Preferences
    )
    _action(window, file, "Quit", window.close, QKeySequence.StandardKey.Quit)

    dialogs = window.dialogs
    chat = bar.addMenu("&Chat")
    _action(window, chat, "Search chats", window.session_panel.focus_search, "Ctrl+K")
    # Ctrl+Z in a text box still undoes typing there: the box takes the key before the window does.
    undo_delete = QAction("Undo delete chat", window)
    undo_delete.setShortcut(QKeySequence(QKeySequence.StandardKey.Undo))
    undo_delete.setEnabled(False)
    undo_delete.triggered.connect(lambda _checked=False: window.undo_note.undo())
    window.undo_note.pending_changed.connect(undo_delete.setEnabled)
    chat.addAction(undo_delete)
    _action(window, chat, "Focus the message box", window.focus_input, "Ctrl+L")
    _action(window, chat, "View Context of the last reply", dialogs.view_last_context, "Ctrl+I")
    _action(window, chat, "Compact the conversation", window.compact_chat, "Ctrl+Shift+K")
    chat.addSeparator()
    _action(window, chat, "Insert a prompt from a tool server…", dialogs.insert_prompt)
    _action(window, chat, "Attach a resource from a tool server…", dialogs.attach_resource)
    chat.addSeparator()
    _action(window, chat, "Stop the reply", window.stop_reply, "Esc")
    _action(
        window,
        chat,
        "Close chat tab",
        lambda: window.close_tab(window.tabs.currentIndex()),
        QKeySequence.StandardKey.Close,
    )

    view = bar.addMenu("&View")
    _panel_toggle(window, view, "Chat list", 0, "Ctrl+B")
    _panel_toggle(window, view, "Side panel (context, settings, memories)", 2, "Ctrl+Shift+B")

    agent = bar.addMenu("&Agent")
    _action(window, agent, "Rules, references, tools and providers…", window.open_manager, "Ctrl+,")
    _action(window, agent, "Import skills into this agent…", window.skill_dialogs.import_skills)
    _action(window, agent, "What selection learned…", dialogs.show_learned)
    _action(window, agent, "Reload agent files", window.host.reload_agent, "F5")

    help_menu = bar.addMenu("&Help")
    _action(window, help_menu, "Documentation", dialogs.show_help, QKeySequence.StandardKey.HelpContents)
    _action(window, help_menu, "About ContextDesk", dialogs.show_about)
    return agents_menu
