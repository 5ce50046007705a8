"""Every file dialog of the app, opening where the user expects: in the folder a field already
names, else the last folder picked in any of them (remembered in the app's settings), else the
home folder; never the folder the app happened to be started from."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from desktop.settings import last_folder, set_last_folder

__all__ = ["choose_file", "choose_folder", "choose_save_path", "start_folder"]


def start_folder(current: str | Path | None = None) -> Path:
    """Where a dialog opens: ``current`` (or the folder holding it) when that exists, else the
    last folder picked, else home."""
    if current is not None and str(current).strip():
        given = Path(str(current).strip()).expanduser()
        for candidate in (given, given.parent):
            if candidate.is_absolute() and candidate.is_dir():
                return candidate
    return last_folder() or Path.home()


def _picked(chosen: str, folder_of_it: bool) -> Path | None:
    if not chosen:
        return None
    path = Path(chosen)
    set_last_folder(path.parent if folder_of_it else path)
    return path


def choose_folder(parent: QWidget | None, title: str, current: str | Path | None = None) -> Path | None:
    """A folder the user picks (None: cancelled)."""
    chosen = QFileDialog.getExistingDirectory(parent, title, str(start_folder(current)))
    return _picked(chosen, folder_of_it=False)


def choose_file(
    parent: QWidget | None, title: str, filters: str = "", current: str | Path | None = None
) -> Path | None:
    """An existing file the user picks (None: cancelled)."""
    chosen, _ = QFileDialog.getOpenFileName(parent, title, str(start_folder(current)), filters)
    return _picked(chosen, folder_of_it=True)


def choose_save_path(parent: QWidget | None, title: str, suggested_name: str) -> Path | None:
    """Where to save a file, suggested as ``suggested_name`` in the start folder (None: cancelled)."""
    chosen, _ = QFileDialog.getSaveFileName(parent, title, str(start_folder() / suggested_name))
    return _picked(chosen, folder_of_it=True)
