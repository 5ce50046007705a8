"""Checks before Qt starts, so a missing display or library is explained instead of an abort."""

from __future__ import annotations

import ctypes.util
import os
import sys

__all__ = ["display_problem"]


def display_problem() -> str | None:
    """Why the desktop app cannot open a window here, with the fix; None when it can."""
    if not sys.platform.startswith("linux"):
        return None
    platform = os.environ.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith("xcb"):
        return None  # offscreen, wayland, eglfs...: Qt reports its own problems
    if not platform and os.environ.get("WAYLAND_DISPLAY"):
        return None
    if not os.environ.get("DISPLAY"):
        return (
            "no graphical display was found (DISPLAY and WAYLAND_DISPLAY are not set). "
            "Run ContextDesk from a desktop session, or on a server use the command line "
            "(`contextdesk chat`) or a virtual display (`xvfb-run contextdesk`)."
        )
    if ctypes.util.find_library("xcb-cursor") is None:
        return (
            "Qt needs the xcb-cursor library to open a window under X11. Install it "
            "(Debian/Ubuntu: `sudo apt install libxcb-cursor0`; Fedora: `sudo dnf install xcb-util-cursor`), "
            "then start ContextDesk again."
        )
    return None
