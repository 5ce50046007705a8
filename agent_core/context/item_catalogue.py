"""``context.read_item``: a tool whose description is a compact catalogue of the agent-mode rules
and references selection left out for this message (near-misses first, each item once), and which
reads one of them, or one ``context.search_items`` found in the same reply. Anything else is
refused: the model reads only what it was offered."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.schema import IncludeMode
from agent_core.context.items import ItemRef, NearMiss
from agent_core.context.listed_once import LeftOut, Listed, left_out
from agent_core.context.request_tools import ToolAnswer

__all__ = [
    "CATALOGUE_CHARS",
    "CONTEXT_SERVER",
    "MAX_ITEM_CHARS",
    "READ_ITEM",
    "ItemCatalogueTool",
    "catalogue_tool",
    "read_item",
]

#: The server name the second opinion's tools appear under (``context.read_item``).
CONTEXT_SERVER = "context"
READ_ITEM = "read_item"
#: The catalogue's size, at most (about 400 tokens).
CATALOGUE_CHARS = 1_600
#: The longest text ``read_item`` returns.
MAX_ITEM_CHARS = 20_000
#: The longest description a catalogue line shows.
LINE_DESCRIPTION_CHARS = 160


@dataclass(frozen=True)
class ItemCatalogueTool:
    """``context.read_item``, its description the catalogue (an ``AnsweredTool``)."""

    catalogue: tuple[tuple[str, str, str], ...]  # (kind, name, description), best first
    agent: Agent = field(repr=False, compare=False)
    #: how many items were left out in all (once each); more than the catalogue lists when it is full.
    left_out: int = 0
    #: the items a search in this reply found (filled by ``context.search_items``); None: no search.
    found: set[ItemRef] | None = field(default=None, compare=False)
    server: str = CONTEXT_SERVER
    name: str = READ_ITEM
    include: IncludeMode = IncludeMode.ALWAYS
    permission_required: bool = False

    @property
    def description(self) -> str:
        lines = "\n".join(
            f"- {kind} {name}: {description}" if description else f"- {kind} {name}"
            for kind, name, description in self.catalogue
        )
        head = "Read a rule or reference of this agent that was not included for this message, when the request needs it"
        if self.found is None:
            return f"{head}. Not included:\n{lines}"
        listed = len(self.catalogue)
        more = (
            f" ({listed} of {self.left_out} listed; search for the others)" if listed < self.left_out else ""
        )
        return f"{head}: one listed below, or one context.search_items found. Not included{more}:\n{lines}"

    @property
    def input_schema(self) -> Mapping[str, Any]:
        name: dict[str, Any] = {"type": "string"}
        if self.found is not None:  # a search may find any rule or reference: no list of names
            kinds = ["reference", "rule"]
        else:
            kinds = sorted({kind for kind, _, _ in self.catalogue})
            name["enum"] = [name for _, name, _ in self.catalogue]
        return {
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": kinds}, "name": name},
            "required": ["kind", "name"],
            "additionalProperties": False,
        }

    def offered(self, kind: str) -> list[str]:
        """The names of the items of ``kind`` this tool may read now."""
        listed = [name for listed_kind, name, _ in self.catalogue if listed_kind == kind]
        return listed + sorted(ref.name for ref in self.found or () if ref.type == kind)

    async def answer(self, arguments: Mapping[str, Any]) -> ToolAnswer:
        try:
            ref, text = read_item(
                self.agent,
                arguments,
                self.offered(str(arguments.get("kind", ""))),
                searched=self.found is not None,
            )
        except LookupError as error:
            return ToolAnswer(f"The tool failed: {error}", is_error=True)
        return ToolAnswer(text, pulled=ref)


def catalogue_tool(
    agent: Agent,
    included: Collection[ItemRef],
    excluded: Collection[ItemRef],
    near_misses: Sequence[NearMiss],
    left: LeftOut | None = None,
) -> ItemCatalogueTool | None:
    """The catalogue of the agent-mode rules and references not in the request (near-misses
    first, then by priority; copies of one item once), within ``CATALOGUE_CHARS``; None when there
    are none. ``left``: what the request left out, when the caller has it already."""
    left = left or left_out(agent, {*included, *excluded})
    listed = [entry for entry in left.listed if entry.ref in left.documents]
    rank = {miss.ref: i for i, miss in enumerate(near_misses)}

    def order(entry: Listed) -> tuple[int, int, str]:
        best = min(rank.get(ref, len(rank)) for ref in (entry.ref, *entry.copies))
        return best, left.documents[entry.ref].priority_level, entry.ref.name

    catalogue: list[tuple[str, str, str]] = []
    used = 0
    for entry in sorted(listed, key=order):
        description = (
            " ".join(left.descriptions[entry.ref].split())[:LINE_DESCRIPTION_CHARS] + entry.also_in()
        )
        used += len(entry.ref.type) + len(entry.ref.name) + len(description) + 6
        if used > CATALOGUE_CHARS:
            break
        catalogue.append((entry.ref.type, entry.ref.name, description))
    return ItemCatalogueTool(tuple(catalogue), agent, left_out=len(listed)) if catalogue else None


def read_item(
    agent: Agent, arguments: Mapping[str, Any], offered: Collection[str], *, searched: bool = False
) -> tuple[ItemRef, str]:
    """The item the model asked for and its text.

    Raises:
        LookupError: it names no item the catalogue offered (nor, when ``searched``, a search
            found); the model reads why.
    """
    kind, name = str(arguments.get("kind", "")), str(arguments.get("name", ""))
    item = agent.document(kind, name) if kind in ("rule", "reference") else None  # type: ignore[arg-type]
    if item is None or name not in offered:
        also = " or one context.search_items found in this reply" if searched else ""
        raise LookupError(f"no {kind or 'item'} named {name!r} in the catalogue; read one it lists{also}")
    text = item.text if len(item.text) <= MAX_ITEM_CHARS else item.text[:MAX_ITEM_CHARS] + "\n…"
    return ItemRef(item.kind, item.name), text
