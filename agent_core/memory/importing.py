"""``memory import``: JSON lines applied in ``created_at`` order with the same duplicate and
conflict rules as any other write; each line on its own (a bad line is reported, not fatal)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_core.memory.book import MemoryBook, MemoryDraft, MemoryInputError
from agent_core.memory.jsonl import ParsedLine
from agent_core.memory.records import Provenance

__all__ = ["ImportReport", "import_memories"]


@dataclass
class ImportReport:
    counts: Counter[str] = field(default_factory=Counter)  # added, merged, superseded, kept, blocked
    problems: list[str] = field(default_factory=list)  # "line 7: ..."
    ignored_fields: Counter[str] = field(default_factory=Counter)

    @property
    def failed(self) -> int:
        return len(self.problems)


def import_memories(book: MemoryBook, lines: Sequence[ParsedLine]) -> ImportReport:
    report = ImportReport()
    good = [p for p in lines if p.line is not None]
    for bad in (p for p in lines if p.line is None):
        report.problems.append(f"line {bad.number}: {bad.error}")
    # Oldest first, so that a later fact supersedes an earlier one; undated lines keep file order, last.
    good.sort(
        key=lambda p: (p.line.created_at if p.line and p.line.created_at is not None else math.inf, p.number)
    )
    for parsed in good:
        line = parsed.line
        assert line is not None
        report.ignored_fields.update(parsed.ignored_fields)
        draft = MemoryDraft(
            text=line.text,
            kind=line.kind,
            scope=line.scope,
            tier=line.tier,
            importance=line.importance,
            expires_at=line.expires_at,
            provenance=Provenance(speaker="import", quote=line.text),
            id=line.id,
            created_at=line.created_at,
        )
        try:
            if line.status not in ("active", "proposed"):
                book.insert_as_is(draft, line.status, "import")
                report.counts["kept"] += 1
                continue
            if line.supersedes is not None and book.store.get(line.supersedes) is None:
                report.problems.append(
                    f"line {parsed.number}: supersedes {line.supersedes!r}, which is not known (imported as a new memory)"
                )
                outcome = book.add(draft, "import", status=line.status)
            else:
                outcome = book.add(draft, "import", status=line.status, supersedes=line.supersedes)
        except MemoryInputError as error:
            report.problems.append(f"line {parsed.number}: {error}")
            continue
        report.counts["superseded" if outcome.action == "conflict" else outcome.action] += 1
        if outcome.action == "blocked":
            report.problems.append(f"line {parsed.number}: not imported, {'; '.join(outcome.warnings)}")
    book.expire()
    return report
