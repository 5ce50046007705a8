"""The agent's skills as list rows (title, description, include mode, enabled, scripts), and the
search that filters them by name or description.

One flat model over plain rows and a :class:`QSortFilterProxyModel` over it: an agent may hold a
thousand skills, so nothing here makes a widget per skill.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from pathlib import Path
from typing import Any

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from agent_core.agent.skill_files.definition import Skill
from desktop.models._table import RowListModel

__all__ = ["INCLUDE_MODES", "SkillFilterProxy", "SkillRole", "SkillRow", "SkillsModel", "skill_rows"]

# The include modes in the order the menus offer them, with their words.
INCLUDE_MODES: tuple[tuple[str, str], ...] = (
    ("agent", "Agent: when a message needs it"),
    ("always", "Always: in every request"),
    ("manual", "Manual: only when added"),
)


class SkillRole(IntEnum):
    NAME = Qt.ItemDataRole.UserRole + 1  # the folder's name: how agent.yaml names the skill
    TITLE = Qt.ItemDataRole.UserRole + 2
    DESCRIPTION = Qt.ItemDataRole.UserRole + 3
    INCLUDE = Qt.ItemDataRole.UserRole + 4  # "agent" / "always" / "manual"
    ENABLED = Qt.ItemDataRole.UserRole + 5
    HAS_SCRIPTS = Qt.ItemDataRole.UserRole + 6
    FOLDER = Qt.ItemDataRole.UserRole + 7  # Path | None
    SKILL_FILE = Qt.ItemDataRole.UserRole + 8  # Path | None: the SKILL.md


@dataclass(frozen=True)
class SkillRow:
    name: str
    title: str
    description: str
    include: str
    enabled: bool
    scripts: int  # how many files under scripts/
    files: int  # how many files beside SKILL.md
    skill_file: Path | None
    # Lower-cased name, title and description, made once: the search compares against it per key
    # stroke, for every row.
    search_text: str = ""

    @property
    def folder(self) -> Path | None:
        return None if self.skill_file is None else self.skill_file.parent

    @property
    def tooltip(self) -> str:
        parts = [self.title if self.title == self.name else f"{self.title} (skills/{self.name})"]
        if self.description:
            parts.append(self.description)
        if self.scripts:
            parts.append(
                f"Has {self.scripts} script{'s' if self.scripts != 1 else ''}: they run only through "
                "the skills tool, and only after you approve each command."
            )
        if not self.enabled:
            parts.append("Disabled: never offered to the model.")
        return "\n".join(parts)


def _row(skill: Skill) -> SkillRow:
    description = " ".join(skill.description.split())
    return SkillRow(
        name=skill.name,
        title=skill.title,
        description=description,
        include=skill.include.value,
        enabled=skill.enabled,
        scripts=len(skill.scripts),
        files=len(skill.files),
        skill_file=skill.path,
        search_text=f"{skill.name}\n{skill.title}\n{description}".lower(),
    )


def skill_rows(skills: Iterable[Skill]) -> list[SkillRow]:
    """One row per skill, by title (case-insensitive), then folder name."""
    return sorted((_row(skill) for skill in skills), key=lambda row: (row.title.lower(), row.name))


class SkillsModel(RowListModel[SkillRow]):
    """The agent's skills; :meth:`set_rows` after a (re)load, :meth:`update_row` after a change."""

    def __init__(self, rows: Sequence[SkillRow] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self._rows = list(rows)

    def set_rows(self, rows: Sequence[SkillRow]) -> None:
        self._reset_rows(rows)

    def rows(self) -> list[SkillRow]:
        return list(self._rows)

    def row_at(self, row: int) -> SkillRow:
        return self._rows[row]

    def row_of(self, name: str) -> int | None:
        for number, row in enumerate(self._rows):
            if row.name == name:
                return number
        return None

    def update_row(self, name: str, **changes: Any) -> bool:
        """Change the row of skill ``name`` in place (the view keeps its selection); False if none."""
        number = self.row_of(name)
        if number is None:
            return False
        self._rows[number] = replace(self._rows[number], **changes)
        self.dataChanged.emit(self.index(number, 0), self.index(number, 0))
        return True

    def row_data(self, row: SkillRow, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return row.title
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tooltip
        by_role: dict[int, object] = {
            SkillRole.NAME: row.name,
            SkillRole.TITLE: row.title,
            SkillRole.DESCRIPTION: row.description,
            SkillRole.INCLUDE: row.include,
            SkillRole.ENABLED: row.enabled,
            SkillRole.HAS_SCRIPTS: row.scripts > 0,
            SkillRole.FOLDER: row.folder,
            SkillRole.SKILL_FILE: row.skill_file,
        }
        return by_role.get(role)


class SkillFilterProxy(QSortFilterProxyModel):
    """Keeps the skills whose name, title or description hold every word of the search."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._words: tuple[str, ...] = ()

    def set_search(self, text: str) -> None:
        words = tuple(text.lower().split())
        if words != self._words:
            self.beginFilterChange()
            self._words = words
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(
        self,
        source_row: int,
        source_parent: QModelIndex | QPersistentModelIndex,
    ) -> bool:
        if not self._words:
            return True
        model = self.sourceModel()
        if not isinstance(model, SkillsModel):
            return True
        text = model.row_at(source_row).search_text
        return all(word in text for word in self._words)
