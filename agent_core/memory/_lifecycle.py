"""Which memories the lifecycle takes away: expired ones, those past a scope's cap, and those
gone long enough to delete for good. The book applies the changes."""

from __future__ import annotations

from collections.abc import Iterable

from agent_core.memory.records import Memory

__all__ = ["DAY", "PURGE_AFTER_DAYS", "due_to_expire", "due_to_prune", "due_to_purge"]

DAY = 86400.0
PURGE_AFTER_DAYS = 90  # forgotten, expired and rejected memories are deleted for good after this


def due_to_expire(memories: Iterable[Memory], now: float, short_ttl_days: float) -> list[Memory]:
    """Those past their expiry date, and short-tier ones unused for ``short_ttl_days``; never
    pinned ones."""
    ttl = short_ttl_days * DAY
    return [
        m
        for m in memories
        if m.tier != "pinned"
        and (
            (m.expires_at is not None and m.expires_at <= now)
            or (m.tier == "short" and (m.last_used_at or m.created_at) + ttl <= now)
        )
    ]


def due_to_prune(active: Iterable[Memory], cap: int, now: float) -> list[Memory]:
    """Of one scope's ``active`` memories, those past ``cap`` (pinned ones do not count): the
    least important and least recently used first."""
    unpinned = [m for m in active if m.tier != "pinned"]
    excess = len(unpinned) - cap
    if excess <= 0:
        return []
    unpinned.sort(key=lambda m: m.importance * _recency(m, now))
    return unpinned[:excess]


def due_to_purge(gone: Iterable[Memory], now: float) -> list[str]:
    """The ids of the forgotten, expired or rejected memories ``gone`` for PURGE_AFTER_DAYS."""
    limit = now - PURGE_AFTER_DAYS * DAY
    return [m.id for m in gone if m.updated_at <= limit]


def _recency(memory: Memory, now: float) -> float:
    """1 just used, halving every 30 days unused."""
    last = memory.last_used_at or memory.created_at
    return float(0.5 ** (max(0.0, now - last) / (30 * DAY)))
