"""A compaction note made of checked facts, for a model too small to write one: what the user
asked first, decisions, open tasks, then names, numbers and dates, each citing its message
(``#id``, and who said it). The covered messages stay in the chat (Undo sends them again)."""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.budget.fact_extraction import Fact, extract_facts
from agent_core.store.records import StoredMessage

__all__ = ["fact_summary"]

#: At most this many decisions and tasks each, and names, numbers and dates each: the note must
#: stay far smaller than the turns it stands for.
MAX_SENTENCES = 12
MAX_TERMS = 30
#: The first request is kept up to this many characters.
MAX_START_CHARS = 240

_HEADINGS = (("decision", "Decisions"), ("task", "Open tasks and requests"))
_TERMS = (("name", "Names and files"), ("number", "Numbers"), ("date", "Dates"))


def fact_summary(covered: Sequence[StoredMessage], previous: str | None) -> str:
    """The note for ``covered`` (after ``previous``, the earlier summary, kept whole): facts found
    in the messages by rules, nothing written by a model."""
    facts = extract_facts(covered)
    first, last = covered[0].id, covered[-1].id
    lines = [
        f"Conversation so far: facts taken from messages #{first}-#{last} by rules (the chat's model "
        "cannot summarize reliably); each cites its message, and the messages are kept."
    ]
    if previous and previous.strip():
        lines += ["", "Earlier:", previous.strip()]
    start = next((m for m in covered if m.role == "user" and m.content.strip()), None)
    if start is not None:
        text = " ".join(start.content.split())
        clipped = text if len(text) <= MAX_START_CHARS else text[: MAX_START_CHARS - 1] + "…"
        lines += ["", f"Started with (#{start.id}, user): {clipped}"]
    for kind, heading in _HEADINGS:
        chosen = [fact for fact in facts if fact.kind == kind][:MAX_SENTENCES]
        if chosen:
            lines += ["", f"{heading}:"] + [f"- {fact.text} ({_cite(fact)})" for fact in chosen]
    for kind, heading in _TERMS:
        chosen = [fact for fact in facts if fact.kind == kind][:MAX_TERMS]
        if chosen:
            lines += ["", f"{heading}: " + "; ".join(f"{fact.text} ({_cite(fact)})" for fact in chosen)]
    if not facts:
        lines += ["", "No names, numbers, decisions or tasks were found in these messages."]
    return "\n".join(lines)


def _cite(fact: Fact) -> str:
    return f"#{fact.message_id}, {fact.role}"
