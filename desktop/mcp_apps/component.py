"""Qt WebEngine as an optional component (docs/packaging.md, "Qt WebEngine"): what the chat says
where it is missing, and, where ContextDesk runs from a Python environment pip can add to, adding
it when the user asks (pip, off the GUI thread; the views show after a restart).

The installers do not carry it and cannot add it (a frozen bundle has no pip): there the note says
how to get a ContextDesk that can show views.
"""

from __future__ import annotations

import importlib.util
import logging
import sys

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QObject, QProcess, Signal

__all__ = ["ComponentInstaller", "can_add_component", "install_command", "missing_note"]

logger = logging.getLogger(__name__)

OUTPUT_CHARS = 2000  # of pip's output, kept to say why an install failed


def can_add_component() -> bool:
    """Whether this ContextDesk can add WebEngine itself: it runs from a Python environment (not an
    installer's bundle) that has pip."""
    return not getattr(sys, "frozen", False) and importlib.util.find_spec("pip") is not None


def install_command() -> list[str]:
    """pip installing the WebEngine that matches this PySide6 (its wheels must be the same release:
    PySide6-WebEngine 6.12.0.N goes with PySide6 6.12.0)."""
    version = pyside_version
    return [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        f"PySide6-Addons=={version}",
        f"PySide6-WebEngine=={version}.*",
    ]


def missing_note() -> str:
    """One line under a tool call whose view cannot be shown here, with the fix."""
    if getattr(sys, "frozen", False):
        return (
            "This tool has an interactive view (an MCP App), but this installation of ContextDesk does "
            "not include Qt WebEngine, which shows such views; the tool's text result is above. Fix: "
            "install ContextDesk with pip and its apps extra (pip install 'contextdesk[apps]') to see views."
        )
    return (
        "This tool has an interactive view (an MCP App), but Qt WebEngine, which shows such views, is "
        "not installed; the tool's text result is above. Fix: add it here (about 120 MB to download), "
        "or run pip install 'contextdesk[apps]', then restart ContextDesk."
    )


class ComponentInstaller(QObject):
    """Runs pip for the component in the background; one at a time."""

    finished = Signal(bool, str)  # it worked; pip's last output (why it did not)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._process: QProcess | None = None
        self._output = ""

    @property
    def running(self) -> bool:
        return self._process is not None

    def start(self) -> None:
        if self._process is not None:
            return
        command = install_command()
        logger.info("adding Qt WebEngine: %s", " ".join(command))
        process = QProcess(self)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        process.readyReadStandardOutput.connect(self._read)
        process.finished.connect(self._done)
        process.errorOccurred.connect(self._failed_to_start)
        self._process, self._output = process, ""
        process.start(command[0], command[1:])

    def _read(self) -> None:
        if self._process is not None:
            text = bytes(self._process.readAllStandardOutput().data()).decode(errors="replace")
            self._output = (self._output + text)[-OUTPUT_CHARS:]

    def _done(self, exit_code: int, _status: QProcess.ExitStatus) -> None:
        self._read()
        self._process = None
        self.finished.emit(exit_code == 0, self._output.strip())

    def _failed_to_start(self, error: QProcess.ProcessError) -> None:
        if error is QProcess.ProcessError.FailedToStart and self._process is not None:
            self._process = None
            self.finished.emit(False, f"pip could not be started ({sys.executable}).")
