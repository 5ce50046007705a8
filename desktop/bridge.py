"""One asyncio event loop in a worker thread, and the queued signals that bring its results back.

The GUI thread never waits on the core: it submits coroutines (or blocking functions, run with
``asyncio.to_thread``) and gets the result, the error, or each streamed item through a signal that
Qt queues onto the GUI thread. A :class:`Generation` drops results that arrive after a newer request
was made (git-cola's ``ContextCommand`` does the same with timestamps).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Qt, Signal, Slot

__all__ = ["CoreBridge", "Generation"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
OnError = Callable[[BaseException], None]


class Generation:
    """A counter that tells whether a result still answers the newest request."""

    def __init__(self) -> None:
        self._value = 0

    def next(self) -> int:
        self._value += 1
        return self._value

    def is_current(self, token: int) -> bool:
        return token == self._value


class CoreBridge(QObject):
    """Owns the core's event loop thread. Create and use it on the GUI thread."""

    # (callback, value): emitted from the loop thread, delivered queued on the GUI thread.
    _deliver = Signal(object, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, name="contextdesk-core", daemon=True)
        self._deliver.connect(self._on_deliver, Qt.ConnectionType.QueuedConnection)
        self._pending: set[Future[Any]] = set()
        self._closed = False
        self._thread.start()
        self._ready.wait()

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(self._ready.set)
        self._loop.run_forever()

    # --- GUI -> core ------------------------------------------------------------------------

    def submit(
        self,
        coroutine: Coroutine[Any, Any, T],
        on_result: Callable[[T], None] | None = None,
        on_error: OnError | None = None,
    ) -> Future[T]:
        """Run ``coroutine`` on the core loop; ``on_result``/``on_error`` run later on the GUI thread."""
        if self._closed:
            coroutine.close()
            future: Future[T] = Future()
            future.cancel()
            return future
        future = asyncio.run_coroutine_threadsafe(coroutine, self._loop)
        self._pending.add(future)

        def done(finished: Future[T]) -> None:
            self._pending.discard(finished)
            if finished.cancelled():
                return
            error = finished.exception()
            if error is not None:
                if on_error is not None:
                    self._deliver.emit(on_error, error)
                else:
                    logger.error("core call failed: %s", error, exc_info=error)
            elif on_result is not None:
                self._deliver.emit(on_result, finished.result())

        future.add_done_callback(done)
        return future

    def call(
        self,
        function: Callable[..., T],
        *args: Any,
        on_result: Callable[[T], None] | None = None,
        on_error: OnError | None = None,
    ) -> Future[T]:
        """Run a blocking function (SQLite, file IO, model loading) in a worker thread."""
        return self.submit(asyncio.to_thread(function, *args), on_result, on_error)

    def stream(
        self,
        make: Callable[[], AsyncIterator[T]],
        on_item: Callable[[T], None],
        on_done: Callable[[bool], None] | None = None,
        on_error: OnError | None = None,
    ) -> Future[bool]:
        """Iterate an async generator on the core loop, handing each item to ``on_item`` (GUI thread).

        ``on_done`` gets True when the generator ran to its end, False when its task was cancelled
        from inside the core (``ChatSession.cancel()``), which is how Stop works.
        """

        async def pump() -> bool:
            iterator = make()
            try:
                async for item in iterator:
                    self._deliver.emit(on_item, item)
                return True
            except asyncio.CancelledError:
                if self._closed:
                    raise
                return False
            finally:
                close = getattr(iterator, "aclose", None)
                if close is not None:
                    with contextlib.suppress(RuntimeError):
                        await close()

        return self.submit(pump(), on_done, on_error)

    def call_soon(self, function: Callable[[], object]) -> None:
        """Run a quick, non-blocking function on the loop thread (e.g. to cancel a task)."""
        if not self._closed:
            self._loop.call_soon_threadsafe(function)

    def run_sync(self, awaitable: Awaitable[T], timeout: float = 10.0) -> T:
        """Wait for a coroutine from the GUI thread. Only for shutdown, where waiting is the point."""

        async def wrap() -> T:
            return await awaitable

        return asyncio.run_coroutine_threadsafe(wrap(), self._loop).result(timeout)

    # --- core -> GUI ------------------------------------------------------------------------

    def emit_to_gui(self, callback: Callable[[Any], None], value: Any) -> None:
        """Call ``callback(value)`` on the GUI thread; safe from any thread."""
        if not self._closed:
            self._deliver.emit(callback, value)

    @Slot(object, object)
    def _on_deliver(self, callback: Callable[[Any], None], value: Any) -> None:
        if self._closed:
            return
        # Top-level handler for GUI callbacks: a bug in one view must not take the app down.
        try:
            callback(value)
        except Exception:
            logger.exception("a GUI callback failed")

    def shutdown(self, cleanup: Awaitable[Any] | None = None, timeout: float = 10.0) -> None:
        """Run ``cleanup`` on the loop, cancel what is still running and stop the thread."""
        if self._closed:
            return
        if cleanup is not None:
            try:
                self.run_sync(cleanup, timeout)
            except Exception:  # shutdown: log and go on closing
                logger.exception("cleanup at shutdown failed")
        self._closed = True
        for future in list(self._pending):
            future.cancel()

        def stop() -> None:
            for task in asyncio.all_tasks(self._loop):
                task.cancel()
            self._loop.call_later(0.05, self._loop.stop)

        self._loop.call_soon_threadsafe(stop)
        self._thread.join(timeout)
