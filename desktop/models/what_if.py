"""The items a what-if can toggle: what the reply used (checked) and its near-misses (unchecked),
and what resending with them would change in the chat."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from PySide6.QtCore import Qt

from agent_core.context.items import ItemRef, RequestContext
from desktop.models._table import Index, RowListModel

__all__ = ["SELECTION_LABELS", "ResendEffects", "ToggleItemsModel", "ToggleRow", "resend_effects"]


@dataclass(frozen=True)
class ToggleRow:
    ref: ItemRef
    used: bool  # the original request used it
    checked: bool
    mode: str | None = None
    score: float | None = None
    title: str = ""  # a memory's words

    @property
    def name(self) -> str:
        """How a sentence names it: "rule style", "tool fs.read_file", a memory by its words."""
        return f"memory “{self.title}”" if self.title else f"{self.ref.type} {self.ref.label()}"

    @property
    def label(self) -> str:
        how = self.mode.capitalize() if self.mode else "not included"
        score = "" if self.score is None else f" {self.score:.2f}"
        name = f"“{self.title}”" if self.title else self.ref.label()
        return f"{self.ref.type}  {name}  ({how}{score})"


class ToggleItemsModel(RowListModel[ToggleRow]):
    """Checkable rows; unchecking a used item excludes it, checking a near-miss includes it."""

    def __init__(
        self, context: RequestContext, parent: Any = None, memory_texts: Mapping[str, str] | None = None
    ) -> None:
        """``memory_texts``: the words of the memories in ``context``, by id, to name them by."""
        super().__init__(parent)
        texts = memory_texts or {}

        def title(ref: ItemRef) -> str:
            return texts.get(ref.name, "") if ref.type == "memory" else ""

        used = [ToggleRow(i.ref, True, True, i.include_mode, i.score, title(i.ref)) for i in context.items]
        seen = {row.ref for row in used}
        misses = [
            ToggleRow(m.ref, False, False, None, m.score, title(m.ref))
            for m in context.near_misses
            if m.ref not in seen
        ]
        self._rows = used + misses

    def rows(self) -> list[ToggleRow]:
        return list(self._rows)

    def include(self) -> list[ItemRef]:
        return [row.ref for row in self.included_rows()]

    def exclude(self) -> list[ItemRef]:
        return [row.ref for row in self.excluded_rows()]

    def included_rows(self) -> list[ToggleRow]:
        """Near-misses checked to include."""
        return [row for row in self._rows if row.checked and not row.used]

    def excluded_rows(self) -> list[ToggleRow]:
        """Items the reply used, unchecked to leave out."""
        return [row for row in self._rows if row.used and not row.checked]

    def set_checked(self, ref: ItemRef, checked: bool) -> None:
        for row, item in enumerate(self._rows):
            if item.ref == ref:
                self.setData(
                    self.index(row),
                    Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked,
                    Qt.ItemDataRole.CheckStateRole,
                )
                return
        raise KeyError(ref)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemIsUserCheckable

    def row_data(self, row: ToggleRow, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return row.label
        if role == Qt.ItemDataRole.CheckStateRole:
            return Qt.CheckState.Checked if row.checked else Qt.CheckState.Unchecked
        if role == Qt.ItemDataRole.ToolTipRole:
            if row.used:
                return "Used by this reply: uncheck to leave it out"
            return "Considered and left out: check to include it"
        if role == Qt.ItemDataRole.UserRole:
            return row.ref
        return None

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.CheckStateRole or not index.isValid():
            return False
        checked = Qt.CheckState(value) == Qt.CheckState.Checked if not isinstance(value, bool) else value
        row = self._rows[index.row()]
        if row.checked != checked:
            self._rows[index.row()] = replace(row, checked=checked)
            self.dataChanged.emit(index, index, [Qt.ItemDataRole.CheckStateRole])
        return True


#: The selection settings a what-if can change, as its form names them.
SELECTION_LABELS = {
    "top_k": "Top K",
    "top_n": "Top N",
    "include_score": "Include score",
    "strategy": "Strategy",
}


@dataclass(frozen=True)
class ResendEffects:
    """What resending a what-if does to the chat: ``changes`` it makes, in words, and ``caveats``
    where the resent message may still differ from the what-if."""

    changes: tuple[str, ...]
    caveats: tuple[str, ...] = ()

    def button_text(self) -> str:
        """The Resend button's words: what it will do, so nothing changes in the chat unannounced."""
        if not self.changes:
            return "Resend"
        if len(self.changes) == 1:
            return f"Resend ({self.changes[0]})"
        return f"Resend and change this chat ({len(self.changes)} changes)"

    def summary(self) -> str:
        if self.changes:
            text = "Resending changes this chat: " + "; ".join(self.changes) + "."
        else:
            text = "Resending sends the message again; this chat's items and settings stay as they are."
        return " ".join((text, *(f"Note: {caveat}." for caveat in self.caveats)))


def resend_effects(
    current: Mapping[str, Any],
    selection: Mapping[str, Any],
    included: Sequence[ToggleRow],
    excluded: Sequence[ToggleRow],
    in_chat: Collection[ItemRef],
) -> ResendEffects:
    """What resending a what-if does to the chat: the selection settings become the chat's
    (``current`` are the chat's now), near-misses it includes join the chat as Manual, items of
    the chat it leaves out leave the chat. An item it leaves out that is not one of the chat's own
    (one selection chose, a recalled memory) is not kept out, so selection may choose it again."""
    changes = [
        f"{label} {_setting(current.get(key))} → {_setting(selection[key])}"
        for key, label in SELECTION_LABELS.items()
        if key in selection and _setting(current.get(key)) != _setting(selection[key])
    ]
    changes += [f"adds {row.name} to this chat as Manual" for row in included if row.ref not in in_chat]
    changes += [f"removes {row.name} from this chat" for row in excluded if row.ref in in_chat]
    caveats = [
        f"{row.name} is not one of this chat's items, so selection may choose it again"
        for row in excluded
        if row.ref not in in_chat
    ]
    return ResendEffects(tuple(changes), tuple(caveats))


def _setting(value: Any) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)
