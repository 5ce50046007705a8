"""PySide6 6.12.0's ``emit`` takes a reference from ``True`` at each call (unmended, Python aborts
once they are used up: a test process holds some 16,000); mended, a signal can be emitted any
number of times."""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

from desktop.signal_refcount import emit_loses_a_reference, mend_signal_emit


class _Sender(QObject):
    text = Signal(str)


def test_emitting_many_signals_cannot_use_up_the_references_of_true() -> None:
    mend_signal_emit()  # the suite's conftest already did: then a no-op
    assert not mend_signal_emit()  # at most once
    sender = _Sender()
    got: list[str] = []
    sender.text.connect(got.append)
    for _ in range(50_000):
        sender.text.emit("x")
    assert len(got) == 50_000  # the signal still reaches its receivers
    if emit_loses_a_reference():  # this PySide6 has the bug: the singletons were made immortal
        assert min(sys.getrefcount(True), sys.getrefcount(False), sys.getrefcount(None)) > 1 << 39
