"""How the duplicate/conflict judge does on labelled pairs (conflicts.jsonl): for each pair, a fresh
MemoryBook (real SQLite, the real MiniLM, as evaluate.py builds one) gets ``old``, then ``new`` a
month later, both as the user typed them, and what happened is compared with the label:

- conflict: ``new`` superseded ``old`` (a supersede event; one active row, the new one);
- duplicate: ``new`` was merged into ``old`` (one row);
- distinct: both were kept (two active rows).

    .venv/bin/python benchmarks/memory/evaluate_conflicts.py [--verbose]

Prints the accuracy per expected label and every mistake with the judge's reason.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.schema import MemoryConfig
from agent_core.memory.book import MemoryBook, MemoryDraft
from agent_core.memory.store import MemoryStore
from indexer import Indexer, onnx_backend

HERE = Path(__file__).resolve().parent
OLD_AT, NEW_AT = 1_750_000_000.0, 1_750_000_000.0 + 30 * 86400
LABELS = ("conflict", "duplicate", "distinct")


def load() -> list[dict[str, Any]]:
    text = (HERE / "conflicts.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def outcome_of(book: MemoryBook, pair: dict[str, Any]) -> tuple[str, str]:
    """(conflict|duplicate|distinct|other, the judge's reason) for ``pair`` added to an empty ``book``."""
    kind = pair.get("kind", "fact")
    book.add(MemoryDraft(pair["old"], kind=kind, created_at=OLD_AT), "user")
    outcome = book.add(MemoryDraft(pair["new"], kind=kind, created_at=NEW_AT), "user")
    rows = book.find(statuses=None)
    active = [m for m in rows if m.status == "active"]
    if outcome.action == "superseded" and len(active) == 1:
        return "conflict", outcome.reason
    if outcome.action == "merged" and len(rows) == 1:
        return "duplicate", outcome.reason
    if outcome.action == "added" and len(active) == 2:
        return "distinct", outcome.reason
    return f"other ({outcome.action}, {len(active)} active)", outcome.reason


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--verbose", action="store_true", help="print every pair, not only the mistakes")
    args = parser.parse_args()
    indexer = Indexer(
        lambda: onnx_backend(threads=2),
        cache_dir=Path(tempfile.gettempdir()) / "contextdesk-memory-eval-cache",
    )
    indexer.wait_until_ready()
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    mistakes: list[str] = []
    try:
        for pair in load():
            with tempfile.TemporaryDirectory() as home:
                store = MemoryStore(Path(home) / "contextdesk.sqlite3")
                try:
                    got, reason = outcome_of(
                        MemoryBook(store, indexer, "/agents/pairs", MemoryConfig()), pair
                    )
                finally:
                    store.close()
            total[pair["expected"]] += 1
            right[pair["expected"]] += got == pair["expected"]
            line = f"{pair['id']} expected {pair['expected']}, got {got}: {pair['old']!r} -> {pair['new']!r}"
            line += f" ({reason})" if reason else ""
            if got != pair["expected"]:
                mistakes.append(line)
            elif args.verbose:
                print(f"  ok {line}")
    finally:
        indexer.close()
    print("Memory conflicts: old, then new, through a real MemoryBook")
    for label in LABELS:
        share = right[label] / total[label] if total[label] else 1.0
        print(f"{label:12}{right[label]:>4} / {total[label]:<4}{share:>6.2f}")
    print(
        f"{'all':12}{sum(right.values()):>4} / {sum(total.values()):<4}{sum(right.values()) / sum(total.values()):>6.2f}"
    )
    for line in mistakes:
        print(f"  WRONG {line}")


if __name__ == "__main__":
    main()
