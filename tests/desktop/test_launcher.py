"""`contextdesk`: the desktop app with no command, the command line otherwise (desktop/launcher.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def test_the_window_opens_without_loading_the_mcp_sdk_or_the_models() -> None:
    """What the window needs is imported before it shows; the MCP SDK, onnxruntime and
    llama.cpp load afterwards, off the GUI thread (a third of a second for the SDK alone)."""
    script = (
        "import sys\n"
        "import desktop.app\n"
        "heavy = sorted(m for m in ('mcp', 'onnxruntime', 'llama_cpp', 'tokenizers') if m in sys.modules)\n"
        "print(heavy)\n"
        "sys.exit(1 if heavy else 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_smoke_start_says_when_the_window_is_shown_and_the_chat_open_then_quits(tmp_path: Path) -> None:
    """CONTEXTDESK_EXIT_AFTER_SHOWN, which the packaging check uses on an installed copy."""
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "CONTEXTDESK_HOME": str(tmp_path / "home"),
        "CONTEXTDESK_EXIT_AFTER_SHOWN": "1",
        "HF_HUB_OFFLINE": "1",
    }
    result = subprocess.run(
        [sys.executable, "-c", "import sys; from desktop.launcher import main; sys.exit(main([]))"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("window shown: ") and "ContextDesk" in lines[0]
    assert lines[-1] == "chat open"
