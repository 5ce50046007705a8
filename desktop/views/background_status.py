"""The open agent's slow background steps, with their progress in the status bar.

Three steps can take long enough to notice: loading the embedding model, embedding the agent's
agent-mode items, and loading a chat's local (llama.cpp) model. Each has a non-modal
:class:`StatusIndicator` that appears only when its step takes longer than ~300 ms.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QStatusBar

from agent_core.errors import SelectionUnavailableError
from desktop.bridge import CoreBridge
from desktop.controllers.agent_indexing import AgentIndexing
from desktop.controllers.chat_controller import ChatController
from desktop.controllers.model_warmup import ModelWarmup
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.views.status_indicator import StatusIndicator

if TYPE_CHECKING:
    from agent_core.context.selection import IndexingDone

__all__ = ["EMBEDDING_START_DELAY_MS", "BackgroundWork"]

EMBEDDING_START_DELAY_MS = 800  # after the window is up, so loading never competes with startup
EMBEDDING_POLL_MS = 300
INDEX_DEBOUNCE_MS = 500  # servers report one by one as they start: index once they settle
BODIES_DETAIL = (
    "Messages are answered meanwhile: an item whose body is not in yet is judged on its description "
    "(a skill on its description as a whole)"
)


class BackgroundWork(QObject):
    def __init__(
        self, bridge: CoreBridge, host: WorkspaceHost, status_bar: QStatusBar, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host
        self.embedding_status = StatusIndicator()
        self.index_status = StatusIndicator()
        self.model_status = StatusIndicator()
        for indicator in (self.model_status, self.embedding_status, self.index_status):
            status_bar.addWidget(indicator, 1)
        self._embedding_started = False
        self._embedding_timer = QTimer(self)
        self._embedding_timer.setInterval(EMBEDDING_POLL_MS)
        self._embedding_timer.timeout.connect(self._poll_embedding)
        self._index_timer = QTimer(self)
        self._index_timer.setSingleShot(True)
        self._index_timer.setInterval(INDEX_DEBOUNCE_MS)
        self._index_timer.timeout.connect(self._index_now)

        self.indexing = AgentIndexing(bridge, self)
        self.indexing.started.connect(
            lambda count: self.index_status.start(
                f"Indexing {count:,} agent item{'' if count == 1 else 's'}…"
            )
        )
        self.indexing.progressed.connect(
            lambda done, total: self.index_status.start(f"Indexing the agent: {done:,} of {total:,} chunks…")
        )
        self.indexing.finished.connect(self._indexed)
        self.indexing.bodies_progressed.connect(self._bodies_progressed)
        self.indexing.bodies_finished.connect(
            lambda chunks: self.index_status.finish(
                f"Agent items indexed ({self._follows}: {chunks:,} chunks, in the background)"
            )
        )
        self.indexing.failed.connect(
            lambda reason: self.index_status.fail(
                "Indexing the agent's items failed (retried on the next message)", reason
            )
        )
        self.warmup = ModelWarmup(bridge, self)
        self.warmup.loading.connect(self._model_loading)
        self.warmup.loaded.connect(lambda _ref: self.model_status.finish("Local model ready"))
        self.warmup.failed.connect(self._model_failed)
        self._failed_model = ""  # the model the failure shown is about ("" when none is shown)
        self._described = 0  # items indexed on their descriptions while their bodies follow
        self._follows: str = "bodies"  # what follows them: bodies, skills' sentences, or both

    # --- what the window tells it -------------------------------------------------------------

    def agent_opened(self) -> None:
        self.warmup.reset()
        self.indexing.drop()
        self._described = 0
        self._follows = "bodies"
        self._index_timer.stop()
        for indicator in (self.index_status, self.model_status):
            indicator.finish()  # hides what was about the previous agent
        self._embedding_started = False
        QTimer.singleShot(EMBEDDING_START_DELAY_MS, self, self._start_embedding)

    def agent_reloaded(self) -> None:
        """The agent's files changed: its items (and maybe its providers) may be new."""
        self.warmup.reset()
        self.tools_changed()

    def tools_changed(self) -> None:
        if self._embedding_started:
            self._index_timer.start()

    def chat_shown(self, controller: ChatController | None) -> None:
        """Load the chat's model ahead of its first message when it is a local one."""
        workspace = self.host.workspace
        model = controller.session.chat_settings.model if controller is not None else ""
        if self._failed_model and self._failed_model != model and self.model_status.failed:
            # The failure is about a model this chat no longer uses: it no longer says anything true.
            self._failed_model = ""
            self.model_status.finish()
        if controller is not None and workspace is not None:
            self.warmup.warm(workspace.providers, model)

    # --- embedding model ----------------------------------------------------------------------

    def _start_embedding(self) -> None:
        workspace = self.host.workspace
        if workspace is None:
            return
        self._embedding_started = True
        self.bridge.call(workspace.selector.start_loading)
        self.embedding_status.start("Loading the embedding model…")
        self._embedding_timer.start()
        self._index_now()  # waits for the model on the core thread, then embeds

    def _poll_embedding(self) -> None:
        workspace = self.host.workspace
        if workspace is None:
            self._embedding_timer.stop()
            return
        try:
            ready = workspace.selector.model_ready()
        except SelectionUnavailableError as error:
            self._embedding_timer.stop()
            self.embedding_status.fail("Embedding model failed: agent items are not chosen", str(error))
            return
        if ready:
            self._embedding_timer.stop()
            self.embedding_status.finish("Embedding model ready")

    # --- indexing -----------------------------------------------------------------------------

    def _index_now(self) -> None:
        workspace = self.host.workspace
        if workspace is not None:
            self.indexing.index(workspace, self.host.tools.tools())

    def _indexed(self, done: IndexingDone) -> None:
        if done.bodies_left:  # a large agent: its messages are answered now, on the descriptions
            self._described = done.items
            self._follows = done.follows
            self._bodies_progressed(0, done.bodies_lacking)
            return
        self._described = 0
        self.index_status.finish(f"Agent items indexed ({done.embedded} new chunks, {done.seconds:.1f} s)")

    def _bodies_progressed(self, done: int, total: int) -> None:
        bodies = f"{self._follows} in the background: {done:,} of {total:,} chunks"
        if self._described:
            count = self._described
            text = f"Descriptions indexed ({count:,} item{'' if count == 1 else 's'}); {bodies}"
        else:  # a selection started them (the agent changed since it was indexed)
            text = f"Agent items: {bodies}"
        self.index_status.start(text, detail=BODIES_DETAIL)

    # --- local model --------------------------------------------------------------------------

    def _model_failed(self, model_ref: str, reason: str) -> None:
        self._failed_model = model_ref
        self.model_status.fail("The local model could not load", reason)

    def _model_loading(self, model_ref: str) -> None:
        self.model_status.start(
            "Loading the local model…", detail=f"Loading {model_ref}; a message sent now waits for it"
        )
