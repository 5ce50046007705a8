"""Starting the app where no window can open gives the fix, not a Qt abort."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from desktop import preflight


def test_no_display_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preflight.sys, "platform", "linux")
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(name, raising=False)
    problem = preflight.display_problem()
    assert problem is not None and "xvfb-run contextdesk" in problem and "contextdesk chat" in problem


def test_a_missing_xcb_cursor_library_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preflight.sys, "platform", "linux")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.setattr(preflight.ctypes.util, "find_library", lambda name: None)
    problem = preflight.display_problem()
    assert problem is not None and "libxcb-cursor0" in problem


def test_offscreen_and_wayland_are_left_to_qt(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(preflight.sys, "platform", "linux")
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    assert preflight.display_problem() is None
    monkeypatch.delenv("QT_QPA_PLATFORM")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
    assert preflight.display_problem() is None


def test_the_command_exits_2_with_the_reason_when_there_is_no_display(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "CONTEXTDESK_HOME": str(tmp_path / "home")}
    result = subprocess.run(
        [sys.executable, "-m", "desktop.launcher"], env=env, capture_output=True, text=True, timeout=60
    )
    if sys.platform.startswith("linux"):
        assert result.returncode == 2
        assert "no graphical display was found" in result.stderr
