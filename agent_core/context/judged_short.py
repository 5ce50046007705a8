"""How to say that an item was judged before its index was complete, in words for View Context
and the command line.

While a large agent's index is built in tiers (``indexer.tiers``), a selection judges a rule or a
reference on its description only, its body still waiting; a skill has no body, and what waits
is its description sentence by sentence, so it was judged on its description as a whole. The
two are said differently because only the first is about a body.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent_core.context.items import ItemRef

__all__ = ["judged_short_reason", "judged_short_summary", "judged_short_tag", "what_follows"]


def judged_short_reason(ref: ItemRef, still_indexing: bool) -> str:
    """Why ``ref``'s score may change once indexed: ``still_indexing`` when the background is at
    it, else it waits for ``contextdesk index`` (or the app)."""
    if ref.type == "skill":
        wait = "are still being indexed" if still_indexing else "are not indexed yet"
        return f"judged on its whole description only (its sentences {wait})"
    wait = "is still being indexed" if still_indexing else "is not indexed yet"
    return f"judged on its description only (its body {wait})"


def judged_short_tag(ref: ItemRef) -> str:
    """The same in two or three words, for a line that says more beside it (a near-miss)."""
    return "whole description only" if ref.type == "skill" else "description only"


def judged_short_summary(refs: Iterable[ItemRef], still_indexing: bool = True) -> str:
    """One phrase for the items of a selection judged short, e.g. "3 items judged on the
    description only (bodies still indexing)"; "" when there are none."""
    refs = list(refs)
    skills = sum(1 for ref in refs if ref.type == "skill")
    others = len(refs) - skills
    wait = "still indexing" if still_indexing else "not indexed yet"
    parts = []
    if others:
        parts.append(
            f"{others:,} item{'s' if others > 1 else ''} judged on the description only (bodies {wait})"
        )
    if skills:
        parts.append(
            f"{skills:,} skill{'s' if skills > 1 else ''} judged on the whole description only (sentences {wait})"
        )
    return "; ".join(parts)


def what_follows(types: Iterable[str]) -> str:
    """What the background embeds for items of these types after the first answer, in a word for
    a status line: "bodies", "sentences" (skills') or "bodies and sentences"."""
    kinds = set(types)
    words = [word for word, has in (("bodies", kinds - {"skill"}), ("sentences", "skill" in kinds)) if has]
    return " and ".join(words) or "bodies"
