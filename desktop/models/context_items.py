"""Context items (rules, references, tools) as table rows: what a request used, or what a chat holds.

Rows are built by :func:`request_rows` / :func:`session_rows` from names stored in the core and the
agent as it is now; an item the agent no longer has still shows, by name, marked ``removed``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import IntEnum
from typing import Any

from PySide6.QtCore import QSortFilterProxyModel, Qt

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.skill_files.hidden_text import escape_unseen
from agent_core.context.items import ItemRef, ItemType, NearMiss, RequestContext, SessionItem
from agent_core.context.reason_words import reason_words
from agent_core.tools.runtime import HintedTool, ToolDescriptor
from desktop.models._table import RowTableModel
from desktop.models.manifest import cost_of

__all__ = [
    "Column",
    "ContextItemsModel",
    "ContextRow",
    "Role",
    "near_miss_rows",
    "reason_text",
    "request_rows",
    "score_text",
    "session_rows",
    "shown_name",
    "sorted_proxy",
]

MODE_LABELS = {"always": "Always", "manual": "Manual", "agent": "Agent"}


def reason_text(reason: str, score: float | None = None, needed: float | None = None) -> str:
    """Why an item was left out, in words; with the score it ``needed`` when a threshold left it out.
    A reason code the app does not know reads as its words; reasons the core wrote are kept as they are."""
    words = reason_words(reason)
    if needed is None:
        return words
    digits = _score_digits(score, needed)
    got = "" if score is None else f", got {score_text(score, needed)}"
    return f"{words}: needed {needed:.{digits}f}{got}"


def score_text(score: float, needed: float | None = None) -> str:
    """A score as shown. Against the floor it failed (``needed``) it has the digits that tell the two
    apart (0.4496 under 0.45 is "0.4496", not "0.45"), and past four digits it is cut rather than
    rounded, so it never reads as reaching the floor. Its badge and its reason show the same figure."""
    digits = _score_digits(score, needed)
    shown = f"{score:.{digits}f}"
    if needed is not None and score < needed and shown == f"{needed:.{digits}f}":
        return f"{math.floor(score * 10**digits) / 10**digits:.{digits}f}"
    return shown


def _score_digits(score: float | None, needed: float | None) -> int:
    digits = 2  # more where two places would show a score under the bar as reaching it (0.4496, 0.45)
    while (
        score is not None
        and needed is not None
        and score < needed
        and digits < 4
        and f"{score:.{digits}f}" == f"{needed:.{digits}f}"
    ):
        digits += 1
    return digits


class Column(IntEnum):
    PREFIX = 0  # "007" for rules and references, "server." for tools
    NAME = 1
    MODE = 2
    SCORE = 3
    DESCRIPTION = 4
    TOKENS = 5


HEADERS = {
    Column.PREFIX: "Priority",
    Column.NAME: "Name",
    Column.MODE: "Included",
    Column.SCORE: "Score",
    Column.DESCRIPTION: "Description",
    Column.TOKENS: "Tokens",
}


class Role(IntEnum):
    REF = Qt.ItemDataRole.UserRole + 1
    MODE = Qt.ItemDataRole.UserRole + 2
    SCORE = Qt.ItemDataRole.UserRole + 3
    PREFIX = Qt.ItemDataRole.UserRole + 4
    DESCRIPTION = Qt.ItemDataRole.UserRole + 5
    REMOVED = Qt.ItemDataRole.UserRole + 6
    SORT_KEY = Qt.ItemDataRole.UserRole + 7
    REASON = Qt.ItemDataRole.UserRole + 8
    NAME = Qt.ItemDataRole.UserRole + 9
    TOKENS = Qt.ItemDataRole.UserRole + 10  # int | None: what the item cost in the request
    DETAIL = Qt.ItemDataRole.UserRole + 11  # e.g. the chunks of a selected reference
    PINNED = Qt.ItemDataRole.UserRole + 12
    HINTS = Qt.ItemDataRole.UserRole + 13  # tuple[str, ...]: a tool's "read-only", "destructive", ...
    STATE = Qt.ItemDataRole.UserRole + 14  # str: a skill's state in the request ("loaded"...)
    SCORE_TEXT = Qt.ItemDataRole.UserRole + 15  # str: the score as shown, "" for none (score_text)


@dataclass(frozen=True)
class ContextRow:
    ref: ItemRef
    mode: str | None  # always / manual / agent; None for near-misses
    score: float | None = None
    priority: int | None = None
    description: str = ""
    removed: bool = False  # the agent no longer has this item
    reason: str = ""  # why a near-miss was left out
    needed: float | None = None  # the score a near-miss had to reach, where a threshold left it out
    tokens: int | None = None  # from the request's manifest; None when it has none
    detail: str = ""  # the manifest's detail, e.g. "chunks 2, 5 of 9"
    pinned: bool = False
    title: str = ""  # shown instead of the name (a memory's words)
    hints: tuple[str, ...] = ()  # what a tool's server says it does: "read-only", "destructive", ...
    state: str = ""  # for a skill: what the request carried of it ("catalogue only", "loaded"...)

    @property
    def prefix(self) -> str:
        if self.ref.type == "tool":
            return f"{self.ref.server}."
        return "" if self.priority is None else f"{self.priority:03d}"

    @property
    def sort_key(self) -> str:
        if self.mode is None and self.reason:
            # A near-miss: the best first, as `contextdesk select` lists them (scores lie in 0..2).
            return f"{10.0 - (self.score or 0.0):08.4f}\x00{self.ref.name.lower()}"
        if self.ref.type == "tool":
            return f"{self.ref.server or ''}\x00{self.ref.name.lower()}"
        return f"{999 if self.priority is None else self.priority:03d}\x00{self.ref.name.lower()}"

    @property
    def score_words(self) -> str:
        """The score as its badge and its reason show it ("" for none)."""
        return "" if self.score is None else score_text(self.score, self.needed)

    @property
    def reason_words(self) -> str:
        return reason_text(self.reason, self.score, self.needed) if self.reason else ""

    @property
    def tooltip(self) -> str:
        parts = [self.title if self.title and self.ref.type == "skill" else self.ref.label()]
        if self.description:
            parts.append(self.description)
        if self.removed:
            parts.append("This item is no longer in the agent.")
        if self.reason:
            parts.append(f"Not included: {self.reason_words}")
        if self.state:
            parts.append(f"In this request: {self.state}")
        if self.tokens is not None:
            parts.append(f"{self.tokens:,} tokens" + (f" ({self.detail})" if self.detail else ""))
        if self.pinned:
            parts.append("Pinned: kept in full whatever trimming or compaction does.")
        return "\n".join(parts)


def shown_name(ref: ItemRef) -> str:
    """A skill's folder name written out where it holds characters a reader would not see (a
    skill may come from anyone); "" when it shows as it is, as every other item's name does."""
    if ref.type != "skill":
        return ""
    shown = escape_unseen(ref.name)
    return "" if shown == ref.name else shown


def _details(
    ref: ItemRef,
    agent: Agent | None,
    tools: Mapping[ItemRef, ToolDescriptor],
    attached: Mapping[ItemRef, DocumentItem] | None = None,
    memories: Mapping[str, str] | None = None,
) -> tuple[int | None, str, bool]:
    if ref.type == "memory":
        text = (memories or {}).get(ref.name)
        return None, text or "", memories is not None and text is None  # gone: forgotten or deleted
    if ref.type == "tool":
        tool = tools.get(ref)
        return None, (tool.description if tool else ""), False
    if ref.server is not None:  # an MCP resource attached to the chat: its server may be gone, it is not
        resource = (attached or {}).get(ref)
        title = resource.description if resource else ""
        return None, f"{title} — resource of {ref.server}" if title else f"Resource of {ref.server}", False
    if agent is None:
        return None, "", False
    if ref.type == "skill":
        skill = agent.skills.get(ref.name)
        if skill is None:
            return None, "", True
        return skill.priority_level, escape_unseen(" ".join(skill.description.split())), False
    document = agent.document("rule" if ref.type == "rule" else "reference", ref.name)
    if document is None:
        return None, "", True
    return document.priority_level, document.description, False


def _hints(ref: ItemRef, tools: Mapping[ItemRef, ToolDescriptor]) -> tuple[str, ...]:
    tool = tools.get(ref) if ref.type == "tool" else None
    return tool.annotations.badges if isinstance(tool, HintedTool) else ()


def _tool_map(tools: Iterable[ToolDescriptor]) -> dict[ItemRef, ToolDescriptor]:
    return {ItemRef("tool", t.name, t.server): t for t in tools}


def request_rows(
    context: RequestContext,
    item_type: ItemType,
    agent: Agent | None,
    tools: Sequence[ToolDescriptor] = (),
    attached: Mapping[ItemRef, DocumentItem] | None = None,
    memories: Mapping[str, str] | None = None,
) -> list[ContextRow]:
    """What one request used, of one type. Tools from servers that are not running show no
    description, but are never marked removed (the server may just not have started yet).
    A memory shows its words (``memories``: id -> text) and why it was recalled."""
    by_ref = _tool_map(tools)
    rows = []
    for item in context.of_type(item_type):
        priority, description, removed = _details(item.ref, agent, by_ref, attached, memories)
        title = shown_name(item.ref)
        if item.ref.type == "memory":  # its words as the title, why it was recalled below them
            title, description = description or "(forgotten)", item.reason
        elif item.reason:  # how selection found it (an example, one request of several, a correction)
            description = (
                f"{item.reason[0].upper()}{item.reason[1:]} · {description}" if description else item.reason
            )
        part = cost_of(context.manifest, item.ref)
        rows.append(
            ContextRow(
                item.ref,
                item.include_mode,
                item.score,
                priority,
                description,
                removed,
                tokens=None if part is None else part.tokens,
                detail="" if part is None else part.detail,
                title=title,
                hints=_hints(item.ref, by_ref),
            )
        )
    return rows


def near_miss_rows(
    misses: Iterable[NearMiss],
    item_type: ItemType,
    agent: Agent | None,
    tools: Sequence[ToolDescriptor] = (),
    memories: Mapping[str, str] | None = None,
) -> list[ContextRow]:
    by_ref = _tool_map(tools)
    rows = []
    for miss in misses:
        if miss.ref.type != item_type:
            continue
        priority, description, removed = _details(miss.ref, agent, by_ref, memories=memories)
        title = shown_name(miss.ref)
        if miss.ref.type == "memory":
            title, description = description or "(forgotten)", ""
        rows.append(
            ContextRow(
                miss.ref,
                None,
                miss.score,
                priority,
                description,
                removed,
                miss.reason,
                needed=miss.needed,
                title=title,
                hints=_hints(miss.ref, by_ref),
            )
        )
    return rows


def session_rows(
    items: Iterable[SessionItem],
    item_type: ItemType,
    agent: Agent | None,
    tools: Sequence[ToolDescriptor] = (),
    attached: Mapping[ItemRef, DocumentItem] | None = None,
) -> list[ContextRow]:
    """What a chat holds, of one type; ``attached`` are its MCP resources (``attached_resources()``)."""
    by_ref = _tool_map(tools)
    rows = []
    for item in items:
        if item.ref.type != item_type:
            continue
        priority, description, removed = _details(item.ref, agent, by_ref, attached)
        rows.append(
            ContextRow(
                item.ref,
                item.include_mode,
                None,
                priority,
                description,
                removed,
                pinned=item.pinned,
                hints=_hints(item.ref, by_ref),
                title=shown_name(item.ref),
            )
        )
    return rows


class ContextItemsModel(RowTableModel[ContextRow]):
    """Rows of context items with named columns; set them with :meth:`set_rows`."""

    HEADERS = tuple(HEADERS[column] for column in Column)

    def __init__(self, rows: Sequence[ContextRow] = (), parent: Any = None) -> None:
        super().__init__(parent)
        self._rows = list(rows)

    def set_rows(self, rows: Sequence[ContextRow]) -> None:
        self._reset_rows(rows)

    def row_at(self, row: int) -> ContextRow:
        return self._rows[row]

    def update_row(self, ref: ItemRef, **changes: Any) -> bool:
        """Change the row of ``ref`` (e.g. a memory's words after an edit); False if none."""
        for number, row in enumerate(self._rows):
            if row.ref == ref:
                self._rows[number] = replace(row, **changes)
                self.dataChanged.emit(self.index(number, 0), self.index(number, self.columnCount() - 1))
                return True
        return False

    def rows(self) -> list[ContextRow]:
        return list(self._rows)

    def cell_data(self, row: ContextRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == Column.PREFIX:
                return row.prefix
            if column == Column.NAME:
                return row.title or row.ref.name
            if column == Column.MODE:
                return MODE_LABELS.get(row.mode or "", "")
            if column == Column.SCORE:
                return row.score_words
            if column == Column.TOKENS:
                return "" if row.tokens is None else f"{row.tokens:,}"
            return row.description
        if role == Qt.ItemDataRole.ToolTipRole:
            return row.tooltip
        by_role: dict[int, object] = {
            Role.REF: row.ref,
            Role.MODE: row.mode,
            Role.SCORE: row.score,
            Role.PREFIX: row.prefix,
            Role.DESCRIPTION: row.description,
            Role.REMOVED: row.removed,
            Role.SORT_KEY: row.sort_key,
            Role.REASON: row.reason_words,
            Role.NAME: row.title or row.ref.name,
            Role.TOKENS: row.tokens,
            Role.DETAIL: row.detail,
            Role.PINNED: row.pinned,
            Role.HINTS: row.hints,
            Role.STATE: row.state,
            Role.SCORE_TEXT: row.score_words,
        }
        return by_role.get(role)


def sorted_proxy(model: ContextItemsModel, parent: Any = None) -> QSortFilterProxyModel:
    """Rules and references by priority then name; tools by server then name."""
    proxy = QSortFilterProxyModel(parent)
    proxy.setSourceModel(model)
    proxy.setSortRole(Role.SORT_KEY)
    proxy.setFilterKeyColumn(Column.NAME)
    proxy.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
    proxy.setDynamicSortFilter(True)
    proxy.sort(Column.PREFIX, Qt.SortOrder.AscendingOrder)
    return proxy
