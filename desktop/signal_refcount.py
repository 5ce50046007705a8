"""A mend for PySide6 6.12.0: ``SignalInstance.emit`` gives back its result (``True``) without the
reference it owes, so every signal emitted from Python takes one reference from ``True``.

The app emits a few hundred signals from Python per streamed reply (425 measured for one), and
``True`` holds some 32,000 references in it: after some hundred replies Python would abort
("Fatal Python error: bool_dealloc: deallocating True or False"), as a small process does after
2,000 emits; a whole test run ended so at exit ("deallocating None"). 6.11.3 keeps the count.

Wrapping ``emit`` would give the reference back, but PySide6 then no longer sees
``connect(other.emit)`` as a signal and raises. So the singletons are made immortal instead, as
Python 3.12 makes them: their reference count is raised so far that no run can bring it to zero.
:func:`mend_signal_emit` checks the installed PySide6 once, with a probe signal, and only then
does it; a fixed PySide6, or Python 3.12 and later, is left as it is.
"""

from __future__ import annotations

import ctypes
import sys

from PySide6.QtCore import QObject, Signal

__all__ = ["emit_loses_a_reference", "mend_signal_emit"]

_PROBE_EMITS = 8
#: Added to a singleton's reference count: 2**40 emits would take weeks; the field holds 2**63.
_IMMORTAL = 1 << 40


class _Probe(QObject):
    fired = Signal()


def emit_loses_a_reference() -> bool:
    """Whether this PySide6's ``emit`` takes a reference from the object it returns (``True``)."""
    probe = _Probe()
    before = sys.getrefcount(True)
    for _ in range(_PROBE_EMITS):
        probe.fired.emit()
    lost = before - sys.getrefcount(True)
    for _ in range(max(lost, 0)):  # give back what the probe itself took
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(True))
    return lost >= _PROBE_EMITS


_mended = False


def mend_signal_emit() -> bool:
    """Make ``True``, ``False`` and ``None`` immortal when this PySide6's ``emit`` loses
    references (on CPython before 3.12, where they are not yet); True when it did (once)."""
    global _mended
    if _mended or sys.implementation.name != "cpython" or sys.version_info >= (3, 12):
        return False
    if not emit_loses_a_reference():
        return False
    for singleton in (True, False, None):
        # ob_refcnt is a CPython object's first field.
        ctypes.c_ssize_t.from_address(id(singleton)).value += _IMMORTAL
    _mended = True
    return True
