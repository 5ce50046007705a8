"""What selection learned from the user, per agent: an agent-mode item added to a chat right after
a message (it was needed and missed) or removed from that message's reply (it was not needed).

A later message much like one of them gets the item (or does not), and View Context says so. The
user lists and clears what was learned (``contextdesk agent learned``, the desktop's Agent menu).
The corrections live in the app's database, never in the agent folder; the store shares the
file's one lock with every other store on it in this process (``agent_core.database.base``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent_core.context.items import ItemRef
from agent_core.database.base import SqliteStore
from indexer import Document

__all__ = ["MAX_CORRECTIONS", "Correction", "LearnedSelections", "ref_of_key", "taught"]

#: The most corrections kept per agent (the oldest go first).
MAX_CORRECTIONS = 500
#: The longest message kept with a correction.
MAX_MESSAGE_CHARS = 2_000


@dataclass(frozen=True)
class Correction:
    id: int
    agent_path: str
    ref: ItemRef
    message: str
    added: bool  # True: added after the message (needed); False: removed from its reply
    session_id: str
    created_at: float

    def describe(self) -> str:
        """ "you added it after a similar message on 2026-11-27" """
        day = time.strftime("%Y-%m-%d", time.localtime(self.created_at))
        verb = "added it after" if self.added else "removed it after"
        return f"you {verb} a similar message on {day}"


def ref_of_key(key: str) -> ItemRef | None:
    """The item of ``ItemRef.key`` (``rule:x``, ``reference:x``, ``skill:x``, ``tool:server/name``)."""
    kind, _, rest = key.partition(":")
    if kind == "tool":
        server, _, name = rest.partition("/")
        return ItemRef("tool", name, server) if server and name else None
    if kind in ("rule", "reference", "skill") and rest:
        return ItemRef(kind, rest)  # type: ignore[arg-type]
    return None


def taught(documents: Sequence[Document], corrections: Sequence[Correction]) -> list[Document]:
    """``documents`` with what ``corrections`` taught: each item's messages it was needed for
    (``learned``) and was not (``avoid``), the newest correction of a message winning."""
    latest: dict[tuple[str, str], Correction] = {}
    for correction in sorted(corrections, key=lambda c: (c.created_at, c.id)):
        latest[(correction.ref.key, correction.message)] = correction
    learned: dict[str, list[str]] = {}
    avoid: dict[str, list[str]] = {}
    for (key, message), correction in latest.items():
        (learned if correction.added else avoid).setdefault(key, []).append(message)
    return [
        replace(d, learned=tuple(learned.get(d.key, d.learned)), avoid=tuple(avoid.get(d.key, d.avoid)))
        if d.key in learned or d.key in avoid
        else d
        for d in documents
    ]


class LearnedSelections(SqliteStore):
    """The corrections of every agent, in the app's database."""

    def record(
        self, agent_path: str, ref: ItemRef, message: str, *, added: bool, session_id: str = ""
    ) -> None:
        """Keep one correction; it replaces an earlier one of the same item and message.

        Raises:
            StoreError: the database could not be written.
        """
        message = message[:MAX_MESSAGE_CHARS]
        with self._transaction("could not keep what selection learned") as db:
            db.execute(
                "DELETE FROM selection_feedback WHERE agent_path = ? AND item_key = ? AND message = ?",
                (agent_path, ref.key, message),
            )
            db.execute(
                "INSERT INTO selection_feedback(agent_path, item_key, message, added, session_id, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (agent_path, ref.key, message, int(added), session_id, time.time()),
            )
            db.execute(
                "DELETE FROM selection_feedback WHERE agent_path = ? AND id NOT IN ("
                "SELECT id FROM selection_feedback WHERE agent_path = ? ORDER BY created_at DESC, id DESC "
                "LIMIT ?)",
                (agent_path, agent_path, MAX_CORRECTIONS),
            )

    def corrections(self, agent_path: str) -> list[Correction]:
        """The agent's corrections, oldest first.

        Raises:
            StoreError: the database could not be read.
        """
        rows = self._select(
            "SELECT id, agent_path, item_key, message, added, session_id, created_at "
            "FROM selection_feedback WHERE agent_path = ? ORDER BY created_at, id",
            (agent_path,),
            "could not read what selection learned",
        )
        corrections = []
        for row in rows:
            ref = ref_of_key(row[2])
            if ref is not None:
                corrections.append(
                    Correction(row[0], row[1], ref, row[3], bool(row[4]), row[5] or "", row[6])
                )
        return corrections

    def clear(self, agent_path: str, ref: ItemRef | None = None) -> int:
        """Forget what was learned for the agent (or for one of its items); how many were forgotten.

        Raises:
            StoreError: the database could not be written.
        """
        sql = "DELETE FROM selection_feedback WHERE agent_path = ?"
        values: tuple[str, ...] = (agent_path,)
        if ref is not None:
            sql, values = f"{sql} AND item_key = ?", (agent_path, ref.key)
        return self._change(sql, values, "could not forget what selection learned")
