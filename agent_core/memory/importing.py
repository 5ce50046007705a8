"""``memory import``: JSON lines applied in ``created_at`` order with the same duplicate and
conflict rules as any other write; each line on its own (a bad line is reported, not fatal).

Lines are written in batches of :data:`BATCH_LINES`, one transaction each, with their embeddings
made in one call per batch. A line already imported (its id is in the database; a line without
an id gets one from its words) is skipped, so an import stopped half-way (Ctrl+C, a kill, a full
disk) is finished by running it again, and running it twice adds nothing. A file of more than
:data:`CHECKED_LINES` valid lines is restored as it is (see :mod:`_bulk_lines`): comparing each
with every memory by meaning would take hours at 200,000 lines.
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agent_core.database.errors import StoreError
from agent_core.memory._bulk_lines import BulkLines
from agent_core.memory.book import MemoryBook, MemoryDraft, MemoryInputError
from agent_core.memory.jsonl import ImportLine, ParsedLine
from agent_core.memory.records import MemoryEvent, Provenance

__all__ = [
    "BATCH_LINES",
    "CHECKED_LINES",
    "ImportInterrupted",
    "ImportProgress",
    "ImportReport",
    "import_memories",
]

BATCH_LINES = 500
CHECKED_LINES = 2000


@dataclass(frozen=True)
class ImportProgress:
    done: int  # lines handled so far (their batch committed, or skipped, or refused)
    total: int
    saved: int  # memories added, merged, superseding or kept so far


@dataclass
class ImportReport:
    counts: Counter[str] = field(
        default_factory=Counter
    )  # added, merged, superseded, kept, blocked, unchanged
    problems: list[str] = field(default_factory=list)  # "line 7: ..."
    ignored_fields: Counter[str] = field(default_factory=Counter)
    total: int = 0  # lines in the file (blank ones left out)
    done: int = 0
    stopped: bool = False  # cancelled: the rest of the file was not read
    checked: bool = True  # each line was compared with the memories by meaning (else exact words only)

    @property
    def failed(self) -> int:
        return len(self.problems)

    @property
    def saved(self) -> int:
        return sum(self.counts[key] for key in ("added", "merged", "superseded", "kept"))


class ImportInterrupted(MemoryInputError):
    """The database failed part-way through an import; ``report`` counts what was saved before."""

    def __init__(self, message: str, report: ImportReport) -> None:
        super().__init__(message)
        self.report = report


def import_memories(
    book: MemoryBook,
    lines: Sequence[ParsedLine],
    *,
    progress: Callable[[ImportProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> ImportReport:
    """Apply ``lines`` to ``book``; ``progress`` is told after each batch; once ``cancel`` is
    set, the import stops after the batch being written (the report says ``stopped``).

    Raises:
        ImportInterrupted: the database could not be written (a full disk...); the batches
            committed before are kept, and the message says how many and how to finish.
    """
    report = ImportReport(total=len(lines))
    good = [p for p in lines if p.line is not None]
    for bad in (p for p in lines if p.line is None):
        report.problems.append(f"line {bad.number}: {bad.error}")
    # Oldest first, so that a later fact supersedes an earlier one; undated lines keep file order, last.
    good.sort(
        key=lambda p: (p.line.created_at if p.line and p.line.created_at is not None else math.inf, p.number)
    )
    known = book.store.import_keys()
    todo: list[tuple[ParsedLine, ImportLine, str]] = []
    first_with: dict[str, int] = {}  # id -> the line that has it, for ids given twice in the file
    for parsed in good:
        assert parsed.line is not None
        key = parsed.line.id or content_id(parsed.line)
        words = known.get(key)
        if parsed.line.id is not None and key in first_with:
            report.problems.append(
                f"line {parsed.number}: id {key!r} is also the id of line {first_with[key]}: give each line its own id"
            )
        elif words is None:
            todo.append((parsed, parsed.line, key))
            known[key] = ()
            first_with[key] = parsed.number
        elif not words or _same_words(parsed.line.text, *words):
            report.counts["unchanged"] += 1  # imported before
        else:
            report.problems.append(
                f"line {parsed.number}: id {key!r} is already used by another memory ({words[0]!r}): "
                "give the line another id, or leave the id out"
            )
    report.done = report.total - len(todo)
    # By the file's size, not what is left of it: a resumed import goes on as it started.
    report.checked = len(good) <= CHECKED_LINES
    bulk = None if report.checked else BulkLines(book)
    for start in range(0, len(todo), BATCH_LINES):
        if cancel is not None and cancel.is_set():
            report.stopped = True
            break
        part = todo[start : start + BATCH_LINES]
        if bulk is None:
            _embed_ahead(book, [line.text for _, line, _ in part])
        before, problems = Counter(report.counts), len(report.problems)
        try:
            with book.store.batch("could not save the imported memories"):
                for parsed, line, key in part:
                    _apply(book, bulk, parsed, line, key, report)
        except StoreError as error:
            report.counts, report.problems[problems:] = before, []
            book.drop_index()
            raise ImportInterrupted(_interrupted(error, report), report) from error
        report.done += len(part)
        if progress is not None:
            progress(ImportProgress(report.done, report.total, report.saved))
    book.expire()
    return report


def content_id(line: ImportLine) -> str:
    """The id of a line given none: from its words, scope and kind, so that a re-run finds it."""
    words = " ".join(line.text.split()).casefold()
    digest = hashlib.sha256(f"{line.scope}\n{line.kind}\n{words}".encode()).hexdigest()
    return f"m-{digest[:12]}"


def _same_words(text: str, *others: str) -> bool:
    words = " ".join(text.split()).casefold()
    return any(words == " ".join(other.split()).casefold() for other in others)


def _embed_ahead(book: MemoryBook, texts: list[str]) -> None:
    """The batch's embeddings in one call (each write then finds its own in the cache)."""
    clean = [" ".join(t.split()) for t in texts if "\x00" not in t]
    if clean:
        book.embedder.embed(clean)


def _apply(
    book: MemoryBook,
    bulk: BulkLines | None,
    parsed: ParsedLine,
    line: ImportLine,
    key: str,
    report: ImportReport,
) -> None:
    report.ignored_fields.update(parsed.ignored_fields)
    draft = MemoryDraft(
        text=line.text,
        kind=line.kind,
        scope=line.scope,
        tier=line.tier,
        importance=line.importance,
        expires_at=line.expires_at,
        provenance=Provenance(speaker="import", quote=line.text),
        id=key,
        created_at=line.created_at,
    )
    supersedes = line.supersedes
    if supersedes is not None and book.store.get(supersedes) is None:
        report.problems.append(
            f"line {parsed.number}: supersedes {supersedes!r}, which is not known (imported as a new memory)"
        )
        supersedes = None
    try:
        if line.status not in ("active", "proposed"):
            book.insert_as_is(draft, line.status, "import")
            report.counts["kept"] += 1
            return
        if bulk is not None:
            outcome = bulk.add(draft, line.status, supersedes)
        else:
            outcome = book.add(draft, "import", status=line.status, supersedes=supersedes)
    except MemoryInputError as error:
        report.problems.append(f"line {parsed.number}: {error}")
        return
    report.counts["superseded" if outcome.action == "conflict" else outcome.action] += 1
    if outcome.action == "blocked":
        report.problems.append(f"line {parsed.number}: not imported, {'; '.join(outcome.warnings)}")
    elif outcome.action == "merged" and outcome.memory is not None:
        # The line's key is not a memory id: recorded so that a re-run skips it.
        with book.store.write() as writes:
            writes.event(
                MemoryEvent(
                    outcome.memory.id, "import-merged", "import", outcome.memory.updated_at, detail=key
                )
            )


def _interrupted(error: StoreError, report: ImportReport) -> str:
    saved = f"{report.saved} memories were saved" if report.saved != 1 else "1 memory was saved"
    if error.problem == "full":
        return (
            f"The disk is full: free some space and re-run the import; {saved}, re-running skips them. "
            f"({error})"
        )
    return f"The import stopped: {error}. {saved.capitalize()}; re-running the import skips them."
