"""File ▸ Preferences: the app's look (system, light or dark) and how a new server's tools join
chats, kept in desktop.ini; the open agent's system prompt and workspace folder, written to its
agent.yaml."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from desktop.dialogs.server_dialog import NEW_TOOL_MODES, NEW_TOOLS_HINT
from desktop.settings import app_settings, new_tools_include, set_new_tools_include
from desktop.theme import apply_theme, colors
from desktop.views.file_dialogs import choose_folder
from desktop.views.window_geometry import fit_size

__all__ = ["THEME_KEY", "PreferencesDialog", "saved_scheme"]

THEME_KEY = "ui/theme"
_SCHEMES = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}


def saved_scheme() -> Qt.ColorScheme | None:
    """The look chosen in Preferences; None: follow the system."""
    value = app_settings().value(THEME_KEY, "system")
    return _SCHEMES.get(value) if isinstance(value, str) else None


class PreferencesDialog(QDialog):
    def __init__(
        self,
        system_prompt: str | None,
        save_prompt: Callable[[str], None],
        parent: QWidget | None = None,
        *,
        workspace_folder: str | None = None,
        save_workspace_folder: Callable[[Path], None] | None = None,
    ) -> None:
        """``system_prompt``: the open agent's (None: no agent open); ``save_prompt`` writes it.
        ``workspace_folder``: the folder its workspace tools may read ("" for none yet; None: no
        agent open); ``save_workspace_folder`` writes a new one."""
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        fit_size(self, QSize(640, 520))
        self._save_prompt = save_prompt
        self._original_prompt = system_prompt
        self._save_folder = save_workspace_folder
        self._original_folder = workspace_folder
        form = QFormLayout(self)
        self.theme = QComboBox()
        for label, value in (("As the system is", "system"), ("Light", "light"), ("Dark", "dark")):
            self.theme.addItem(label, value)
        current = app_settings().value(THEME_KEY, "system")
        self.theme.setCurrentIndex(max(0, self.theme.findData(current)))
        form.addRow("Look", self.theme)
        self.prompt = QPlainTextEdit(system_prompt or "")
        self.prompt.setEnabled(system_prompt is not None)
        self.prompt.setPlaceholderText("How the assistant should behave in every chat of this agent")
        form.addRow("System prompt", self.prompt)
        hint = QLabel(
            "The system prompt is the agent's (agent.yaml): every new request of its chats uses it."
        )
        hint.setWordWrap(True)
        hint.setStyleSheet(f"color: {colors().muted};")
        form.addRow("", hint)

        self.folder = QLineEdit(workspace_folder or "")
        self.folder.setPlaceholderText("the folder the workspace tools may read, e.g. ~/Documents")
        self.folder.setEnabled(workspace_folder is not None)
        browse = QPushButton("Choose…")
        browse.setEnabled(workspace_folder is not None)
        browse.clicked.connect(self._choose_folder)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        form.addRow("Workspace folder", folder_row)

        self.new_tools = QComboBox()
        for label, mode in NEW_TOOL_MODES:
            self.new_tools.addItem(label, mode)
        self.new_tools.setCurrentIndex(max(0, self.new_tools.findData(new_tools_include())))
        form.addRow("New servers' tools", self.new_tools)
        tools_hint = QLabel(NEW_TOOLS_HINT)
        tools_hint.setWordWrap(True)
        tools_hint.setStyleSheet(f"color: {colors().muted};")
        form.addRow("", tools_hint)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(f"color: {colors().error};")
        self.problem.hide()
        self.folder.textChanged.connect(self.problem.hide)  # an error says what is wrong now, not before
        form.addRow("", self.problem)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _choose_folder(self) -> None:
        chosen = choose_folder(self, "The folder the workspace tools may read", self.folder.text())
        if chosen is not None:
            self.folder.setText(str(chosen))

    def _save(self) -> None:
        folder = self.folder.text().strip()
        folder_changed = self._original_folder is not None and folder != self._original_folder
        if folder_changed and not Path(folder).expanduser().is_dir():
            self.problem.setText(
                f"Workspace folder: {folder or 'nothing'} is not a folder on this computer; "
                "choose one with Choose…"
            )
            self.problem.show()
            return
        set_new_tools_include(str(self.new_tools.currentData()))
        value = str(self.theme.currentData())
        settings = app_settings()
        settings.setValue(THEME_KEY, value)
        settings.sync()
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, _SCHEMES.get(value))  # at once; "system" follows the system again
        prompt = self.prompt.toPlainText()
        if self._original_prompt is not None and prompt != self._original_prompt:
            self._save_prompt(prompt)
        if folder_changed and self._save_folder is not None:
            self._save_folder(Path(folder).expanduser())
        self.accept()
