"""Check the labelled memory benchmark files and print their counts; exit 1 with one line a
problem when anything is wrong.

    .venv/bin/python benchmarks/memory/validate.py [--no-model]

Checks that need no model (run by tests/benchmarks_data/ in CI):
- every memories_*.jsonl line parses as a `contextdesk memory import` line, ids are unique across
  both splits, kinds are known, created_at is given, `supersedes` names an older memory of the file;
- every queries_*.jsonl line has exactly id/query/relevant/category, ids are unique, the category is
  known, `none` queries need nothing and the others need something, relevant ids exist in the
  split's memories, are not listed twice, are not superseded by name (`supersedes`) and not past
  their expires_at;
- the sizes the issue asks for: ≥ 300 memories and ≥ 150 queries across the splits, ≥ 160
  memories and ≥ 80 queries a split, ≥ 25 % of each split's queries need nothing;
- extraction.jsonl (≥ 60 conversations, both splits, every expected quote verbatim in a user
  message) and conflicts.jsonl (≥ 40 pairs, known labels, every label present).

With the model (the default), the memories are also imported through the real import path
(`import_memories`, as evaluate.py does): a `superseded` query must not name a memory that, after
import, was merged into another, superseded or expired (a PROBLEM: the label names an old fact, or
the judge replaced a fact that still holds; the line says what replaced it). The same finding for
the other categories is printed as a NOTE and does not fail: the label is right and the judge
merged or superseded something it should have kept.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.memory.jsonl import ImportLine, parse_lines

HERE = Path(__file__).resolve().parent
SPLITS = ("dev", "holdout")
KINDS = frozenset({"fact", "preference", "person", "project", "event"})
CATEGORIES = frozenset({"direct", "paraphrase", "multi", "none", "superseded"})
QUERY_KEYS = frozenset({"id", "query", "relevant", "category"})
PAIR_KEYS = frozenset({"id", "old", "new", "expected"})
CONFLICT_LABELS = frozenset({"conflict", "duplicate", "distinct"})
MIN_MEMORIES, MIN_QUERIES = 300, 150  # the issue, across the splits
MIN_SPLIT_MEMORIES, MIN_SPLIT_QUERIES = 160, 80
MIN_NONE_SHARE = 0.25
MIN_CONVERSATIONS, MIN_PAIRS = 60, 40


def read_jsonl(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    if not path.exists():
        problems.append(f"{path.name}: missing")
        return rows
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            row = json.loads(raw)
        except json.JSONDecodeError as error:
            problems.append(f"{path.name}:{number}: not JSON ({error.msg})")
            continue
        if not isinstance(row, dict):
            problems.append(f"{path.name}:{number}: not a JSON object")
            continue
        rows.append(row)
    return rows


def load_memories(split: str, problems: list[str]) -> dict[str, ImportLine]:
    """The split's memories by id, in file order (problems appended for bad lines)."""
    path = HERE / f"memories_{split}.jsonl"
    if not path.exists():
        problems.append(f"{path.name}: missing")
        return {}
    memories: dict[str, ImportLine] = {}
    for parsed in parse_lines(path.read_text(encoding="utf-8").splitlines()):
        where = f"{path.name}:{parsed.number}"
        if parsed.line is None:
            problems.append(f"{where}: {parsed.error}")
            continue
        line = parsed.line
        if parsed.ignored_fields:
            problems.append(f"{where}: unknown fields {list(parsed.ignored_fields)} (import ignores them)")
        if line.id is None:
            problems.append(f"{where}: no id (queries cannot name it)")
            continue
        if line.id in memories:
            problems.append(f"{where}: id {line.id} is used twice")
        if line.kind not in KINDS:
            problems.append(f"{where}: kind {line.kind!r} is not one of {sorted(KINDS)}")
        if line.created_at is None:
            problems.append(f"{where}: no created_at (import order, and so supersedes, depends on it)")
        memories[line.id] = line
    for memory_id, line in memories.items():
        if line.supersedes is None:
            continue
        old = memories.get(line.supersedes)
        if old is None:
            problems.append(
                f"{path.name}: {memory_id} supersedes {line.supersedes}, which is not in the file"
            )
        elif (old.created_at or 0) >= (line.created_at or 0):
            problems.append(f"{path.name}: {memory_id} supersedes {line.supersedes}, which is not older")
    return memories


def check_queries(
    split: str, memories: dict[str, ImportLine], problems: list[str], now: float
) -> list[dict[str, Any]]:
    path = HERE / f"queries_{split}.jsonl"
    queries = read_jsonl(path, problems)
    superseded_by_name = {line.supersedes: mid for mid, line in memories.items() if line.supersedes}
    seen: set[str] = set()
    for query in queries:
        qid = query.get("id")
        where = f"{path.name}: {qid}"
        if set(query) != QUERY_KEYS:
            problems.append(f"{where}: keys {sorted(query)}, expected exactly {sorted(QUERY_KEYS)}")
        if not isinstance(qid, str) or not qid:
            problems.append(f"{path.name}: a query without an id: {query}")
            continue
        if qid in seen:
            problems.append(f"{where}: id used twice")
        seen.add(qid)
        if not isinstance(query.get("query"), str) or not query["query"].strip():
            problems.append(f"{where}: empty query text")
        category = query.get("category")
        if category not in CATEGORIES:
            problems.append(f"{where}: category {category!r} is not one of {sorted(CATEGORIES)}")
        relevant = query.get("relevant")
        if not isinstance(relevant, list) or not all(isinstance(r, str) for r in relevant):
            problems.append(f"{where}: relevant must be a list of memory ids")
            continue
        if len(set(relevant)) != len(relevant):
            problems.append(f"{where}: a relevant id is listed twice")
        if (category == "none") != (not relevant):
            problems.append(f"{where}: category {category} with {len(relevant)} relevant memories")
        if category == "multi" and len(relevant) < 2:
            problems.append(f"{where}: a multi query needs at least 2 relevant memories")
        for memory_id in relevant:
            line = memories.get(memory_id)
            if line is None:
                problems.append(f"{where}: relevant {memory_id} is not in memories_{split}.jsonl")
                continue
            if memory_id in superseded_by_name:
                problems.append(
                    f"{where}: relevant {memory_id} is superseded by {superseded_by_name[memory_id]}; "
                    "name the newer memory"
                )
            if line.expires_at is not None and line.expires_at <= now:
                problems.append(f"{where}: relevant {memory_id} has expired; it is never recalled")
    return queries


def check_sizes(
    memories: dict[str, dict[str, ImportLine]], queries: dict[str, list[dict[str, Any]]], problems: list[str]
) -> None:
    for split in SPLITS:
        if len(memories[split]) < MIN_SPLIT_MEMORIES:
            problems.append(
                f"memories_{split}.jsonl: {len(memories[split])} memories, fewer than {MIN_SPLIT_MEMORIES}"
            )
        if len(queries[split]) < MIN_SPLIT_QUERIES:
            problems.append(
                f"queries_{split}.jsonl: {len(queries[split])} queries, fewer than {MIN_SPLIT_QUERIES}"
            )
        none = sum(1 for q in queries[split] if q.get("category") == "none")
        if queries[split] and none / len(queries[split]) < MIN_NONE_SHARE:
            problems.append(
                f"queries_{split}.jsonl: {none} of {len(queries[split])} queries need nothing, under {MIN_NONE_SHARE:.0%}"
            )
    all_ids = Counter(mid for split in SPLITS for mid in memories[split])
    problems.extend(f"memory id {mid} is in both splits" for mid, n in all_ids.items() if n > 1)
    query_ids = Counter(q.get("id") for split in SPLITS for q in queries[split])
    problems.extend(f"query id {qid} is in both splits" for qid, n in query_ids.items() if n > 1)
    total_memories = sum(len(m) for m in memories.values())
    total_queries = sum(len(q) for q in queries.values())
    if total_memories < MIN_MEMORIES:
        problems.append(f"{total_memories} memories across the splits, fewer than the issue's {MIN_MEMORIES}")
    if total_queries < MIN_QUERIES:
        problems.append(f"{total_queries} queries across the splits, fewer than the issue's {MIN_QUERIES}")


def check_extraction(problems: list[str]) -> list[dict[str, Any]]:
    path = HERE / "extraction.jsonl"
    conversations = read_jsonl(path, problems)
    seen: set[str] = set()
    splits: Counter[str] = Counter()
    for conversation in conversations:
        cid = conversation.get("id")
        where = f"{path.name}: {cid}"
        if set(conversation) != {"id", "split", "messages", "expected"}:
            problems.append(f"{where}: keys {sorted(conversation)}, expected id, split, messages, expected")
            continue
        if cid in seen:
            problems.append(f"{where}: id used twice")
        seen.add(str(cid))
        if conversation["split"] not in SPLITS:
            problems.append(f"{where}: split {conversation['split']!r} is not one of {list(SPLITS)}")
        splits[conversation["split"]] += 1
        messages = conversation["messages"]
        if not messages or not all(
            isinstance(m, dict) and set(m) == {"role", "text"} and m["role"] in ("user", "assistant")
            for m in messages
        ):
            problems.append(f"{where}: messages must be a non-empty list of {{role: user|assistant, text}}")
            continue
        user_texts = [m["text"] for m in messages if m["role"] == "user"]
        for item in conversation["expected"]:
            if not isinstance(item, dict) or set(item) != {"text", "quote"}:
                problems.append(f"{where}: an expected item must be {{text, quote}}: {item}")
                continue
            if not any(item["quote"] in text for text in user_texts):
                problems.append(
                    f"{where}: expected quote {item['quote']!r} is not verbatim in a user message"
                )
    if len(conversations) < MIN_CONVERSATIONS:
        problems.append(f"{path.name}: {len(conversations)} conversations, fewer than {MIN_CONVERSATIONS}")
    for split in SPLITS:
        if conversations and splits[split] < len(conversations) // 3:
            problems.append(f"{path.name}: only {splits[split]} conversations in the {split} split")
    return conversations


def check_conflicts(problems: list[str]) -> list[dict[str, Any]]:
    path = HERE / "conflicts.jsonl"
    pairs = read_jsonl(path, problems)
    seen: set[str] = set()
    for pair in pairs:
        pid = pair.get("id")
        where = f"{path.name}: {pid}"
        if not PAIR_KEYS <= set(pair) <= PAIR_KEYS | {"kind"}:
            problems.append(
                f"{where}: keys {sorted(pair)}, expected id, old, new, expected and optional kind"
            )
            continue
        if pid in seen:
            problems.append(f"{where}: id used twice")
        seen.add(str(pid))
        if pair["expected"] not in CONFLICT_LABELS:
            problems.append(f"{where}: expected {pair['expected']!r} is not one of {sorted(CONFLICT_LABELS)}")
        if not pair["old"].strip() or not pair["new"].strip():
            problems.append(f"{where}: empty text")
    labels = Counter(p.get("expected") for p in pairs)
    problems.extend(
        f"{path.name}: no {label!r} pair" for label in sorted(CONFLICT_LABELS) if not labels[label]
    )
    if len(pairs) < MIN_PAIRS:
        problems.append(f"{path.name}: {len(pairs)} pairs, fewer than {MIN_PAIRS}")
    return pairs


def static_problems(now: float | None = None) -> tuple[list[str], dict[str, Any]]:
    """Every problem found without a model, and the loaded data (for counts and the model checks)."""
    now = time.time() if now is None else now
    problems: list[str] = []
    memories = {split: load_memories(split, problems) for split in SPLITS}
    queries = {split: check_queries(split, memories[split], problems, now) for split in SPLITS}
    check_sizes(memories, queries, problems)
    conversations = check_extraction(problems)
    pairs = check_conflicts(problems)
    data = {"memories": memories, "queries": queries, "conversations": conversations, "pairs": pairs}
    return problems, data


def imported_problems(data: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Import each split as evaluate.py does; a relevant memory that is not active afterwards is a
    problem for a ``superseded`` query (its label must name the newest memory) and a note for the
    others (the judge merged or superseded something a query needs: the judge's business)."""
    from agent_core.agent.schema import MemoryConfig
    from agent_core.memory.book import MemoryBook
    from agent_core.memory.importing import import_memories
    from agent_core.memory.store import MemoryStore
    from indexer import Indexer, onnx_backend

    problems: list[str] = []
    notes: list[str] = []
    indexer = Indexer(
        lambda: onnx_backend(threads=2),
        cache_dir=Path(tempfile.gettempdir()) / "contextdesk-memory-eval-cache",
    )
    indexer.wait_until_ready()
    try:
        for split in SPLITS:
            path = HERE / f"memories_{split}.jsonl"
            with tempfile.TemporaryDirectory() as home:
                store = MemoryStore(Path(home) / "contextdesk.sqlite3")
                book = MemoryBook(store, indexer, f"/agents/{split}", MemoryConfig())
                report = import_memories(book, parse_lines(path.read_text(encoding="utf-8").splitlines()))
                problems.extend(f"{path.name}: import: {p}" for p in report.problems)
                for query in data["queries"][split]:
                    where = f"queries_{split}.jsonl: {query['id']} [{query.get('category')}]"
                    found = problems if query.get("category") == "superseded" else notes
                    for memory_id in query.get("relevant", []):
                        memory = store.get(memory_id)
                        if memory is None:
                            found.append(
                                f"{where}: relevant {memory_id} was merged into an older memory on import "
                                "(name the older one, or the judge is wrong)"
                            )
                        elif memory.status != "active":
                            events = [e for e in store.history(memory_id) if e.event != "created"]
                            why = f"{events[-1].event} {events[-1].detail}" if events else "no event"
                            found.append(
                                f"{where}: relevant {memory_id} is {memory.status} after import ({why}); "
                                "name the newer memory, or the judge is wrong"
                            )
                store.close()
    finally:
        indexer.close()
    return problems, notes


def counts(data: dict[str, Any]) -> list[str]:
    lines = []
    for split in SPLITS:
        kinds = Counter(m.kind for m in data["memories"][split].values())
        named = sum(1 for m in data["memories"][split].values() if m.supersedes)
        expiring = sum(1 for m in data["memories"][split].values() if m.expires_at is not None)
        categories = Counter(q.get("category") for q in data["queries"][split])
        lines.append(
            f"{split}: {len(data['memories'][split])} memories ({dict(sorted(kinds.items()))}; "
            f"{named} with supersedes, {expiring} with expires_at), {len(data['queries'][split])} queries "
            f"({dict(sorted(categories.items()))})"
        )
    extraction = Counter(c.get("split") for c in data["conversations"])
    expected = sum(len(c.get("expected", [])) for c in data["conversations"])
    lines.append(
        f"extraction: {len(data['conversations'])} conversations ({dict(extraction)}), {expected} expected memories"
    )
    lines.append(
        f"conflicts: {len(data['pairs'])} pairs ({dict(Counter(p.get('expected') for p in data['pairs']))})"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--no-model", action="store_true", help="skip the import through the real MemoryBook")
    args = parser.parse_args()
    problems, data = static_problems()
    notes: list[str] = []
    if not args.no_model:
        found, notes = imported_problems(data)
        problems += found
    print("\n".join(counts(data)))
    for note in notes:
        print(f"NOTE {note}")
    for problem in problems:
        print(f"PROBLEM {problem}", file=sys.stderr)
    if problems:
        print(f"{len(problems)} problems", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
