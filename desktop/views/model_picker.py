"""The chat's model box: ``provider:model`` refs to pick from, or to type."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QComboBox, QWidget

__all__ = ["ModelPicker"]


class ModelPicker(QComboBox):
    """An editable combo box whose list opens on a click anywhere in it, not only on its arrow
    (a click on an editable box's text would otherwise just place the cursor, and the list of
    models would look missing). Typing a ref by hand still works: Esc closes the list."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")  # the theme gives it a border that shows in both themes
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMinimumContentsLength(28)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setToolTip("The model for this chat (provider:model): pick one from the list, or type one")
        line_edit = self.lineEdit()
        if line_edit is not None:
            line_edit.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            watched is self.lineEdit()
            and event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and not self.view().isVisible()
        ):
            self.showPopup()
        return super().eventFilter(watched, event)
