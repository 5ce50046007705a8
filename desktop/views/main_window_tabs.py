"""The main window's chat tabs: a chat opened, made or closed as a tab (its view and controller
wired to the window), the tabs open when the app closed opened again, and the current chat's
Stop, Compact and focus."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QTabWidget, QWidget

from desktop.bridge import CoreBridge
from desktop.controllers.chat_controller import ChatController
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.mcp_apps.chat_apps import ChatApps
from desktop.settings import save_open_tabs
from desktop.views.background_status import BackgroundWork
from desktop.views.chat_dialogs import ChatDialogs
from desktop.views.chat_list import ChatList
from desktop.views.chat_view import ChatView
from desktop.views.common import Banner
from desktop.views.composer import Composer
from desktop.views.context_panel import ContextPanel
from desktop.views.memories_panel import MemoriesPanel
from desktop.views.settings_panel import SettingsPanel

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance
    from PySide6.QtWidgets import QLabel

    from agent_core.chat.session import ChatSession
    from agent_core.workspace import Workspace

__all__ = ["ChatTabs"]


class ChatTabs:
    """Part of MainWindow (a mixin): what it keeps of the chats, and the methods on them."""

    bridge: CoreBridge
    host: WorkspaceHost
    controllers: dict[str, ChatController]
    views: dict[str, ChatView]
    model_choices: list[str]
    model_unlisted: dict[str, str]
    dialogs: ChatDialogs
    chat_list: ChatList
    tabs: QTabWidget
    side_tabs: QTabWidget
    placeholder: QLabel
    draft: Composer
    banner: Banner
    context_panel: ContextPanel
    settings_panel: SettingsPanel
    memories_panel: MemoriesPanel
    background: BackgroundWork
    _queued_text: str | None
    _tabs_restored: bool

    if TYPE_CHECKING:
        ready: SignalInstance

        @property
        def workspace(self) -> Workspace | None: ...

        def show_error(self, error: BaseException) -> None: ...

        def choose_workspace_folder(self) -> None: ...

        def _note_workspace_folder(self, view: ChatView) -> None: ...

        def _mentions(self) -> dict[str, str]: ...

    def _window(self) -> QWidget:
        """The window this is part of, as the parent of what it makes."""
        return cast(QWidget, self)

    # --- opening and closing chats ------------------------------------------------------------

    def _reopen_tabs(self, session_ids: list[str], front: str | None) -> None:
        """Open the saved tabs in their order, one after another (each is a worker call whose
        answers could otherwise come back in any order), then bring ``front`` forward."""
        workspace = self.workspace
        if not session_ids or workspace is None:
            if front is not None and front in self.views:
                self.tabs.setCurrentWidget(self.views[front])
                self.focus_input()
            self._tabs_restored = True
            self._remember_tabs()
            return
        first, rest = session_ids[0], session_ids[1:]

        def opened(session: ChatSession) -> None:
            self._add_tab(session)
            self._reopen_tabs(rest, front)

        def failed(error: BaseException) -> None:
            self.show_error(error)
            self._reopen_tabs(rest, front)

        self.bridge.call(workspace.open_chat, first, on_result=opened, on_error=failed)

    def current_controller(self) -> ChatController | None:
        view = self.tabs.currentWidget()
        return view.controller if isinstance(view, ChatView) else None

    def current_view(self) -> ChatView | None:
        view = self.tabs.currentWidget()
        return view if isinstance(view, ChatView) else None

    def new_chat(self) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        current = self.current_controller()
        if current is not None and current.conversation.rowCount() == 0 and not current.busy:
            self.focus_input()
            return
        self.bridge.call(workspace.new_chat, on_result=self._add_tab, on_error=self.show_error)

    def open_chat(self, session_id: str) -> None:
        if session_id in self.views:
            self.tabs.setCurrentWidget(self.views[session_id])
            self.focus_input()
            return
        workspace = self.workspace
        if workspace is None:
            return
        self.bridge.call(workspace.open_chat, session_id, on_result=self._add_tab, on_error=self.show_error)

    def _add_tab(self, session: ChatSession) -> None:
        if session.id in self.views:
            self.tabs.setCurrentWidget(self.views[session.id])
            return
        controller = ChatController(self.bridge, session, self._window())
        controller.apps = ChatApps(
            self.bridge, session, lambda: self.host.mcp, controller.conversation, controller
        )
        view = ChatView(controller, session.agent.name)
        view.view_context_requested.connect(
            lambda entry, c=controller: self.dialogs.show_context(entry.context, entry.message_id, c)
        )
        view.transcript_requested.connect(self.dialogs.show_transcript)
        view.workspace_requested.connect(self.choose_workspace_folder)
        self._note_workspace_folder(view)
        view.new_chat_requested.connect(self.new_chat)
        view.prompt_requested.connect(self.dialogs.insert_prompt)
        view.resource_open_requested.connect(
            lambda resource, c=controller: self.dialogs.open_result_resource(resource, c)
        )
        view.resource_attach_requested.connect(
            lambda resource, c=controller: self.dialogs.attach_result_resource(resource, c)
        )
        controller.title_changed.connect(lambda title, c=controller: self._on_title(c, title))
        controller.activity.connect(lambda c=controller: self.chat_list.used(c))
        controller.settings_changed.connect(lambda c=controller: self._on_chat_settings(c))
        controller.memories.changed.connect(lambda _memory: self.memories_panel.refresh())
        controller.memories_touched.connect(self.memories_panel.refresh)
        self.controllers[session.id] = controller
        self.views[session.id] = view
        if self.model_choices:
            view.set_models(self.model_choices, self.model_unlisted)
        view.composer.set_mentions(self._mentions())
        self.placeholder.hide()
        self.tabs.show()
        if not self.draft.isHidden() or self._queued_text is not None:
            typed = self.draft.toPlainText()
            self.draft.hide()
            if self._queued_text is not None:
                text, self._queued_text = self._queued_text, None
                QTimer.singleShot(0, view, lambda: view.submit(text))
            elif typed:
                view.composer.setPlainText(typed)
                view.composer.moveCursor(view.composer.textCursor().MoveOperation.End)
        index = self.tabs.addTab(view, _tab_title(session.title))
        # A chat made after the window joins the end of the Tab order; put it where it is seen:
        # chats, the chat (model, transcript, message box, Send), then the side panel.
        QWidget.setTabOrder(self.tabs.tabBar(), view.model_picker)
        QWidget.setTabOrder(view.stop_button, self.side_tabs)
        self.tabs.setCurrentIndex(index)
        controller.load_history()
        self.chat_list.add(session.id, session.title)
        self.focus_input()
        self.ready.emit()

    def _queue_draft(self, text: str) -> None:
        self._queued_text = text
        self.draft.setReadOnly(True)
        self.placeholder.setText("Opening the agent… your message is sent as soon as it is open.")

    def close_tab(self, index: int) -> None:
        view = self.tabs.widget(index)
        if (
            self.tabs.count() == 1
            and isinstance(view, ChatView)
            and view.controller.conversation.rowCount() == 0
            and not view.controller.busy
        ):
            # The only chat, and empty: closing it would open another empty one (and list it as
            # another "New chat" each time). It is already what a closed tab gives.
            self.focus_input()
            return
        if isinstance(view, ChatView):
            view.controller.close()
            self.drop_tab(view.controller.id)
        if self.tabs.count() == 0:
            self.new_chat()
        self._remember_tabs()

    def drop_tab(self, session_id: str) -> None:
        view = self.views.pop(session_id, None)
        controller = self.controllers.pop(session_id, None)
        if view is not None:
            self.tabs.removeTab(self.tabs.indexOf(view))
            view.deleteLater()
        if controller is not None:
            controller.deleteLater()

    def _remember_tabs(self) -> None:
        workspace = self.workspace
        if workspace is None or not self._tabs_restored:
            return
        ids = [
            view.controller.id
            for i in range(self.tabs.count())
            if isinstance(view := self.tabs.widget(i), ChatView)
        ]
        current = self.current_controller()
        save_open_tabs(workspace.agent.root, ids, current.id if current is not None else "")

    def _on_tab_changed(self, _index: int) -> None:
        self._remember_tabs()
        controller = self.current_controller()
        self.context_panel.bind(controller, self.host.tools.tools)
        self.settings_panel.bind(controller)
        if controller is not None:
            self.chat_list.select(controller.id)
        # After this event: the chat is shown and its message box usable before any loading starts.
        QTimer.singleShot(0, self._window(), lambda: self.background.chat_shown(self.current_controller()))

    def _on_chat_settings(self, controller: ChatController) -> None:
        if controller is self.current_controller():
            self.background.chat_shown(controller)

    def _on_title(self, controller: ChatController, title: str) -> None:
        view = self.views.get(controller.id)
        if view is not None:
            self.tabs.setTabText(self.tabs.indexOf(view), _tab_title(title))
            self.tabs.setTabToolTip(self.tabs.indexOf(view), title)
        self.chat_list.set_title(controller.id, title)

    # --- the current chat -----------------------------------------------------------------------

    def compact_chat(self) -> None:
        view = self.current_view()
        if view is not None:
            view.compact()

    def stop_reply(self) -> None:
        controller = self.current_controller()
        if controller is not None:
            controller.stop()

    def focus_input(self) -> None:
        view = self.current_view()
        if view is not None:
            view.focus_input()


def _tab_title(title: str) -> str:
    title = title or "New chat"
    return title if len(title) <= 28 else title[:27] + "…"
