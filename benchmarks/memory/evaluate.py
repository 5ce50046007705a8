"""Recall quality of memories on a labelled set: import the memories (the same rules as
`contextdesk memory import`: created_at order, duplicates merged, conflicts superseded), then
recall for every query exactly as a chat does, and score what came back.

    .venv/bin/python benchmarks/memory/evaluate.py [--split dev|holdout|all] [--verbose]

Figures, next to the issue's goals:
- recall: of the memories a query needs, the share recalled (queries that need one);
- precision: of the memories recalled for queries that need one, the share that are needed;
- nothing needed: the share of queries that need no memory and get none;
- stale recalled: superseded or expired memories recalled, in all (goal 0).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.schema import MemoryConfig
from agent_core.memory.book import MemoryBook
from agent_core.memory.facets import FacetSpace
from agent_core.memory.importing import import_memories
from agent_core.memory.jsonl import parse_lines
from agent_core.memory.recall import recall
from agent_core.memory.store import MemoryStore
from indexer import Indexer, onnx_backend

HERE = Path(__file__).resolve().parent
GOALS = {"recall": 0.85, "precision": 0.60, "nothing needed": 0.75, "stale recalled": 0}


def evaluate(
    split: str,
    indexer: Indexer,
    config: MemoryConfig,
    verbose: bool = False,
    *,
    facets: FacetSpace | None = None,
    data: Path = HERE,
) -> dict[str, float]:
    memories_file = data / f"memories_{split}.jsonl"
    queries = [
        json.loads(line)
        for line in (data / f"queries_{split}.jsonl").read_text().splitlines()
        if line.strip()
    ]
    with tempfile.TemporaryDirectory() as home:
        store = MemoryStore(Path(home) / "contextdesk.sqlite3")
        book = MemoryBook(store, indexer, f"/agents/{split}", config)
        report = import_memories(book, parse_lines(memories_file.read_text().splitlines()))
        if report.problems:
            print(f"{split}: import problems: {report.problems[:5]}", file=sys.stderr)
        stale = {m.id for m in book.find(statuses=("superseded", "expired"))}
        now = time.time()
        found = needed = hit = recalled_total = recalled_needed = none_queries = none_clean = stale_hits = 0
        misses: Counter[str] = Counter()
        for query in queries:
            vector = indexer.embed([query["query"]])[0]
            result = recall(
                book.index, query["query"], vector, config, session_id=None, now=now, facets=facets
            )
            got = [r.memory.id for r in result.recalled]
            stale_hits += sum(1 for i in got if i in stale)
            relevant = set(query["relevant"])
            if not relevant:
                none_queries += 1
                none_clean += not got
                if got and verbose:
                    print(
                        f"  NONE-FAIL {query['id']}: {query['query']!r} -> {[r.memory.text for r in result.recalled]}"
                    )
                continue
            needed += len(relevant)
            hit += len(relevant & set(got))
            recalled_total += len(got)
            recalled_needed += len(relevant & set(got))
            found += relevant <= set(got)
            for missing in relevant - set(got):
                misses[query.get("category", "")] += 1
                if verbose:
                    memory = store.get(missing)
                    print(
                        f"  MISS {query['id']} [{query.get('category')}]: {query['query']!r} needs {memory.text if memory else missing!r}"
                    )
        store.close()
    return {
        "recall": hit / needed if needed else 1.0,
        "precision": recalled_needed / recalled_total if recalled_total else 1.0,
        "nothing needed": none_clean / none_queries if none_queries else 1.0,
        "stale recalled": stale_hits,
        "queries": len(queries),
        "memories": sum(report.counts.values()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--split", choices=("dev", "holdout", "all"), default="all")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--min-relevance", type=float, help="override memory.minRelevance")
    parser.add_argument("--no-facets", action="store_true", help="relevance from words and meaning only")
    parser.add_argument("--data", type=Path, default=HERE, help="the folder of the .jsonl files")
    args = parser.parse_args()
    config = MemoryConfig() if args.min_relevance is None else MemoryConfig(min_relevance=args.min_relevance)
    indexer = Indexer(
        lambda: onnx_backend(threads=2),
        cache_dir=Path(tempfile.gettempdir()) / "contextdesk-memory-eval-cache",
    )
    indexer.wait_until_ready()
    splits = ("dev", "holdout") if args.split == "all" else (args.split,)
    facets = None if args.no_facets else FacetSpace.of(indexer)
    results = {
        split: evaluate(split, indexer, config, args.verbose, facets=facets, data=args.data)
        for split in splits
    }
    indexer.close()
    print(
        f"Memory recall quality (memory.minRelevance {config.min_relevance}, maxRecalled {config.max_recalled})"
    )
    print(f"{'':16}" + "".join(f"{split:>10}" for split in splits) + f"{'goal':>10}")
    for key, goal in GOALS.items():
        cells = "".join(
            f"{results[s][key]:>10.2f}" if isinstance(goal, float) else f"{int(results[s][key]):>10}"
            for s in splits
        )
        print(f"{key:16}{cells}{('≥ ' if isinstance(goal, float) else '= ') + str(goal):>10}")
    print(f"{'queries':16}" + "".join(f"{int(results[s]['queries']):>10}" for s in splits))


if __name__ == "__main__":
    main()
