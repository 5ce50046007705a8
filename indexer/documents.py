"""What the indexer ranks: one :class:`Document` per rule, reference, tool or skill."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

__all__ = ["Document", "IndexedKind", "render_parameters", "tool_document"]

IndexedKind = Literal["rule", "reference", "tool", "skill"]


@dataclass(frozen=True)
class Document:
    """A context item as the indexer sees it. Immutable: an edit is a new Document.

    ``key`` is unique among the documents of one call (e.g. ``"rule:commit-messages"`` or
    ``"tool:github/create_issue"``). For rules and references ``text`` is the markdown body; for
    tools it is whatever describes the call beyond ``description``, e.g. rendered parameter
    descriptions (the anchor strategy ignores it for tools).
    """

    key: str
    kind: IndexedKind
    name: str
    description: str
    text: str
    server: str | None = None
    #: typical requests that need the item (its file's ``examples:``), embedded as chunks of it.
    examples: tuple[str, ...] = ()
    #: messages that needed it in a chat (the user added it after them), embedded as chunks of it.
    learned: tuple[str, ...] = ()
    #: messages it was removed after (the user took it out): a message much like one of them
    #: does not get it again.
    avoid: tuple[str, ...] = ()
    #: a skill's description of several sentences is also matched sentence by sentence; its
    #: description tier (:func:`indexer.tiers.description_tier`) leaves that to the background.
    by_sentence: bool = True


def render_parameters(input_schema: Mapping[str, object]) -> str:
    """A tool's JSON-schema parameters as text to embed, one ``name: description`` line each.

    Nested objects are not descended into; a parameter without a description contributes its name.
    """
    properties = input_schema.get("properties")
    if not isinstance(properties, Mapping):
        return ""
    lines = []
    for name, spec in properties.items():
        description = spec.get("description") if isinstance(spec, Mapping) else None
        words = str(name).replace("_", " ")
        lines.append(f"{words}: {description}" if isinstance(description, str) and description else words)
    return "\n".join(lines)


def tool_document(server: str, name: str, description: str, input_schema: Mapping[str, object]) -> Document:
    """The Document of an MCP tool, keyed ``tool:<server>/<name>``, its parameters as text."""
    return Document(
        key=f"tool:{server}/{name}",
        kind="tool",
        name=name,
        description=description,
        text=render_parameters(input_schema),
        server=server,
    )
