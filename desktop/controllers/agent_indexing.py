"""Embed the open agent's agent-mode items in the background, so the first message does not wait.

Runs after the embedding model has started loading, and again when the agent or its tools change
(embeddings are cached by text, so a re-run only embeds what is new). ``started`` follows only once
the model is ready and the embedding itself begins: the model's own load has its own progress.

A large agent is indexed in tiers (``ContextSelector.index_ahead``): ``finished`` comes once the
descriptions are in (a message is then answered at once), and the bodies follow on the indexer's
background worker, reported by ``bodies_progressed`` and ``bodies_finished``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from agent_core.context.selection import BodiesProgress, IndexingDone
from agent_core.context.session_context import agent_candidates
from agent_core.errors import SelectionUnavailableError
from agent_core.tools.runtime import ToolDescriptor
from desktop.bridge import CoreBridge, Generation

if TYPE_CHECKING:
    from agent_core.workspace import Workspace

__all__ = ["AgentIndexing"]


class AgentIndexing(QObject):
    started = Signal(int)  # how many items are being indexed
    progressed = Signal(int, int)  # chunks embedded so far, chunks to embed (large agents, cold)
    finished = Signal(object)  # IndexingDone (its bodies_left: items whose bodies follow)
    bodies_progressed = Signal(int, int)  # body chunks embedded in the background so far, to embed
    bodies_finished = Signal(int)  # every body is in (how many chunks the background embedded)
    failed = Signal(str)  # why embedding failed

    def __init__(self, bridge: CoreBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._generation = Generation()
        # The background may report before indexing ahead has (two threads): its reports wait
        # until ``finished`` has gone out, so the last word is always the background's.
        self._ahead_done = False
        self._held: BodiesProgress | None = None

    def index(self, workspace: Workspace, tools: Sequence[ToolDescriptor]) -> None:
        """Index the agent-mode rules, references and tools of ``workspace`` (results of an older
        request are dropped)."""
        token = self._generation.next()
        self._ahead_done, self._held = False, None
        agent = workspace.agent
        candidates = agent_candidates(agent, (), tools)
        if not candidates:
            return
        selector, config = workspace.selector, agent.config.selection

        async def run() -> IndexingDone | None:
            if not await selector.wait_for_model():
                return None  # the model did not load: its own status says so, and why
            if self._generation.is_current(token):
                self.bridge.emit_to_gui(self._started, (token, len(candidates)))
            selector.indexer.progress = lambda done, total: self.bridge.emit_to_gui(
                self._progressed, (token, done, total)
            )
            # Stays: a later selection may start the bodies again (the agent edited meanwhile).
            selector.indexer.tiers.progress = lambda progress: self.bridge.emit_to_gui(
                self._bodies, (token, progress)
            )
            try:
                return await selector.index_ahead(candidates, config, agent_path=str(agent.root))
            finally:
                selector.indexer.progress = None

        def done(timings: IndexingDone | None) -> None:
            if timings is not None and self._generation.is_current(token):
                self.finished.emit(timings)
            self._release(token)

        def failed(error: BaseException) -> None:
            if self._generation.is_current(token):
                self.failed.emit(str(error) if isinstance(error, SelectionUnavailableError) else repr(error))
            self._release(token)

        self.bridge.submit(run(), done, failed)

    def drop(self) -> None:
        """Forget the indexing in progress (another agent opened): its results are not reported."""
        self._generation.next()

    def _release(self, token: int) -> None:
        if not self._generation.is_current(token):
            return
        self._ahead_done = True
        held, self._held = self._held, None
        if held is not None:
            self._report_bodies(held)

    def _bodies(self, report: tuple[int, BodiesProgress]) -> None:
        token, progress = report
        if not self._generation.is_current(token):
            return
        if self._ahead_done:
            self._report_bodies(progress)
        else:
            self._held = progress

    def _report_bodies(self, progress: BodiesProgress) -> None:
        if progress.error is not None:
            self.failed.emit(str(progress.error))
        elif progress.finished:
            self.bodies_finished.emit(progress.total)
        else:
            self.bodies_progressed.emit(progress.done, progress.total)

    def _progressed(self, progress: tuple[int, int, int]) -> None:
        token, done, total = progress
        if self._generation.is_current(token):
            self.progressed.emit(done, total)

    def _started(self, started: tuple[int, int]) -> None:
        token, count = started
        if self._generation.is_current(token):
            self.started.emit(count)
