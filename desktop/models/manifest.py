"""Token costs from a request's ContextManifest: per item, per kind, the gauge level, and what-if
comparisons of two RequestContexts.

Parts are matched to items by kind and name; tools by the model-facing name (``server__tool``,
:func:`agent_core.chat.prompt.tool_api_name`), which is how the manifest names them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Literal

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from agent_core.chat.prompt import tool_api_name
from agent_core.content_parts import human_size
from agent_core.context.items import ContextManifest, ItemRef, ManifestPart, RequestContext
from agent_core.context.manifest_rows import manifest_rows
from desktop.models._table import RowTableModel

__all__ = [
    "GROUPS",
    "Change",
    "CompareColumn",
    "CompareRole",
    "ComparisonModel",
    "ComparisonRow",
    "GaugeLevel",
    "Group",
    "PartsColumn",
    "PartsModel",
    "breakdown",
    "compare",
    "cost_of",
    "describe_totals",
    "gauge_level",
    "gauge_tooltip",
    "group_delta",
    "manifest_level",
    "total_line",
    "trimmed_lines",
]

GaugeLevel = Literal["empty", "ok", "warn", "over"]
Change = Literal["kept", "added", "removed"]

WARN_SHARE = 0.60  # amber from here
OVER_SHARE = 0.85  # red from here


@dataclass(frozen=True)
class Group:
    """One segment of the stacked bar: the part kinds it adds up, its label and colour."""

    key: str
    label: str
    kinds: tuple[str, ...]
    color: str


GROUPS: tuple[Group, ...] = (
    Group("system", "System prompt", ("system_prompt",), "#64748b"),
    Group("rules", "Rules", ("rule", "selected_rule"), "#2563eb"),
    Group("references", "References", ("reference", "selected_reference"), "#16a34a"),
    Group("skills", "Skills", ("skill", "skill_catalogue", "selected_skill"), "#ca8a04"),
    Group("tools", "Tools", ("tool",), "#d97706"),
    Group("memories", "Memories", ("memory",), "#0d9488"),
    Group("history", "History", ("history", "current_turns"), "#7c3aed"),
    Group("summary", "Summary", ("summary",), "#db2777"),
    Group("message", "Message", ("message",), "#0891b2"),
    Group("framing", "Framing", ("framing",), "#a1a1aa"),
)
_GROUP_OF_KIND = {kind: group for group in GROUPS for kind in group.kinds}


def breakdown(manifest: ContextManifest) -> list[tuple[Group, int]]:
    """Tokens per bar group, in bar order; groups with no parts are left out."""
    totals: dict[str, int] = {}
    seen: set[str] = set()
    for part in manifest.parts:
        group = _GROUP_OF_KIND.get(part.kind)
        if group is None:
            continue
        seen.add(group.key)
        totals[group.key] = totals.get(group.key, 0) + part.tokens
    return [(group, totals[group.key]) for group in GROUPS if group.key in seen]


def _part_name(ref: ItemRef) -> str:
    return tool_api_name(ref.server or "", ref.name) if ref.type == "tool" else ref.name


def cost_of(manifest: ContextManifest | None, ref: ItemRef) -> ManifestPart | None:
    """The manifest part for one item (a selected rule or reference counts too), or None."""
    if manifest is None:
        return None
    kinds = {
        "rule": ("rule", "selected_rule"),
        "reference": ("reference", "selected_reference"),
        "tool": ("tool",),
        "memory": ("memory",),
        "skill": ("skill", "skill_catalogue", "selected_skill"),
    }
    name = _part_name(ref)
    for part in manifest.parts:
        if part.kind in kinds[ref.type] and part.name == name:
            return part
    return None


def describe_totals(manifest: ContextManifest) -> str:
    """ "N of M tokens (window W from <source>, R reserved for the reply; counts exact|estimated)"."""
    how = "exact" if manifest.exact else "estimated"
    return (
        f"{manifest.total_tokens:,} of {manifest.budget:,} tokens "
        f"(window {manifest.window:,} from {manifest.window_source}, "
        f"{manifest.reply_reserve:,} reserved for the reply; counts {how})"
    )


def trimmed_lines(manifest: ContextManifest) -> list[str]:
    """What was left out or shortened to fit, and why, one line each."""
    lines = []
    for action in manifest.trimmed:
        saved = f" (saved {action.tokens_saved:,} tokens)" if action.tokens_saved else ""
        lines.append(f"{action.detail}{saved}")
    return lines


# Images listed one by one in View Context; the rest are counted.
MAX_IMAGE_LINES = 10


def image_lines(manifest: ContextManifest) -> list[str]:
    """Each image of a tool result in the request: passed to the model, or summarised and why
    (the newest first, at most ``MAX_IMAGE_LINES``, then how many more)."""
    lines = []
    newest_first = list(reversed(manifest.images))
    for use in newest_first[:MAX_IMAGE_LINES]:
        what = f"{use.tool.replace('__', '.', 1) or 'a tool'} image {use.number} ({use.mime_type or 'unknown type'}, {human_size(use.size_bytes)})"
        lines.append(f"{what}: passed to the model" if use.passed else f"{what}: summarised, {use.reason}")
    if len(newest_first) > MAX_IMAGE_LINES:
        rest = newest_first[MAX_IMAGE_LINES:]
        passed = sum(use.passed for use in rest)
        lines.append(f"{len(rest)} older: {passed} passed, {len(rest) - passed} summarised")
    return lines


def gauge_level(context: RequestContext | None) -> GaugeLevel:
    """Green under 60% of the room, amber under 85%, red beyond; "empty" with nothing to show."""
    return manifest_level(None if context is None else context.manifest)


def manifest_level(manifest: ContextManifest | None) -> GaugeLevel:
    """As ``gauge_level``, for a request's manifest (or an estimate of the next one)."""
    if manifest is None:
        return "empty"
    share = manifest.used_share
    if share < WARN_SHARE:
        return "ok"
    return "warn" if share < OVER_SHARE else "over"


def gauge_tooltip(manifest: ContextManifest) -> str:
    """The breakdown by kind, for the gauge's hover text."""
    lines = [describe_totals(manifest), ""]
    for group, tokens in breakdown(manifest):
        lines.append(f"{group.label}: {tokens:,}")
    trimmed = trimmed_lines(manifest)
    if trimmed:
        lines += ["", "Trimmed to fit:"] + [f"• {line}" for line in trimmed]
    return "\n".join(lines)


# --- the parts as a table -------------------------------------------------------------------------


class PartsColumn(IntEnum):
    KIND = 0
    NAME = 1
    TOKENS = 2
    DETAIL = 3


_PART_HEADERS = {
    PartsColumn.KIND: "Part",
    PartsColumn.NAME: "Name",
    PartsColumn.TOKENS: "Tokens",
    PartsColumn.DETAIL: "Detail",
}


class PartsModel(RowTableModel[ManifestPart]):
    """A manifest's parts, one per row, as :func:`manifest_rows` lists them (framing in one row)."""

    HEADERS = tuple(_PART_HEADERS[column] for column in PartsColumn)

    def __init__(self, manifest: ContextManifest | None = None, parent: Any = None) -> None:
        super().__init__(parent)
        self.set_manifest(manifest)

    def set_manifest(self, manifest: ContextManifest | None) -> None:
        self._reset_rows([] if manifest is None else manifest_rows(manifest))

    def part(self, row: int) -> ManifestPart:
        return self._rows[row]

    def cell_data(self, part: ManifestPart, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return {
                PartsColumn.KIND: part.kind.replace("_", " "),
                PartsColumn.NAME: part.name,
                PartsColumn.TOKENS: f"{part.tokens:,}",
                PartsColumn.DETAIL: part.detail,
            }[PartsColumn(column)]
        if role == Qt.ItemDataRole.TextAlignmentRole and column == PartsColumn.TOKENS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return part
        return None


# --- what-if: two contexts side by side -----------------------------------------------------------


@dataclass(frozen=True)
class ComparisonRow:
    """One item in either context: kept, added by the what-if, or removed by it."""

    ref: ItemRef
    change: Change
    before_mode: str | None
    after_mode: str | None
    before_tokens: int | None
    after_tokens: int | None
    before_score: float | None = None
    after_score: float | None = None


def compare(original: RequestContext, what_if: RequestContext) -> list[ComparisonRow]:
    """Every item of both contexts, the original's first, then what the what-if added."""
    before = {item.ref: item for item in original.items}
    after = {item.ref: item for item in what_if.items}
    rows = []
    for ref in [*before, *(r for r in after if r not in before)]:
        old, new = before.get(ref), after.get(ref)
        old_cost, new_cost = cost_of(original.manifest, ref), cost_of(what_if.manifest, ref)
        rows.append(
            ComparisonRow(
                ref,
                "kept" if old and new else "added" if new else "removed",
                old.include_mode if old else None,
                new.include_mode if new else None,
                old_cost.tokens if old_cost else None,
                new_cost.tokens if new_cost else None,
                old.score if old else None,
                new.score if new else None,
            )
        )
    return rows


class CompareColumn(IntEnum):
    ITEM = 0
    BEFORE = 1
    AFTER = 2


class CompareRole(IntEnum):
    CHANGE = Qt.ItemDataRole.UserRole + 1
    REF = Qt.ItemDataRole.UserRole + 2


_COMPARE_HEADERS = {
    CompareColumn.ITEM: "Item",
    CompareColumn.BEFORE: "Original",
    CompareColumn.AFTER: "What-if",
}
CHANGE_COLORS = {"added": "#16a34a", "removed": "#dc2626"}


def _cell(mode: str | None, tokens: int | None, score: float | None) -> str:
    if mode is None:
        return "—"
    text = mode.capitalize()
    if score is not None:
        text += f" {score:.2f}"
    if tokens is not None:
        text += f" · {tokens:,} tok"
    return text


class ComparisonModel(RowTableModel[ComparisonRow]):
    """The original and the what-if items side by side; added rows green, removed rows red."""

    HEADERS = tuple(_COMPARE_HEADERS[column] for column in CompareColumn)

    def set_contexts(self, original: RequestContext, what_if: RequestContext | None) -> None:
        self._reset_rows(compare(original, what_if) if what_if is not None else [])

    def rows(self) -> list[ComparisonRow]:
        return list(self._rows)

    def cell_data(self, row: ComparisonRow, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            if column == CompareColumn.ITEM:
                mark = {"added": "+ ", "removed": "− ", "kept": "  "}[row.change]
                return f"{mark}{row.ref.type}  {row.ref.label()}"
            if column == CompareColumn.BEFORE:
                return _cell(row.before_mode, row.before_tokens, row.before_score)
            return _cell(row.after_mode, row.after_tokens, row.after_score)
        if role == Qt.ItemDataRole.ForegroundRole and row.change in CHANGE_COLORS:
            return QColor(CHANGE_COLORS[row.change])
        if role == Qt.ItemDataRole.ToolTipRole:
            return {"kept": "In both", "added": "Only in the what-if", "removed": "Only in the original"}[
                row.change
            ]
        values: dict[int, Any] = {CompareRole.CHANGE: row.change, CompareRole.REF: row.ref}
        return values.get(role)


def total_line(label: str, context: RequestContext) -> str:
    """One side's totals for the comparison header."""
    if context.manifest is None:
        note = context.notes.budget or "no token counts"
        return f"{label}: {note}"
    manifest = context.manifest
    return f"{label}: {manifest.total_tokens:,} of {manifest.budget:,} tokens ({manifest.used_share:.0%})"


def group_delta(
    original: ContextManifest | None, what_if: ContextManifest | None
) -> list[tuple[str, int, int]]:
    """(group label, original tokens, what-if tokens) for every group in either manifest."""
    before = {g.key: t for g, t in breakdown(original)} if original else {}
    after = {g.key: t for g, t in breakdown(what_if)} if what_if else {}
    return [
        (g.label, before.get(g.key, 0), after.get(g.key, 0))
        for g in GROUPS
        if g.key in before or g.key in after
    ]
