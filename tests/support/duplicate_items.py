"""Real skills found in two public collections (tests/fixtures/duplicate_items), as selection's
candidates: for the duplicate-folding tests."""

from __future__ import annotations

import yaml

from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import IncludeMode
from agent_core.context.selection import Candidate, document_candidate
from tests.support.paths import FIXTURES

__all__ = ["COLLECTIONS", "reference"]

COLLECTIONS = FIXTURES / "duplicate_items"


def reference(collection: str, folder: str, name: str | None = None) -> Candidate:
    """A skill of a collection as a reference, the shape a TsAgent library import gives (name,
    description, text), named ``name`` in the agent (an import names a second copy ``name-2``)."""
    raw = (COLLECTIONS / collection / folder / "SKILL.md").read_text(encoding="utf-8")
    _, header, body = raw.split("---", 2)
    meta = yaml.safe_load(header)
    return document_candidate(
        DocumentItem(
            "reference",
            name or meta["name"],
            description=meta["description"],
            include=IncludeMode.AGENT,
            text=body.strip(),
        )
    )
