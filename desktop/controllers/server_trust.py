"""Asking the user to trust an agent's MCP servers before they first start.

The core asks (awaiting the dialog's answer, desktop/controllers/dialog_answer.py) while the trusted
servers start; the servers the user trusts are recorded and started, the others stay off. A "Don't
start" is kept for the rest of the session (the same servers are not asked about again when the
agent reloads); Restart on such a server in Tools asks again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QApplication, QWidget

from agent_core.agent.schema import McpServerConfig
from agent_core.agent.server_trust import TrustGate, UntrustedServer, fingerprint
from agent_core.errors import ContextDeskError
from desktop.bridge import CoreBridge
from desktop.controllers.dialog_answer import dialog_answer

if TYPE_CHECKING:
    from desktop.dialogs.server_trust import ServerTrustDialog

__all__ = ["TrustAsker"]

logger = logging.getLogger(__name__)


class TrustAsker(QObject):
    asked = Signal(object)  # the dialog shown (for tests and to raise it)

    def __init__(self, bridge: CoreBridge, parent_window: QWidget | None = None) -> None:
        super().__init__()
        self.bridge = bridge
        self.parent_window = parent_window
        self._declined: set[tuple[str, str, str]] = set()  # (agent folder, server, fingerprint)
        self._question: asyncio.Task[None] | None = None  # the question open now, if any

    def ask_for(self, gate: TrustGate, manager: Any, servers: Mapping[str, McpServerConfig]) -> None:
        """On the core loop: ask about ``servers`` in the background, instead of any question still open."""
        self._replace(self.settle(gate, manager, servers))

    async def ask_again(self, gate: TrustGate, manager: Any, servers: Mapping[str, McpServerConfig]) -> None:
        """Ask about every server not trusted, those declined before included."""
        self._replace(self.settle(gate, manager, servers, again=True))

    def cancel(self) -> None:
        """Close the open question (its servers stay off)."""
        if self._question is not None:
            self._question.cancel()
            self._question = None

    def _replace(self, question: Coroutine[Any, Any, None]) -> None:
        self.cancel()
        self._question = asyncio.get_running_loop().create_task(question, name="server-trust-question")
        self._question.add_done_callback(_log_failure)

    async def settle(
        self, gate: TrustGate, manager: Any, servers: Mapping[str, McpServerConfig], *, again: bool = False
    ) -> None:
        """Ask about the servers of ``servers`` not trusted yet (``again``: those declined before too)
        and start the ones the user trusts on ``manager`` (a workflow's servers start with its runs)."""
        untrusted = await asyncio.to_thread(gate.untrusted, servers)
        root = str(gate.agent_root)
        if not again:
            untrusted = [s for s in untrusted if (root, s.name, fingerprint(s.config)) not in self._declined]
        if not untrusted:
            if again:  # trusted meanwhile (from the terminal, say): start what is still held
                await manager.start([n for n in servers if n in manager.server_names and _held(manager, n)])
            return
        if not await self._ask(gate, untrusted):
            self._declined.update((root, s.name, fingerprint(s.config)) for s in untrusted)
            return
        try:
            await asyncio.to_thread(gate.trust, {s.name: s.config for s in untrusted})
        except ContextDeskError as error:  # the servers stay off, and are asked about next time
            logger.warning("could not record the trust of %s: %s", [s.name for s in untrusted], error)
            return
        await manager.start([s.name for s in untrusted if s.name in manager.server_names])

    async def _ask(self, gate: TrustGate, untrusted: list[UntrustedServer]) -> bool:
        def make() -> ServerTrustDialog:
            from desktop.dialogs.server_trust import ServerTrustDialog

            # Over the window the user is in (Tools, when Restart asked), which it returns to after.
            return ServerTrustDialog(
                untrusted, gate.agent_root, QApplication.activeWindow() or self.parent_window
            )

        trusted: bool = await dialog_answer(self.bridge, make, self.asked.emit)
        return trusted


def _held(manager: Any, name: str) -> bool:
    from agent_core.mcp.types import ServerState  # the MCP package loads after the window shows

    return bool(manager.status(name).state is ServerState.UNTRUSTED)


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and (error := task.exception()) is not None:
        logger.error("asking to trust tool servers failed", exc_info=error)
