"""One agent's memories: writing them with consent, provenance and history; duplicates merged,
conflicts offered as superseding; the lifecycle (expiry, pruning, restoring).

Every write goes through :meth:`MemoryBook.add` or one of the small verbs below it, and each is
one transaction with its history event.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal

import numpy as np

from agent_core.agent.schema import MemoryConfig
from agent_core.memory._drafts import (
    MAX_MEMORY_CHARS,
    MemoryDraft,
    MemoryInputError,
    check_draft,
    clean_kind,
    clean_text,
    draft_of,
)
from agent_core.memory._lifecycle import due_to_expire, due_to_prune, due_to_purge
from agent_core.memory._neighbours import Embedder, judged_neighbours
from agent_core.memory._new_records import merged_with, new_memory
from agent_core.memory.index import MemoryIndex
from agent_core.memory.outcomes import OnConflict, WriteOutcome
from agent_core.memory.records import Actor, Memory, MemoryEvent, Scope, Status, Tier
from agent_core.memory.sensitive import find_sensitive
from agent_core.memory.store import MemoryFilter, MemoryStore, StoredVector

__all__ = [
    "MAX_MEMORY_CHARS",
    "Embedder",
    "MemoryBook",
    "MemoryDraft",
    "MemoryInputError",
    "WriteOutcome",
]


class MemoryBook:
    """The memories an agent (folder ``agent``) can see, and every way to change them."""

    def __init__(
        self,
        store: MemoryStore,
        embedder: Embedder,
        agent: str,
        config: MemoryConfig | None = None,
        *,
        clock: object = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.agent = agent
        self.config = config or MemoryConfig()
        self._now = clock if callable(clock) else time.time
        self._index: MemoryIndex | None = None

    # -- reading -------------------------------------------------------------------------------

    @property
    def index(self) -> MemoryIndex:
        if self._index is None:
            self._index = MemoryIndex(self.store, self.agent, self.embedder.model_id)
            self._embed_missing(self._index)
        return self._index

    def get(self, memory_id: str) -> Memory:
        memory = self.store.get(memory_id)
        if memory is None or not self._visible(memory):
            raise MemoryInputError(
                f"No memory {memory_id!r} for this agent: `contextdesk memory list --all` shows their ids."
            )
        return memory

    def find(
        self,
        *,
        statuses: Sequence[Status] | None = ("active", "proposed"),
        scopes: Sequence[Scope] | None = None,
        text: str = "",
        session_id: str | None = None,
        every_chat: bool = True,
    ) -> list[Memory]:
        return self.store.find(
            MemoryFilter(
                agent=self.agent,
                session_id=session_id,
                statuses=frozenset(statuses) if statuses is not None else None,
                scopes=frozenset(scopes) if scopes is not None else None,
                text=text,
                include_other_chats=every_chat,
            )
        )

    def history(self, memory_id: str) -> list[MemoryEvent]:
        self.get(memory_id)
        return self.store.history(memory_id)

    # -- writing -------------------------------------------------------------------------------

    def add(
        self,
        draft: MemoryDraft,
        actor: Actor = "user",
        *,
        status: Literal["active", "proposed"] = "active",
        on_conflict: OnConflict = "supersede",
        supersedes: str | None = None,
    ) -> WriteOutcome:
        """Write ``draft`` unless it is already known; see :class:`WriteOutcome` for what happens.

        Sensitive data (``sensitive.py``) is never saved unless the user typed it (then a warning
        comes back). ``supersedes`` names a memory the new one replaces, whatever they say.

        Raises:
            MemoryInputError: the text, kind, importance or scope is not valid, or ``supersedes`` is unknown.
            StoreError: the database could not be written.
        """
        text = clean_text(draft.text)
        draft = replace(draft, text=text, kind=clean_kind(draft.kind))
        check_draft(draft)
        found = find_sensitive(text)
        warnings = tuple(f"it looks like it holds {match}" for match in found)
        if found and actor != "user":
            return WriteOutcome(
                "blocked", None, warnings=warnings, reason="sensitive data is never saved automatically"
            )
        vector = self._vector(text)
        if supersedes is not None:
            old, reason = self.get(supersedes), "named as superseded"
        else:
            verdicts = judged_neighbours(self.index, self.embedder, vector, draft)
            duplicate = next((n for n, v in verdicts if v.relation == "duplicate"), None)
            if duplicate is not None:
                reason = next(v.reason for n, v in verdicts if n is duplicate)
                merged = self.merge(duplicate.memory, draft, actor, reason)
                return WriteOutcome("merged", merged, warnings=warnings, reason=reason)
            conflict = next(((n, v) for n, v in verdicts if v.relation == "conflict"), None)
            if conflict is None or on_conflict == "keep_both":
                new = self._insert(draft, actor, status, vector)
                return WriteOutcome("added" if status == "active" else "proposed", new, warnings=warnings)
            old, reason = conflict[0].memory, conflict[1].reason
        if status == "active" and on_conflict != "propose":
            new = self._insert(draft, actor, "active", vector, superseding=(old, reason))
            return WriteOutcome("superseded", new, old, warnings, reason)
        new = self._insert(draft, actor, "proposed", vector, proposed_over=old.id)
        return WriteOutcome("conflict", new, old, warnings, reason)

    def insert_as_is(
        self,
        draft: MemoryDraft,
        status: Status,
        actor: Actor,
        *,
        supersedes: str | None = None,
        embed: bool = True,
    ) -> Memory:
        """Write ``draft`` with ``status`` without looking for duplicates (restoring an export);
        ``supersedes`` names a memory it replaces. Without ``embed``, its embedding is made when
        the index is next built (a bulk import: the model is the slow part)."""
        text = clean_text(draft.text)
        draft = replace(draft, text=text, kind=clean_kind(draft.kind))
        check_draft(draft)
        old = (self.get(supersedes), "named as superseded") if supersedes is not None else None
        return self._insert(draft, actor, status, self._vector(text) if embed else None, superseding=old)

    def drop_index(self) -> None:
        """Forget the in-memory index (after writes that were rolled back); rebuilt on next use."""
        self._index = None

    def accept(self, memory_id: str, actor: Actor = "user") -> Memory:
        """A proposal becomes active (and supersedes the memory it conflicted with, if any)."""
        memory = self.get(memory_id)
        if memory.status != "proposed":
            raise MemoryInputError(f"Memory {memory_id} is {memory.status}, not proposed: nothing to accept.")
        accepted = replace(memory, status="active", supersedes=None, updated_at=self._now())
        old = self.store.get(memory.supersedes) if memory.supersedes else None
        with self.store.write() as writes:
            writes.update(accepted, self._event(accepted, "accepted", actor))
            if old is not None and old.status == "active":
                superseded = replace(
                    old, status="superseded", superseded_by=accepted.id, updated_at=self._now()
                )
                writes.update(
                    superseded, self._event(superseded, "superseded", actor, detail=f"by {accepted.id}")
                )
                self._put(superseded, None)
        self._put(accepted, None)
        return accepted

    def reject(self, memory_id: str, actor: Actor = "user") -> Memory:
        memory = self.get(memory_id)
        if memory.status != "proposed":
            raise MemoryInputError(f"Memory {memory_id} is {memory.status}, not proposed: forget it instead.")
        return self._set(memory, "rejected", actor, status="rejected", supersedes=None)

    def edit(self, memory_id: str, text: str, actor: Actor = "user") -> Memory:
        """New words for a memory (its history keeps the old ones)."""
        memory = self.get(memory_id)
        text = clean_text(text)
        check_draft(replace(draft_of(memory), text=text))
        vector = self._vector(text)
        edited = replace(memory, text=text, updated_at=self._now())
        with self.store.write() as writes:
            writes.update(
                edited, self._event(edited, "edited", actor, old_text=memory.text, new_text=text), vector
            )
        self._put(edited, vector)
        return edited

    def set_details(
        self,
        memory_id: str,
        *,
        kind: str | None = None,
        importance: int | None = None,
        scope: Scope | None = None,
        expires_at: float | None = None,
        actor: Actor = "user",
    ) -> Memory:
        memory = self.get(memory_id)
        changed = replace(
            memory,
            kind=clean_kind(kind) if kind is not None else memory.kind,
            importance=importance if importance is not None else memory.importance,
            scope=scope or memory.scope,
            expires_at=expires_at if expires_at is not None else memory.expires_at,
        )
        check_draft(draft_of(changed))
        detail = ", ".join(
            f"{name} {getattr(memory, name)} → {getattr(changed, name)}"
            for name in ("kind", "importance", "scope", "expires_at")
            if getattr(memory, name) != getattr(changed, name)
        )
        return self._set(changed, "changed", actor, detail=detail)

    def pin(self, memory_id: str, pinned: bool = True, actor: Actor = "user") -> Memory:
        """Pinned memories are recalled in every request and never expire."""
        memory = self.get(memory_id)
        tier: Tier = "pinned" if pinned else ("long" if memory.tier == "pinned" else memory.tier)
        return self._set(memory, "pinned" if pinned else "unpinned", actor, tier=tier)

    def forget(self, memory_id: str, actor: Actor = "user", *, detail: str = "") -> Memory:
        """Gone from the next request; kept in the Forgotten list until purged (or restored)."""
        memory = self.get(memory_id)
        return self._set(memory, "forgotten", actor, status="forgotten", detail=detail)

    def restore(self, memory_id: str, actor: Actor = "user") -> Memory:
        """A forgotten, expired, rejected or superseded memory becomes active again."""
        memory = self.get(memory_id)
        if memory.status in ("active", "proposed"):
            raise MemoryInputError(f"Memory {memory_id} is {memory.status}: nothing to restore.")
        restored = self._set(memory, "restored", actor, status="active", superseded_by=None)
        if memory.expires_at is not None and memory.expires_at <= self._now():
            restored = self._set(restored, "changed", actor, expires_at=None, detail="expiry removed")
        return restored

    def delete_all(self) -> int:
        """Delete every memory of this agent (its agent- and chat-scoped ones) for good."""
        doomed = [m.id for m in self.find(statuses=None, scopes=("agent", "chat"))]
        with self.store.write("could not delete the memories") as writes:
            for memory_id in doomed:
                writes.delete(memory_id)
        self._index = None
        return len(doomed)

    # -- lifecycle -----------------------------------------------------------------------------

    def expire(self) -> list[Memory]:
        """Active memories past their expiry date, or short-tier ones unused for shortTtlDays,
        become expired (hidden, never recalled; purged later)."""
        due = due_to_expire(
            self.find(statuses=("active", "proposed")), self._now(), self.config.short_ttl_days
        )
        return [self._set(m, "expired", "system", status="expired") for m in due]

    def prune(self) -> list[Memory]:
        """Past capPerScope active memories in a scope, the least important and least recently
        used go to the Forgotten list (restorable)."""
        cap, now = self.config.cap_per_scope, self._now()
        detail = f"pruned: over the cap of {cap}"
        return [
            self.forget(memory.id, "system", detail=detail)
            for scope in ("global", "agent", "chat")
            for memory in due_to_prune(self.find(statuses=("active",), scopes=(scope,)), cap, now)
        ]

    def purge(self) -> int:
        """Delete for good what has been forgotten, expired or rejected for PURGE_AFTER_DAYS."""
        doomed = due_to_purge(self.find(statuses=("forgotten", "expired", "rejected")), self._now())
        with self.store.write("could not purge old memories") as writes:
            for memory_id in doomed:
                writes.delete(memory_id)
        return len(doomed)

    # -- internals -----------------------------------------------------------------------------

    def _put(self, memory: Memory, vector: StoredVector | None) -> None:
        if self._index is not None:  # else it is built from the database on next use
            self._index.put(memory, vector)

    def _visible(self, memory: Memory) -> bool:
        return memory.scope == "global" or memory.agent == self.agent

    def _vector(self, text: str) -> StoredVector:
        return StoredVector(
            self.embedder.model_id, np.asarray(self.embedder.embed([text])[0], dtype=np.float32)
        )

    def _embed_missing(self, index: MemoryIndex) -> None:
        missing = index.missing_vectors()
        for start in range(0, len(missing), 1000):  # a transaction a slice: a kill keeps the rest
            part = missing[start : start + 1000]
            vectors = self.embedder.embed([m.text for m in part])
            with self.store.write("could not save the memories' embeddings") as writes:
                for memory, row in zip(part, vectors, strict=True):
                    writes.update(
                        memory,
                        self._event(memory, "embedded", "system"),
                        StoredVector(self.embedder.model_id, row),
                    )

    def _insert(
        self,
        draft: MemoryDraft,
        actor: Actor,
        status: Status,
        vector: StoredVector | None,
        *,
        superseding: tuple[Memory, str] | None = None,
        proposed_over: str | None = None,
    ) -> Memory:
        """Write a new memory; with ``superseding`` (old memory, reason) the old one is marked
        superseded in the same transaction, so no crash leaves both active."""
        now = self._now()
        memory_id = draft.id or f"m-{uuid.uuid4().hex[:12]}"
        if self.store.get(memory_id) is not None:
            raise MemoryInputError(
                f"A memory with id {memory_id!r} already exists: give another id, or leave it out."
            )
        memory = new_memory(draft, memory_id, self.agent, status, now, proposed_over)
        event = "created" if status == "active" else "proposed" if status == "proposed" else "imported"
        detail = f"would supersede {proposed_over}" if proposed_over else ""
        old: Memory | None = None
        with self.store.write() as writes:
            writes.insert(
                memory, vector, self._event(memory, event, actor, new_text=memory.text, detail=detail)
            )
            if superseding is not None:
                previous, reason = superseding
                old = replace(previous, status="superseded", superseded_by=memory.id, updated_at=now)
                writes.update(old, self._event(old, "superseded", actor, detail=f"by {memory.id}: {reason}"))
        if vector is None:
            self._index = None  # rebuilt (and the missing embeddings made) on next use
            return memory
        self._put(memory, vector)
        if old is not None:
            self._put(old, None)
        return memory

    def merge(self, memory: Memory, draft: MemoryDraft, actor: Actor, reason: str) -> Memory:
        """``draft`` is ``memory`` said again: counted once more, with where it was said."""
        merged, detail = merged_with(memory, draft, self._now(), reason)
        with self.store.write() as writes:
            writes.update(merged, self._event(merged, "merged", actor, new_text=draft.text, detail=detail))
        self._put(merged, None)
        return merged

    def _set(
        self, memory: Memory, event: str, actor: Actor, *, detail: str = "", **changes: object
    ) -> Memory:
        changed = replace(memory, updated_at=self._now(), **changes)  # type: ignore[arg-type]
        with self.store.write() as writes:
            writes.update(changed, self._event(changed, event, actor, detail=detail))
        self._put(changed, None)
        return changed

    def _event(
        self,
        memory: Memory,
        event: str,
        actor: Actor,
        *,
        old_text: str | None = None,
        new_text: str | None = None,
        detail: str = "",
    ) -> MemoryEvent:
        return MemoryEvent(memory.id, event, actor, self._now(), old_text, new_text, detail)
