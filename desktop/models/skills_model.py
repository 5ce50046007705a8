"""The agent's skills as list rows (title, description, include mode, enabled, scripts, whether the
open chat holds it), and the search that filters them by name or description.

One flat model over plain rows and a :class:`QSortFilterProxyModel` over it: an agent may hold a
thousand skills, so nothing here makes a widget per skill.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from pathlib import Path
from typing import Any, Literal

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSortFilterProxyModel, Qt

from agent_core.agent.items import Problem
from agent_core.agent.skill_files.definition import Skill
from agent_core.agent.skill_files.hidden_text import escape_unseen
from agent_core.context.items import SessionItem
from desktop.models._table import RowListModel

__all__ = [
    "INCLUDE_MODES",
    "IN_CHAT_WORDS",
    "ChatSkillState",
    "SkillFilterProxy",
    "SkillRole",
    "SkillRow",
    "SkillsModel",
    "chat_skill_states",
    "skill_rows",
    "warning_text",
]

# The include modes in the order the menus offer them, with their words.
INCLUDE_MODES: tuple[tuple[str, str], ...] = (
    ("agent", "Agent: when a message needs it"),
    ("always", "Always: in every request"),
    ("manual", "Manual: only when added"),
)

# How the open chat holds a skill (its body is in every request of the chat): always on in the
# agent, added by the user, or loaded by the model (``skills.load``).
ChatSkillState = Literal["always", "added", "loaded"]
IN_CHAT_WORDS: dict[str, str] = {
    "always": "In this chat: always on in this agent",
    "added": "In this chat: added by you",
    "loaded": "In this chat: loaded by the model (skills.load); it stays until the chat is compacted or you remove it",
}


def chat_skill_states(items: Iterable[SessionItem]) -> dict[str, ChatSkillState]:
    """The skills a chat holds (its session items), by name, and how each came in."""
    states: dict[str, ChatSkillState] = {}
    for item in items:
        if item.ref.type == "skill":
            states[item.ref.name] = (
                "loaded"
                if item.loaded_at is not None
                else "always"
                if item.include_mode == "always"
                else "added"
            )
    return states


class SkillRole(IntEnum):
    NAME = Qt.ItemDataRole.UserRole + 1  # the folder's name: how agent.yaml names the skill
    TITLE = Qt.ItemDataRole.UserRole + 2
    DESCRIPTION = Qt.ItemDataRole.UserRole + 3
    INCLUDE = Qt.ItemDataRole.UserRole + 4  # "agent" / "always" / "manual"
    ENABLED = Qt.ItemDataRole.UserRole + 5
    HAS_SCRIPTS = Qt.ItemDataRole.UserRole + 6
    FOLDER = Qt.ItemDataRole.UserRole + 7  # Path | None
    SKILL_FILE = Qt.ItemDataRole.UserRole + 8  # Path | None: the SKILL.md
    IN_CHAT = Qt.ItemDataRole.UserRole + 9  # "" / "always" / "added" / "loaded": how the open chat holds it
    WARNINGS = Qt.ItemDataRole.UserRole + 10  # tuple[str, ...]: its trust warnings, each in words
    # The folder's name as shown beside a title that differs from it ("" when they are the same).
    OTHER_FOLDER = Qt.ItemDataRole.UserRole + 11


def warning_text(problem: Problem) -> str:
    """A trust warning in words: what was found, where, and what to do. The excerpt it quotes is
    the skill's own text, so what it hides is written out."""
    where = f" (line {problem.line})" if problem.line else ""
    fix = f" What to do: {problem.fix}." if problem.fix else ""
    return escape_unseen(f"{problem.message}{where}.{fix}")


@dataclass(frozen=True)
class SkillRow:
    """A skill as the list shows it. ``title`` and ``description`` are the skill's own words with
    invisible and control characters written out (``pdf-\\u202etxt.exe``), so a name cannot pose
    as another one."""

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
    in_chat: str = ""  # how the open chat holds it ("" when it does not): a ChatSkillState
    folder_name: str = ""  # ``name`` as shown: invisible and control characters written out
    warnings: tuple[str, ...] = ()  # its trust warnings in words (hidden characters, hostile instructions)

    @property
    def folder(self) -> Path | None:
        return None if self.skill_file is None else self.skill_file.parent

    @property
    def other_folder(self) -> str:
        """The folder's name (as shown) when the title differs from it, else ""."""
        folder = self.folder_name or self.name
        return "" if self.title == folder else folder

    @property
    def label(self) -> str:
        """The title, and the folder's name beside it when they differ: the folder is how agent.yaml
        and the model name the skill, so a header's name cannot pass for another skill's."""
        return f"{self.title} ({self.other_folder})" if self.other_folder else self.title

    @property
    def tooltip(self) -> str:
        parts = [f"{self.title} (folder skills/{self.other_folder})" if self.other_folder else self.title]
        if self.description:
            parts.append(self.description)
        if self.warnings:
            count = len(self.warnings)
            parts.append(f"{count} trust warning{'s' if count != 1 else ''}: choose it to read them.")
        if self.scripts:
            parts.append(
                f"Has {self.scripts} script{'s' if self.scripts != 1 else ''}: they run only through "
                "the skills tool, and only after you approve each command."
            )
        if not self.enabled:
            parts.append("Disabled: never offered to the model.")
        if self.in_chat:
            parts.append(f"{IN_CHAT_WORDS[self.in_chat]}.")
        return "\n".join(parts)


def _row(skill: Skill) -> SkillRow:
    description = escape_unseen(" ".join(skill.description.split()))
    name, title = escape_unseen(skill.name), escape_unseen(" ".join(skill.title.split()))
    return SkillRow(
        name=skill.name,
        title=title if skill.display_name else name,
        folder_name=name,
        description=description,
        include=skill.include.value,
        enabled=skill.enabled,
        scripts=len(skill.scripts),
        files=len(skill.files),
        skill_file=skill.path,
        search_text=f"{name}\n{title}\n{description}".lower(),
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
        """Show ``rows``; a skill listed before keeps its warnings until :meth:`set_warnings`
        says otherwise (after a reload they are checked again)."""
        kept = {row.name: row.warnings for row in self._rows if row.warnings}
        self._reset_rows([replace(row, warnings=kept.get(row.name, row.warnings)) for row in rows])

    def rows(self) -> list[SkillRow]:
        return list(self._rows)

    def row_at(self, row: int) -> SkillRow:
        return self._rows[row]

    def row_of(self, name: str) -> int | None:
        for number, row in enumerate(self._rows):
            if row.name == name:
                return number
        return None

    def set_in_chat(self, states: Mapping[str, str]) -> None:
        """Mark the skills the open chat holds (``states``: name -> how); only rows that change are
        repainted, so an agent of a thousand skills updates at once."""
        for number, row in enumerate(self._rows):
            state = states.get(row.name, "")
            if row.in_chat != state:
                self._rows[number] = replace(row, in_chat=state)
                self.dataChanged.emit(self.index(number, 0), self.index(number, 0))

    def set_warnings(self, warnings: Mapping[str, Sequence[str]]) -> None:
        """The trust warnings of the skills in ``warnings`` (name -> each in words; empty: none);
        other skills keep theirs. Only rows that change are repainted."""
        for number, row in enumerate(self._rows):
            found = warnings.get(row.name)
            if found is not None and tuple(found) != row.warnings:
                self._rows[number] = replace(row, warnings=tuple(found))
                self.dataChanged.emit(self.index(number, 0), self.index(number, 0))

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
            return row.label
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
            SkillRole.IN_CHAT: row.in_chat,
            SkillRole.WARNINGS: row.warnings,
            SkillRole.OTHER_FOLDER: row.other_folder,
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
