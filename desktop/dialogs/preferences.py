"""File ▸ Preferences: the app's look (system, light or dark), kept in desktop.ini, and the open
agent's system prompt, written to its agent.yaml."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QWidget,
)

from desktop.settings import app_settings
from desktop.theme import apply_theme, colors
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
    ) -> None:
        """``system_prompt``: the open agent's (None: no agent open); ``save_prompt`` writes it."""
        super().__init__(parent)
        self.setWindowTitle("Preferences")
        fit_size(self, QSize(640, 460))
        self._save_prompt = save_prompt
        self._original_prompt = system_prompt
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
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _save(self) -> None:
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
        self.accept()
