"""Every file dialog opens in the home folder, then in the last folder the user picked in any of
them (kept in the app's settings), or in the folder its field already names."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QFileDialog

from desktop.views import file_dialogs
from desktop.views.file_dialogs import choose_file, choose_folder, choose_save_path, start_folder

DESKTOP = Path(file_dialogs.__file__).parents[1]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_the_first_dialog_opens_at_home_and_the_next_where_the_last_pick_was(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    opened: list[str] = []
    picks = iter([str(tmp_path / "projects"), ""])
    (tmp_path / "projects").mkdir()
    monkeypatch.setattr(
        QFileDialog,
        "getExistingDirectory",
        lambda _parent, _title, start: opened.append(start) or next(picks),
    )
    assert choose_folder(None, "Open agent folder") == tmp_path / "projects"
    assert choose_folder(None, "Open agent folder") is None  # cancelled: nothing remembered
    assert opened == [str(home), str(tmp_path / "projects")]

    config = tmp_path / "projects" / "mcp.json"
    config.write_text("{}")
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda _p, _t, start, _f: (opened.append(start) or str(config), "")
    )
    assert choose_file(None, "Import a file") == config
    assert start_folder() == tmp_path / "projects"  # a file's folder is remembered
    saved: list[str] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda _p, _t, start: (saved.append(start) or "", ""))
    assert choose_save_path(None, "Save", "speak.wav") is None
    assert saved == [str(tmp_path / "projects" / "speak.wav")]


def test_a_folder_the_field_names_wins_and_a_missing_one_falls_back_home(tmp_path: Path, home: Path) -> None:
    assert start_folder(str(tmp_path)) == tmp_path
    assert start_folder(tmp_path / "new-agent") == tmp_path  # not there yet: its parent
    assert start_folder("relative/name") == home
    assert start_folder("") == home


def test_no_file_dialog_of_the_app_bypasses_these() -> None:
    own = Path(file_dialogs.__file__)
    direct = [
        path.relative_to(DESKTOP.parent).as_posix()
        for path in DESKTOP.rglob("*.py")
        if path != own and "QFileDialog." in path.read_text(encoding="utf-8")
    ]
    assert direct == []
