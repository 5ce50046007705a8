"""The main window's chat list: the open agent's saved chats, kept in order as they are used,
searched, renamed in place, and deleted with time to undo (a note in the status bar, and Ctrl+Z)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from desktop.bridge import Generation
from desktop.controllers.chat_controller import ChatController
from desktop.models.sessions import SessionListModel, SessionRow, rows_for_search
from desktop.views.session_list import SessionListPanel
from desktop.views.undo_note import short_title

if TYPE_CHECKING:
    from agent_core.store.chats import StoredSession
    from desktop.views.main_window import MainWindow

__all__ = ["ChatList"]


class ChatList:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.model = SessionListModel(window)
        self.model.rename_requested.connect(self._rename)
        self.panel = SessionListPanel(self.model)
        self.panel.open_requested.connect(window.open_chat)
        self.panel.new_requested.connect(window.new_chat)
        self.panel.delete_requested.connect(self.delete)
        self.panel.search_changed.connect(self._search)
        self._search_generation = Generation()
        self._pending_delete: str | None = None

    def show_sessions(self, sessions: Sequence[StoredSession]) -> None:
        self.model.set_rows([SessionRow.of(s) for s in sessions])

    def select(self, session_id: str) -> None:
        self.panel.select_session(session_id)

    def add(self, session_id: str, title: str) -> None:
        """A chat just opened: listed (at the top) unless it already is."""
        if self.model.row_of(session_id) is None:
            self.model.upsert(SessionRow(session_id, title, time.time()))
        self.select(session_id)

    def used(self, controller: ChatController) -> None:
        """A chat was used: it moves to the top (not while a search result is shown)."""
        if not self.panel.search.text().strip():
            self.model.upsert(SessionRow(controller.id, controller.title, time.time()))
            self.select(controller.id)

    def set_title(self, session_id: str, title: str) -> None:
        self.model.set_title(session_id, title)

    def _rename(self, session_id: str, title: str) -> None:
        window = self.window
        controller = window.controllers.get(session_id)
        if controller is not None:
            controller.rename(title)
            return
        workspace = window.workspace
        if workspace is not None:
            window.bridge.call(
                lambda: workspace.store.update_session(session_id, title=title), on_error=window.show_error
            )

    def delete(self, session_id: str) -> None:
        """Remove the chat from the list at once; it is deleted for good unless undone in time."""
        window = self.window
        workspace = window.workspace
        if workspace is None:
            return
        window.undo_note.flush()  # the previous delete is carried out: one waits at a time
        removed = self.model.remove(session_id)
        if removed is None:
            return
        position, row = removed
        was_open = session_id in window.views
        if was_open:
            window.drop_tab(session_id)
            if window.tabs.count() == 0:
                window.new_chat()

        def undo() -> None:
            self._pending_delete = None
            self.model.restore(position, row)
            if was_open:
                window.open_chat(session_id)

        def commit() -> None:
            self._pending_delete = None
            window.bridge.call(workspace.store.delete_session, session_id, on_error=window.show_error)

        self._pending_delete = session_id
        title = short_title(row.title or "Untitled chat")
        window.undo_note.offer(f"Deleted “{title}”.", undo=undo, commit=commit)

    def _search(self, text: str) -> None:
        workspace = self.window.workspace
        if workspace is None:
            return
        token = self._search_generation.next()
        root = str(workspace.agent.root)

        def run() -> list[SessionRow]:
            sessions = [
                s for s in workspace.store.sessions() if s.agent_path == root and s.id != self._pending_delete
            ]
            if not text:
                return [SessionRow.of(s) for s in sessions]
            return rows_for_search(text, sessions, workspace.store.search(text))

        def done(rows: list[SessionRow]) -> None:
            if self._search_generation.is_current(token):
                self.model.set_rows(rows)
                self.panel.show_results_for(text)

        self.window.bridge.call(run, on_result=done, on_error=self.window.show_error)
