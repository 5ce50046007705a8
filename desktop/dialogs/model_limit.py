"""The one line shown before work runs on a model that cannot do it reliably, with its two
choices: run anyway, or pick another model. Opened without blocking (``open()``)."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QAbstractButton, QMessageBox, QWidget

__all__ = ["ModelLimitPrompt"]


class ModelLimitPrompt(QMessageBox):
    run_anyway = Signal()
    pick_another = Signal()

    def __init__(self, warning: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle("This model may not manage it")
        self.setText(warning)
        self.run_button = self.addButton("Run anyway", QMessageBox.ButtonRole.AcceptRole)
        self.pick_button = self.addButton("Pick another model", QMessageBox.ButtonRole.RejectRole)
        self.setDefaultButton(self.pick_button)
        self.setEscapeButton(self.pick_button)
        self.buttonClicked.connect(self._chosen)

    def _chosen(self, button: QAbstractButton) -> None:
        (self.run_anyway if button is self.run_button else self.pick_another).emit()
