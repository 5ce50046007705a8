"""Which minimum an item left out "under the floor" missed, and the score it needed, in the same
terms View Context's header uses (``minScore``, ``includeScore``).

The hybrid has more than one floor for a message: ``minScore`` itself; ``minScore`` raised by
``question_floor`` when the message asks how things are in general (the indexer's
``is_knowledge_question``); and, for one request of a compound message, that floor plus
``clause_margin``. Each is capped at ``includeScore`` (an item at or above it needs no floor). A
near-miss names the floor it missed, so its "needed" never reads as a different bar than the one
that left it out, and never as one its own score cleared.
"""

from __future__ import annotations

from indexer import ScoredDocument, SelectionSettings, is_knowledge_question

__all__ = ["BELOW_CLAUSE_FLOOR", "BELOW_QUESTION_FLOOR", "message_floor", "threshold_miss"]

BELOW_QUESTION_FLOOR = "below_question_floor"  # under minScore, raised for a general question
BELOW_CLAUSE_FLOOR = "below_clause_floor"  # cleared the message's floor, not one request's stricter one


def message_floor(settings: SelectionSettings, message: str) -> tuple[float, bool]:
    """The floor the whole ``message`` was held to, and whether it was raised for a question."""
    raised = settings.strategy == "hybrid" and settings.question_floor > 0 and is_knowledge_question(message)
    return settings.min_score + (settings.question_floor if raised else 0.0), raised


def threshold_miss(
    candidate: ScoredDocument, settings: SelectionSettings, message: str
) -> tuple[str, float | None]:
    """The reason a left-out ``candidate`` is shown with, and the score it needed (None when no
    threshold left it out: the reason is the indexer's as it is)."""
    if candidate.reason != "below_floor":
        return candidate.reason, None
    floor, raised = message_floor(settings, message)
    needed = min(floor, settings.include_score)
    if candidate.score >= needed:  # it cleared the message's floor: one request's stricter one left it out
        return BELOW_CLAUSE_FLOOR, round(min(floor + settings.clause_margin, settings.include_score), 4)
    return (BELOW_QUESTION_FLOOR if raised else "below_floor"), round(needed, 4)
