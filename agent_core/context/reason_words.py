"""Why selection left an item out, in the words every front end shows (View Context, ``contextdesk
select``): the indexer's reason codes are terse ("not_named"), and a user should read the same
sentence in the app and on the command line."""

from __future__ import annotations

__all__ = ["REASON_WORDS", "reason_words"]

REASON_WORDS = {
    "outside_top_n": "good match, but topN better items were chosen",
    "below_floor": "under minScore",
    "below_question_floor": "under minScore raised for a question",
    "below_clause_floor": "under the stricter minScore of the request it matched",
    "far_from_best": "much weaker than the best match",
    "not_in_top_k": "no chunk among the topK matches",
    "above_include_score": "above the include score",
    "within_top_n": "within topN",
    "removed_for_similar": "you removed it after a similar message",
    "not_named": "one of many items described alike, and the message does not name it",
    "twin_of_better": "a near twin of a better chosen item",
    "one_thing_asked": "the message asks what one thing is, and a better item is about it",
}


def reason_words(reason: str) -> str:
    """``reason`` in words: a known code as its sentence, another code as its words, and a reason
    already in words (which may name an item: "duplicate of gh_fix_ci") as it is."""
    if reason in REASON_WORDS:
        return REASON_WORDS[reason]
    return reason.replace("_", " ") if reason.isidentifier() and reason.islower() else reason
