"""The chat's model box: ``provider:model`` refs to pick from, or to type."""

from __future__ import annotations

from collections.abc import Collection, Mapping

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QComboBox, QWidget

__all__ = ["ModelPicker", "model_problem", "unchecked_model_note"]


MODEL_BOX_TIP = "The model for this chat (provider:model): pick one from the list, or type one"


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


def unchecked_model_note(
    model: str, listed: Collection[str], unlisted: Mapping[str, str], configured: Collection[str]
) -> str:
    """What the user should know about choosing ``model`` (a ``provider:model`` ref) that the app
    could not check against its provider's list ("" when it is listed, or no list came yet).
    ``configured``: the agent's providers. The model is used all the same: if the provider cannot
    serve it, the reply shows the provider's own error, which says more than a guess here could."""
    provider = model.partition(":")[0]
    if model in listed or (not listed and not unlisted):
        return ""
    if provider in unlisted:
        return (
            f"{model} is used, but {provider} listed no models ({unlisted[provider].rstrip('.')}), so it "
            f"could not be checked: if {provider} cannot answer with it, the reply shows its error."
        )
    if provider not in configured:
        return (
            f"{model} is used, but '{provider}' is not one of this agent's providers "
            f"({', '.join(sorted(configured))}): it is tried with its defaults, and the reply shows the "
            "error if that fails; set it up in Agent > Rules, references, tools and providers."
        )
    return (
        f"{model} is not in the list {provider} gave; it is used, but if the provider does not know "
        "it the reply will say so."
    )


class ModelPicker(QComboBox):
    """An editable combo box whose list opens on a click anywhere in it, not only on its arrow
    (a click on an editable box's text would otherwise just place the cursor, and the list of
    models would look missing). Typing a ref by hand still works: a character typed while the list
    is open closes it and starts a new ref in the box (the list took it before, and it was lost)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelPicker")  # the theme gives it a border that shows in both themes
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMinimumContentsLength(28)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setToolTip(MODEL_BOX_TIP)
        line_edit = self.lineEdit()
        if line_edit is not None:
            line_edit.installEventFilter(self)
        self.view().installEventFilter(self)

    def set_unlisted(self, unlisted: Mapping[str, str]) -> None:
        """Say in the tooltip which providers listed no models, and why (they can still be typed)."""
        lines = [f"{provider}: {why}" for provider, why in sorted(unlisted.items())]
        self.setToolTip(
            MODEL_BOX_TIP
            + ("\n\nNo list from (their models can still be typed):\n" + "\n".join(lines) if lines else "")
        )

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        line_edit = self.lineEdit()
        if (
            watched is self.view()
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and line_edit is not None
            and event.text().isprintable()
            and event.text().strip()
            and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier
        ):
            # Typing, not choosing: the list closes, and the character starts a new ref in the box.
            self.hidePopup()
            line_edit.setFocus()
            line_edit.selectAll()
            line_edit.insert(event.text())
            return True
        if (
            watched is self.lineEdit()
            and event.type() == QEvent.Type.MouseButtonRelease
            and isinstance(event, QMouseEvent)
            and event.button() == Qt.MouseButton.LeftButton
            and not self.view().isVisible()
        ):
            self.showPopup()
        return super().eventFilter(watched, event)
