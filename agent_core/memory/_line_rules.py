"""Rules a memory line must meet beyond its types: no NUL character in any text, and no field that
says in another way what this format has its own field for (a line ``{"text": ..., "pinned": "yes"}``
would otherwise be stored unpinned, that is, only partly)."""

from __future__ import annotations

import math

__all__ = ["LATEST_TIME", "NUL_MESSAGE", "line_problems", "strict_text", "time_problem"]

#: Epoch seconds a memory's times may take: 1970-01-01 to the end of 9999 (what ISO dates can say).
LATEST_TIME = 253_402_300_799.0

NUL_MESSAGE = (
    "holds a NUL character (\\u0000), which is never stored: remove it (it is often a sign of "
    "binary data pasted by mistake)"
)

# Fields other tools use for something this format says with its own field: the line fails,
# naming the field to use. Other unknown fields are reported and ignored.
_SAID_ANOTHER_WAY: dict[str, str] = {
    "pinned": 'pin a memory with "tier": "pinned"',
    "pin": 'pin a memory with "tier": "pinned"',
    "tags": 'memories have no tags: put the main one in "kind" (a short word like fact or project)',
    "tag": 'memories have no tags: put it in "kind" (a short word like fact or project)',
    "type": 'the kind of memory goes in "kind"',
    "category": 'the kind of memory goes in "kind"',
    "priority": 'use "importance", a whole number 1-5',
    "content": 'the memory\'s words go in "text"',
    "memory": 'the memory\'s words go in "text"',
    "value": 'the memory\'s words go in "text"',
    "created": 'use "created_at", an ISO date like 2026-06-30T09:00:00Z',
    "date": 'use "created_at", an ISO date like 2026-06-30T09:00:00Z',
    "timestamp": 'use "created_at", an ISO date like 2026-06-30T09:00:00Z',
    "expires": 'use "expires_at", an ISO date like 2026-06-30',
    "expiry": 'use "expires_at", an ISO date like 2026-06-30',
}


def strict_text(value: str) -> str:
    """``value`` if it holds no NUL character.

    Raises:
        ValueError: it does (the message says so and the fix).
    """
    if "\x00" in value:
        raise ValueError(NUL_MESSAGE)
    return value


def line_problems(data: dict[str, object]) -> list[str]:
    """What is wrong with a memory line's fields that its types do not say, as "field: why"."""
    return [
        f"{key}: not a field of a memory line; {hint}"
        for key, hint in _SAID_ANOTHER_WAY.items()
        if key in data
    ]


def time_problem(seconds: object) -> str:
    """Why ``seconds`` is not a time a memory may carry ("" when it may; None is no time)."""
    if seconds is None:
        return ""
    number = isinstance(seconds, int | float) and not isinstance(seconds, bool)
    if number and math.isfinite(seconds) and 0 <= seconds <= LATEST_TIME:  # type: ignore[arg-type,operator]
        return ""
    return (
        f"{seconds!r} is not a time between 1970 and 9999: give an ISO date like 2026-06-30 or "
        "2026-06-30T09:00:00Z (or epoch seconds in that range), or leave the field out"
    )
