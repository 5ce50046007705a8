"""`contextdesk`: the desktop app with no command, the command line otherwise (desktop/launcher.py)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from desktop import launcher
from tests.support.paths import REPO_ROOT


def test_no_arguments_or_only_options_start_the_desktop_app(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[str] = []
    monkeypatch.setattr(launcher, "start_desktop", lambda: started.append("desktop") or 0)
    assert launcher.main([]) == 0
    assert launcher.main(["--verbose"]) == 0
    assert started == ["desktop", "desktop"]


def test_a_command_runs_without_the_desktop_app(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(launcher, "start_desktop", lambda: pytest.fail("the desktop app was started"))
    assert launcher.main(["sessions", "list"]) == 0
    assert "No saved chats yet" in capsys.readouterr().out


def test_without_pyside6_the_desktop_app_says_what_is_missing_and_the_fix() -> None:
    probe = (
        "import sys\n"
        "sys.modules['PySide6'] = None  # as if the [desktop] extra were not installed\n"
        "from desktop import launcher\n"
        "sys.exit(launcher.main([]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert "PySide6 is not installed" in result.stderr
    assert "pip install 'contextdesk[desktop]'" in result.stderr
