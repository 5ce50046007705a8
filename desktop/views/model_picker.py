"""The chat's model box: ``provider:model`` refs to pick from, or to type."""

from __future__ import annotations

from collections.abc import Collection

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QComboBox, QWidget

__all__ = ["ModelPicker", "model_problem"]


def model_problem(model: str, providers: Collection[str]) -> str:
    """Why ``model`` cannot be used as ``provider:model`` with these ``providers`` ("" when it can;
    with no providers known yet, any provider is accepted)."""
    provider, _, model_id = model.partition(":")
    if not provider or not model_id:
        return f"'{model}' is not provider:model, e.g. openai:gpt-4o-mini: pick one from the list."
    if providers and provider not in providers:
        return (
            f"No provider '{provider}' is set up for this agent (it has: {', '.join(sorted(providers))}): "
            "pick a model from the list, or add the provider in Agent > Rules, references, tools and providers."
        )
    return ""


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
