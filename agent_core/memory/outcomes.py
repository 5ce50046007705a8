"""What a write to an agent's memories did (:class:`WriteOutcome`), and what it may do with a
conflict it finds."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent_core.memory.records import Memory

__all__ = ["Action", "OnConflict", "WriteOutcome"]

Action = Literal["added", "proposed", "merged", "superseded", "conflict", "blocked"]

OnConflict = Literal["supersede", "propose", "keep_both"]


@dataclass(frozen=True)
class WriteOutcome:
    """What :meth:`MemoryBook.add` did.

    added / proposed: a new memory. merged: the same fact was there (``memory`` is that one,
    counted once more). superseded: the new memory replaced ``other``. conflict: the new memory
    was saved as a proposal that would supersede ``other`` once accepted. blocked: nothing saved
    (``warnings`` says why).
    """

    action: Action
    memory: Memory | None
    other: Memory | None = None
    warnings: tuple[str, ...] = ()
    reason: str = ""
