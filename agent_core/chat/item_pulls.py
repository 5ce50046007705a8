"""A second opinion on selection: a model that chooses tools itself is offered a compact catalogue
of the agent-mode rules and references selection left out for this message, and a tool to read
one. An item read this way joins the reply's RequestContext as "requested by the model", and
selection learns from it as from the user's own additions."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import IncludeMode
from agent_core.context.items import ItemRef, NearMiss

__all__ = ["CONTEXT_SERVER", "PULLED_REASON", "READ_ITEM", "ItemCatalogueTool", "catalogue_tool", "read_item"]

#: The server name of the catalogue's tool (``context.read_item``).
CONTEXT_SERVER = "context"
READ_ITEM = "read_item"
#: How an item the model read shows in View Context.
PULLED_REASON = "requested by the model"
#: The catalogue's size, at most (about 400 tokens).
CATALOGUE_CHARS = 1_600
#: The longest text ``read_item`` returns.
MAX_ITEM_CHARS = 20_000


@dataclass(frozen=True)
class ItemCatalogueTool:
    """``context.read_item``, its description the catalogue (a ToolDescriptor)."""

    catalogue: tuple[tuple[str, str, str], ...]  # (kind, name, description), best first
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
        return (
            "Read a rule or reference of this agent that was not included for this message, when the "
            f"request needs it. Not included:\n{lines}"
        )

    @property
    def input_schema(self) -> Mapping[str, Any]:
        return {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "enum": sorted({kind for kind, _, _ in self.catalogue})},
                "name": {"type": "string", "enum": [name for _, name, _ in self.catalogue]},
            },
            "required": ["kind", "name"],
            "additionalProperties": False,
        }


def catalogue_tool(
    agent: Agent,
    included: Collection[ItemRef],
    excluded: Collection[ItemRef],
    near_misses: Sequence[NearMiss],
) -> ItemCatalogueTool | None:
    """The catalogue of the agent-mode rules and references not in the request (near-misses
    first, then by priority), within ``CATALOGUE_CHARS``; None when there are none."""
    candidates: list[DocumentItem] = [
        item
        for kind in ("rule", "reference")
        for item in agent.documents(kind).values()
        if item.include is IncludeMode.AGENT
        and ItemRef(item.kind, item.name) not in included
        and ItemRef(item.kind, item.name) not in excluded
    ]
    rank = {(m.ref.type, m.ref.name): i for i, m in enumerate(near_misses)}
    candidates.sort(key=lambda i: (rank.get((i.kind, i.name), len(rank)), i.priority_level, i.name))
    catalogue: list[tuple[str, str, str]] = []
    used = 0
    for item in candidates:
        description = " ".join(item.description.split())[:160]
        used += len(item.kind) + len(item.name) + len(description) + 6
        if used > CATALOGUE_CHARS:
            break
        catalogue.append((item.kind, item.name, description))
    return ItemCatalogueTool(tuple(catalogue)) if catalogue else None


def read_item(agent: Agent, arguments: Mapping[str, Any], offered: Collection[str]) -> tuple[ItemRef, str]:
    """The item the model asked for and its text.

    Raises:
        LookupError: it names no item the catalogue offered (the model reads why).
    """
    kind, name = str(arguments.get("kind", "")), str(arguments.get("name", ""))
    item = agent.document(kind, name) if kind in ("rule", "reference") else None  # type: ignore[arg-type]
    if item is None or name not in offered:
        raise LookupError(f"no {kind or 'item'} named {name!r} in the catalogue; read one it lists")
    text = item.text if len(item.text) <= MAX_ITEM_CHARS else item.text[:MAX_ITEM_CHARS] + "\n…"
    return ItemRef(item.kind, item.name), text
