"""The main window: chats on the left, the conversation in the middle, the chat's context on the right."""

from __future__ import annotations

import logging
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QApplication,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.skill_files.hidden_text import escape_unseen
from agent_core.errors import ContextDeskError
from agent_core.providers.catalog import ModelChoices, model_choices
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.agent_watcher import AgentWatcher
from desktop.controllers.chat_controller import ChatController
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.settings import add_recent_agent, app_settings, open_tabs
from desktop.views.background_status import BackgroundWork
from desktop.views.chat_dialogs import ChatDialogs
from desktop.views.chat_list import ChatList
from desktop.views.chat_view import ChatView
from desktop.views.common import Banner
from desktop.views.composer import Composer
from desktop.views.context_panel import ContextPanel
from desktop.views.focus_ring import install_focus_ring
from desktop.views.main_menus import build_menus
from desktop.views.main_window_settings import AgentSettingsActions
from desktop.views.main_window_tabs import ChatTabs
from desktop.views.memories_panel import MemoriesPanel
from desktop.views.settings_panel import SettingsPanel
from desktop.views.skill_dialogs import SkillDialogs
from desktop.views.undo_note import UndoNote
from desktop.views.window_geometry import place_window

if TYPE_CHECKING:
    from agent_core.agent.agent import Agent
    from agent_core.store.chats import StoredSession
    from agent_core.workspace import Workspace
    from desktop.views.manage_window import ManageWindow
    from desktop.views.workflows_panel import WorkflowsPanel

__all__ = ["MainWindow", "agent_problems_text"]

logger = logging.getLogger(__name__)

PREFERRED_SIZE = QSize(1360, 860)  # on a first start, when the screen has room for it


def agent_problems_text(agent: Agent, known: Collection[str] = ()) -> str:
    """The banner's words for what is wrong in the agent's files ("" when nothing is); a problem
    not in ``known`` (descriptions already shown) is named first, so a file that just broke is."""
    described = [error.describe(agent.root) for error in agent.errors]
    if not described:
        return ""
    described.sort(key=lambda text: text in known)  # stable: the new ones first, each in its order
    more = f" (and {len(described) - 1} more)" if len(described) > 1 else ""
    return escape_unseen(f"Some agent files have problems: {described[0]}{more}")


class MainWindow(ChatTabs, AgentSettingsActions, QMainWindow):
    ready = Signal()  # the agent is open and a chat is shown, input focused
    input_ready = Signal()  # the window is shown and the message box has focus (maybe a draft one)

    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host
        self.controllers: dict[str, ChatController] = {}
        self.views: dict[str, ChatView] = {}
        self.model_choices: list[str] = []
        self.model_unlisted: dict[str, str] = {}  # provider -> why it listed no models
        self._models_generation = Generation()
        self._problems_shown = ""  # the agent's problems the banner last said ("" for none)
        self._problems_known: set[str] = set()  # each problem of the agent as last read
        self._models_listed_for: object = None  # the chat model and providers the lists are from
        self._manage_window: ManageWindow | None = None
        self._tabs_restored = False  # the open tabs of the last run are back (then they are saved)
        self.dialogs = ChatDialogs(self)
        self.setWindowTitle("ContextDesk")

        self.chat_list = ChatList(self)
        # The left column: the layout, the menus and the tests reach its model and panel by these names.
        self.sessions, self.session_panel = self.chat_list.model, self.chat_list.panel

        self.tabs = QTabWidget()
        self.tabs.setTabsClosable(True)
        self.tabs.setMovable(True)
        self.tabs.setDocumentMode(True)
        self.tabs.tabCloseRequested.connect(self.close_tab)
        self.tabs.currentChanged.connect(self._on_tab_changed)
        self.placeholder = QLabel("Opening the agent…")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # Usable before the agent has opened: what is typed here moves into the first chat,
        # and a message sent meanwhile is sent as soon as that chat exists.
        self.draft = Composer()
        self.draft.submitted.connect(self._queue_draft)
        self._queued_text: str | None = None

        self.context_panel = ContextPanel()
        self.context_panel.attach_resource_requested.connect(self.dialogs.attach_resource)
        self.skill_dialogs = SkillDialogs(self.context_panel.skills, bridge, host, self)
        self.settings_panel = SettingsPanel()
        self.settings_panel.save_default_requested.connect(self._save_defaults)
        self.side_tabs = QTabWidget()
        self.side_tabs.setDocumentMode(True)
        # Scrolls when its sections need more height than the screen has (many tools and the
        # Skills section): the window never grows past its screen to hold them.
        self.context_scroll = QScrollArea()
        self.context_scroll.setWidgetResizable(True)
        self.context_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        self.context_scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.context_scroll.setWidget(self.context_panel)
        # Choosing a skill brings its settings and buttons (under the list) into view.
        skills = self.context_panel.skills
        skills.view.selectionModel().currentChanged.connect(
            lambda *_: self.context_scroll.ensureWidgetVisible(skills.details, 0, 0)
        )
        self.side_tabs.addTab(self.context_scroll, "Context")
        self.side_tabs.addTab(self.settings_panel, "Chat settings")
        self.memories_panel = MemoriesPanel()
        self.side_tabs.addTab(self.memories_panel, "Memories")

        centre = QWidget()
        centre_layout = QVBoxLayout(centre)
        centre_layout.setContentsMargins(0, 0, 0, 0)
        centre_layout.setSpacing(0)
        centre_layout.addWidget(self.placeholder, 1)
        centre_layout.addWidget(self.tabs, 1)
        draft_row = QVBoxLayout()
        draft_row.setContentsMargins(16, 8, 16, 12)
        draft_row.addWidget(self.draft)
        centre_layout.addLayout(draft_row)
        self.tabs.hide()

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.session_panel)
        self.splitter.addWidget(centre)
        self.splitter.addWidget(self.side_tabs)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([260, 760, 340])
        # The chat list and the side panel fold away (View menu, or dragging them shut) so a small
        # window gives the chat the room; the chat itself never does.
        self.splitter.setChildrenCollapsible(True)
        self.splitter.setCollapsible(1, False)
        self._panel_widths = {0: 260, 2: 340}  # what a folded panel opens to again

        root = QWidget()
        root_layout = QVBoxLayout(root)
        root_layout.setContentsMargins(0, 0, 0, 0)
        root_layout.setSpacing(0)
        self.banner = Banner()
        root_layout.addWidget(self.banner)
        root_layout.addWidget(self.splitter, 1)
        self.setCentralWidget(root)

        self.background = BackgroundWork(bridge, host, self.statusBar(), self)
        # A reply waiting for the index or for the local model to load says so in its row.
        self.background.indexing.progressed.connect(
            lambda done, total: self._note_waiting(
                f"Waiting for the index: {done:,} of {total:,} chunks…", True
            )
        )
        self.background.warmup.loading.connect(lambda _ref: self._note_waiting("Loading the model…", False))
        self.tools_status = QLabel()
        self.statusBar().addPermanentWidget(self.tools_status)
        self.undo_note = UndoNote()  # "Deleted “…”. Undo": first in the status bar, moving nothing
        self.statusBar().insertWidget(0, self.undo_note)

        self.watcher = AgentWatcher(self)
        self.watcher.changed.connect(self.host.reload_agent)
        host.opened.connect(self._on_opened)
        host.open_failed.connect(self._on_open_failed)
        host.agent_changed.connect(self._on_agent_changed)
        host.servers_changed.connect(self._on_servers)
        self.agents_menu = build_menus(self)
        self._restore_layout()
        # Tab moves between the parts of the window; a table's cells are walked with the arrows.
        for table in self.findChildren(QTableView):
            table.setTabKeyNavigation(False)
        app = QApplication.instance()
        if isinstance(app, QApplication):
            install_focus_ring(app)

    # --- opening the agent --------------------------------------------------------------------

    @property
    def workspace(self) -> Workspace | None:
        return self.host.workspace

    def _on_opened(self, workspace: Workspace) -> None:
        self._tabs_restored = False  # until the saved tabs are back, closing old ones saves nothing
        for session_id in list(self.controllers):
            self.drop_tab(session_id)
        self.banner.hide()
        self.undo_note.forget()  # a delete still waiting was of the agent now closed: that chat stays
        agent = workspace.agent
        self.setWindowTitle(f"{agent.name} — ContextDesk")
        add_recent_agent(agent.root)
        self.watcher.watch(agent.root)
        self._problems_shown = ""
        self._problems_known = set()
        self._show_agent_problems(agent)

        def listed(sessions: list[StoredSession]) -> None:
            mine = [s for s in sessions if s.agent_path == str(agent.root)]
            self.chat_list.show_sessions(mine)
            known = {s.id for s in mine}
            saved, current = open_tabs(agent.root)
            reopened = [session_id for session_id in saved if session_id in known]
            if reopened:  # the tabs that were open when the app closed
                self._reopen_tabs(reopened, current)
                return
            if mine:
                self.open_chat(mine[0].id)
            else:
                self.new_chat()
            self._tabs_restored = True
            self._remember_tabs()

        self.bridge.call(workspace.store.sessions, on_result=listed, on_error=self.show_error)
        self._load_models(workspace)
        self.memories_panel.bind(self.bridge, workspace)
        self.background.agent_opened()
        if self._manage_window is not None:
            self._manage_window.bind_workspace(workspace)

    def _show_agent_problems(self, agent: Agent) -> None:
        """The banner says what is wrong in the agent's files after every (re)load: a file that
        breaks while the app is open shows at once, and the banner goes when it is fixed. The same
        problems, dismissed, do not come back on the next reload; another message is left alone."""
        text = agent_problems_text(agent, self._problems_known)
        self._problems_known = {error.describe(agent.root) for error in agent.errors}
        if text == self._problems_shown:
            return
        showing_ours = self.banner.isVisibleTo(self) and self.banner.text() == self._problems_shown
        self._problems_shown = text
        if text:
            self.banner.show_message(text, level="warning")
        elif showing_ours:
            self.banner.hide()

    def _on_open_failed(self, message: str) -> None:
        self.placeholder.setText("The agent could not be opened.")
        self.banner.show_message(message, level="error")

    def _on_agent_changed(self, agent: Any) -> None:
        for controller in self.controllers.values():
            controller.set_agent(agent)
        for view in self.views.values():
            view.agent_label.setText(agent.name)
            self._note_workspace_folder(view)
        self.setWindowTitle(f"{agent.name} — ContextDesk")
        self._show_agent_problems(agent)
        self._update_mentions()
        self.background.agent_reloaded()
        self.background.chat_shown(self.current_controller())
        if self.workspace is not None:
            self._load_models(self.workspace, only_if_changed=True)  # a provider added in Providers
        self.context_panel.refresh()
        self.settings_panel.load()
        if self._manage_window is not None:
            self._manage_window.agent_reloaded(agent)

    def _load_models(self, workspace: Workspace, *, only_if_changed: bool = False) -> None:
        """Fill the model boxes with what each provider lists, asked on the core thread (a slow
        provider never holds the window); a newer request's lists win over an older one's."""
        config = workspace.agent.config
        listed_for = (config.chat.model, config.providers)
        if only_if_changed and listed_for == self._models_listed_for:
            return
        self._models_listed_for = listed_for
        token = self._models_generation.next()

        def done(choices: ModelChoices) -> None:
            if not self._models_generation.is_current(token):
                return
            self.model_choices, self.model_unlisted = choices.models, choices.unlisted
            for view in self.views.values():
                view.set_models(choices.models, choices.unlisted)

        choices = model_choices(workspace.agent.config, workspace.providers.resolve)
        self.bridge.submit(choices, done, lambda e: logger.warning("model lists failed: %s", e))

    def _on_servers(self, statuses: list[Any]) -> None:
        counts: dict[str, int] = {}
        for status in statuses:
            counts[status.state.value] = counts.get(status.state.value, 0) + 1
        text = ", ".join(f"{n} {state}" for state, n in sorted(counts.items()))
        self.tools_status.setText(f"Tool servers: {text}" if text else "No tool servers")
        self.background.tools_changed()
        self.context_panel.refresh()
        if self._manage_window is not None:
            self._manage_window.servers_changed(statuses)

    # --- the mentions of the chats -----------------------------------------------------------

    def _mentions(self) -> dict[str, str]:
        """What ``@`` offers in the message box, with each item's description."""
        agent = self.workspace.agent if self.workspace else None
        if agent is None:
            return {}
        return {
            **{f"@rule:{n}": agent.rules[n].description for n in sorted(agent.rules)},
            **{f"@ref:{n}": agent.references[n].description for n in sorted(agent.references)},
        }

    def _update_mentions(self) -> None:
        mentions = self._mentions()
        for view in self.views.values():
            view.composer.set_mentions(mentions)

    def _note_waiting(self, activity: str, before_context: bool) -> None:
        for controller in self.controllers.values():
            if controller.busy:
                controller.conversation.note_waiting(activity, before_context=before_context)

    # --- management window --------------------------------------------------------------------

    def open_manager(self, tab: str | None = None) -> None:
        manager = self._manager()
        if tab:
            manager.show_tab(tab)
        manager.show()
        manager.raise_()
        manager.activateWindow()

    def workflows_panel(self) -> WorkflowsPanel:
        """The Workflows panel (its window made, not shown): it opens run views for the chat too."""
        return self._manager().workflows

    def _manager(self) -> ManageWindow:
        from desktop.views.manage_window import ManageWindow as Window

        if self._manage_window is None:
            self._manage_window = Window(self.bridge, self.host, self)
            self._manage_window.tools.model_choices = lambda: self.model_choices
            self._manage_window.subagents.transcript_requested.connect(self.dialogs.show_transcript)
            self._manage_window.workflows.transcript_requested.connect(self.dialogs.show_transcript)
            if self.workspace is not None:
                self._manage_window.bind_workspace(self.workspace)
        return self._manage_window

    # --- errors, layout, closing --------------------------------------------------------------

    def show_error(self, error: BaseException) -> None:
        text = str(error) if isinstance(error, ContextDeskError) else f"Something went wrong: {error!r}"
        if not isinstance(error, ContextDeskError):
            logger.error("core call failed", exc_info=error)
        self.banner.show_message(text, level="error")

    def _restore_layout(self) -> None:
        settings = app_settings()
        place_window(self, PREFERRED_SIZE, settings.value("window/geometry"))
        splitter = settings.value("window/splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)
            self.splitter.splitterMoved.emit(0, 0)  # the View menu's ticks follow

    def panel_shown(self, index: int) -> bool:
        """Whether the chat list (0) or the side panel (2) is open."""
        return self.splitter.sizes()[index] > 0

    def set_panel_shown(self, index: int, shown: bool) -> None:
        sizes = self.splitter.sizes()
        if shown == (sizes[index] > 0):
            return
        if shown:
            width = self._panel_widths[index]
            sizes[1] = max(sizes[1] - width, 1)
            sizes[index] = width
        else:
            self._panel_widths[index] = sizes[index]
            sizes[1] += sizes[index]
            sizes[index] = 0
        self.splitter.setSizes(sizes)
        self.splitter.splitterMoved.emit(0, 0)  # the View menu's ticks follow

    def save_layout(self) -> None:
        settings = app_settings()
        settings.setValue("window/geometry", self.saveGeometry())
        settings.setValue("window/splitter", self.splitter.saveState())
        settings.sync()

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self.draft.isVisible() and not self.controllers:
            self.draft.setFocus(Qt.FocusReason.OtherFocusReason)
            QTimer.singleShot(0, self.input_ready.emit)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        self.undo_note.flush()  # a delete waiting for undo happens now
        for controller in self.controllers.values():
            controller.stop()
        if self._manage_window is not None:
            self._manage_window.close()
        super().closeEvent(event)
