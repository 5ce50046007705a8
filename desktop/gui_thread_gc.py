"""Python's cyclic garbage collector, run on the GUI thread only.

Collection normally runs in whichever thread happens to allocate when a threshold is crossed:
often the core's asyncio thread or a worker. A reference cycle that holds Qt objects (a widget
and a lambda connected to its signal) would then be destroyed there, and Qt objects must be
destroyed on their own thread or the app crashes. So automatic collection is switched off and a
GUI-thread timer collects instead, generation by generation, as the counts grow.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

__all__ = ["GuiThreadGarbageCollector", "collect_on_gui_thread"]

INTERVAL_MS = 500


class GuiThreadGarbageCollector(QObject):
    def __init__(self, parent: QObject, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._thresholds = gc.get_threshold()
        self._frozen = False
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(interval_ms)

    def check(self) -> None:
        """Collect the generations whose counts passed their thresholds, as gc itself would."""
        young, middle, old = gc.get_count()
        if young > self._thresholds[0]:
            gc.collect(0)
            if middle > self._thresholds[1]:
                gc.collect(1)
                if old > self._thresholds[2]:
                    gc.collect(2)

    def freeze_startup(self) -> None:
        """Once the app has started: what it built so far (modules, the window, the agent) lives
        as long as the app, so it is moved out of the collector's way (``gc.freeze``) and every
        later full collection scans only what came after. Those collections run on the GUI thread
        and took tens of milliseconds each over everything; once per process."""
        if self._frozen:
            return
        self._frozen = True
        gc.collect()
        gc.freeze()

    def stop(self) -> None:
        """Hand collection back to Python (e.g. when the app quits)."""
        self._timer.stop()
        gc.enable()


def collect_on_gui_thread(app: QObject) -> GuiThreadGarbageCollector:
    """The app's collector, installed on first call (Qt must be running on this thread)."""
    existing = app.findChild(GuiThreadGarbageCollector)
    return existing if existing is not None else GuiThreadGarbageCollector(app)
