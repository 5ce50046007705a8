"""Documents for the indexing-in-tiers tests: real skills as the indexer sees them, and an item
only its body describes."""

from __future__ import annotations

from collections.abc import Sequence

from indexer import Document, _strategies
from indexer.tiers import description_tier
from tests.support.skill_collection import real_skill_folders

__all__ = ["MESSAGE", "TELESCOPE", "WAIT", "body_chunks", "skill_documents"]

WAIT = 120.0

# Only its body says what it is for: judged on its description, it cannot match.
TELESCOPE = Document(
    "reference:club-handbook",
    "reference",
    "club-handbook",
    "The handbook of the club",
    "Opening hours are on the door.\n\n"
    "To collimate the telescope mirror, point it at a bright star and centre the donut with the "
    "three screws at the back of the tube.",
)
MESSAGE = "how do I collimate the telescope mirror?"


def skill_documents(copies: int) -> list[Document]:
    """Skills as the indexer sees them, from the real skill fixtures; each copy's paragraphs carry
    its number, so that no two copies share a chunk (as different skills would not)."""
    out: list[Document] = []
    folders = real_skill_folders()
    for index in range(copies):
        text = (folders[index % len(folders)] / "SKILL.md").read_text(encoding="utf-8")
        _, front, body = text.split("---", 2)
        description = next(
            line.split(":", 1)[1].strip() for line in front.splitlines() if line.startswith("description:")
        )
        paragraphs = [p for p in body.split("\n\n") if p.strip()]
        body = "\n\n".join(f"{p.rstrip()} ({index})" for p in paragraphs)
        name = f"skill-{index:03d}"
        out.append(
            Document(f"skill:{name}", "skill", name, description, body, examples=(f"help with {name}",))
        )
    return out


def body_chunks(documents: Sequence[Document]) -> set[str]:
    """The chunks of ``documents`` that only their bodies have (their body tiers)."""
    heads = {t for d in documents for t in _strategies.chunks("hybrid", description_tier(d))}
    return {t for d in documents for t in _strategies.chunks("hybrid", d)} - heads
