"""The lines of a large import (a file of more than ``importing.CHECKED_LINES`` lines), written as
they are: a line with the same words as a memory of its scope is merged into it, one naming a
memory it ``supersedes`` replaces it, and the rest are added. Lines are not compared by meaning
(near duplicates, changed facts): that compares each line with every memory, hours at 200,000
lines. Nor are they embedded here: the model takes 2-10 ms a line, so their embeddings are made
when the agent's memories are next searched (``MemoryBook.index``). Secrets are refused as in any
import."""

from __future__ import annotations

from agent_core.memory._drafts import MemoryDraft, clean_text
from agent_core.memory.book import MemoryBook, WriteOutcome
from agent_core.memory.records import Status
from agent_core.memory.sensitive import find_sensitive

__all__ = ["BulkLines"]


class BulkLines:
    def __init__(self, book: MemoryBook) -> None:
        self._book = book
        # The ids only: a large import holds hundreds of thousands.
        self._by_words: dict[tuple[str, str], str] = {
            (m.scope, _words(m.text)): m.id for m in book.find(statuses=("active", "proposed"))
        }

    def add(self, draft: MemoryDraft, status: Status, supersedes: str | None) -> WriteOutcome:
        """Write one line's ``draft``.

        Raises:
            MemoryInputError: the line is not a valid memory.
            StoreError: the database could not be written.
        """
        key = (draft.scope, _words(clean_text(draft.text)))
        same = self._by_words.get(key)
        if same is not None and supersedes is None:
            merged = self._book.merge(self._book.get(same), draft, "import", "the same words")
            return WriteOutcome("merged", merged, reason="the same words")
        found = find_sensitive(draft.text)
        if found:
            warnings = tuple(f"it looks like it holds {match}" for match in found)
            return WriteOutcome("blocked", None, warnings=warnings, reason="sensitive data is never imported")
        memory = self._book.insert_as_is(draft, status, "import", supersedes=supersedes, embed=False)
        self._by_words[key] = memory.id
        if supersedes is not None:
            return WriteOutcome("superseded", memory)
        return WriteOutcome("added" if status == "active" else "proposed", memory)


def _words(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".!")
