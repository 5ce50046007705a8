"""Load a chat's local model ahead of its first message, off the GUI thread.

Loading a llama.cpp model takes from a fraction of a second to many seconds. The warm-up starts
when a chat with such a model is shown; a message sent meanwhile simply waits for the same load
(the provider loads each model once, under a lock). Providers that can load ahead of time have a
``load_model(model_id)`` method, like the local provider; the others need no warm-up.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from PySide6.QtCore import QObject, Signal

from agent_core.errors import ContextDeskError
from desktop.bridge import CoreBridge

if TYPE_CHECKING:
    from agent_core.providers.pool import ProviderPool

__all__ = ["ModelWarmup", "PreloadableProvider"]


@runtime_checkable
class PreloadableProvider(Protocol):
    def load_model(self, model_id: str) -> None:
        """Load the model now (blocking: called in a worker thread)."""
        ...


class ModelWarmup(QObject):
    """``loading`` is emitted once a model that needs loading is found, then ``loaded`` or ``failed``."""

    loading = Signal(str)  # model ref
    loaded = Signal(str)  # model ref
    failed = Signal(str, str)  # model ref, why (says how to fix it)

    def __init__(self, bridge: CoreBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._started: set[str] = set()  # model refs loaded or loading (a failed one may be retried)

    def reset(self) -> None:
        """The providers were created again (another agent, new provider settings): load anew."""
        self._started.clear()

    def warm(self, providers: ProviderPool, model_ref: str) -> None:
        """Load ``model_ref`` in the background if its provider can; once per model until :meth:`reset`."""
        if model_ref in self._started:
            return
        self._started.add(model_ref)

        async def run() -> bool:
            try:
                provider, model_id = await asyncio.to_thread(providers.resolve, model_ref)
            except ContextDeskError:
                return False  # not configured: sending explains it, where the user is looking
            if not isinstance(provider, PreloadableProvider):
                return False
            self.bridge.emit_to_gui(self.loading.emit, model_ref)
            await asyncio.to_thread(provider.load_model, model_id)
            return True

        def done(was_loaded: bool) -> None:
            if was_loaded:
                self.loaded.emit(model_ref)

        def failed(error: BaseException) -> None:
            self._started.discard(model_ref)
            reason = str(error) if isinstance(error, ContextDeskError) else repr(error)
            self.failed.emit(model_ref, reason)

        self.bridge.submit(run(), done, failed)
