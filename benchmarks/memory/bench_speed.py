"""Memory speed at scale: recall with 10k memories (the query embedding excluded: selection
already pays it) and adding one memory (embedding, duplicate and conflict checks, the write).

    .venv/bin/python benchmarks/memory/bench_speed.py [--memories 10000] [--queries 200] [--adds 100]

Memories are made from templates over a varied vocabulary (their wording does not matter for
speed); embeddings are cached under the temporary folder, so only the first run embeds them all.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.schema import MemoryConfig
from agent_core.memory.book import MemoryBook, MemoryDraft
from agent_core.memory.facets import FacetSpace
from agent_core.memory.recall import recall
from agent_core.memory.records import Memory, MemoryEvent, Provenance
from agent_core.memory.store import MemoryStore, StoredVector
from indexer import Indexer, onnx_backend

GOAL_RECALL_P95_MS = 20.0
GOAL_ADD_MS = 20.0

SUBJECTS = [
    "my manager",
    "my sister",
    "our team",
    "the client",
    "my landlord",
    "our CTO",
    "my dentist",
    "the project",
    "my neighbour",
    "our database",
    "the build",
    "my laptop",
    "the API",
    "our office",
    "my gym",
]
VERBS = [
    "prefers",
    "uses",
    "moved to",
    "works on",
    "is allergic to",
    "meets on",
    "deploys to",
    "lives in",
    "asked for",
    "hates",
    "recommends",
    "switched to",
    "is responsible for",
    "reviews",
    "plans",
]
OBJECTS = [
    "PostgreSQL 16",
    "Kubernetes",
    "the billing service",
    "Lisbon",
    "peanuts",
    "Mondays at 10",
    "fly.io",
    "Berlin",
    "a refund",
    "long meetings",
    "pytest",
    "VS Code",
    "the mobile app",
    "pull requests",
    "a trip to Japan",
    "oat milk",
    "Rust",
    "the Q3 report",
    "dark mode",
    "Terraform",
    "quarterly planning",
    "Slack huddles",
    "the design system",
    "GraphQL",
    "a standing desk",
    "the onboarding docs",
    "vinyl records",
    "Python 3.12",
    "the staging cluster",
    "weekly one-on-ones",
]
QUERIES = [
    "can you write the migration for our db?", "draft an email to my manager about the delay",
    "what should I cook tonight", "fix this failing test", "where does my sister live again?",
    "plan my week", "which editor do I use?", "summarise the Q3 report", "book a table for Friday",
    "how do I deploy the app?",
]  # fmt: skip


def synthetic(count: int, rng: random.Random) -> list[str]:
    texts = set()
    while len(texts) < count:
        texts.add(
            f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} ({rng.randrange(10_000)})"
        )
    return sorted(texts)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--adds", type=int, default=100)
    parser.add_argument(
        "--cache", type=Path, default=Path(tempfile.gettempdir()) / "contextdesk-memory-bench-cache"
    )
    args = parser.parse_args()
    rng = random.Random(13)

    indexer = Indexer(lambda: onnx_backend(threads=2), cache_dir=args.cache)
    indexer.wait_until_ready()
    with tempfile.TemporaryDirectory() as home:
        store = MemoryStore(Path(home) / "contextdesk.sqlite3")
        texts = synthetic(args.memories, rng)
        started = time.perf_counter()
        vectors = indexer.embed(texts)
        embed_s = time.perf_counter() - started
        now = time.time()
        with store.write() as writes:
            for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
                memory = Memory(
                    f"m-{i:05d}", text, "fact", "agent", "long", "active", rng.randint(1, 5), "/agents/bench",
                    None, Provenance(), now - rng.uniform(0, 400) * 86400, now,
                )  # fmt: skip
                writes.insert(
                    memory,
                    StoredVector(indexer.model_id, vector),
                    MemoryEvent(memory.id, "created", "import", now),
                )
        book = MemoryBook(store, indexer, "/agents/bench", MemoryConfig())
        started = time.perf_counter()
        book.index.match("warm up", vectors[0])
        load_ms = (time.perf_counter() - started) * 1000

        queries = [
            QUERIES[i % len(QUERIES)] + ("" if i < len(QUERIES) else f" #{i}") for i in range(args.queries)
        ]
        query_vectors = indexer.embed(queries)
        facets = FacetSpace.of(indexer)  # embedded once per model, as in the app
        recall_ms = []
        for query, vector in zip(queries, query_vectors, strict=True):
            result = recall(book.index, query, vector, book.config, session_id=None, facets=facets)
            recall_ms.append(result.elapsed_ms)

        new_texts = synthetic(args.memories + args.adds, random.Random(99))[: args.adds]
        add_ms = []
        for text in new_texts:
            started = time.perf_counter()
            book.add(MemoryDraft(text + " (new)"))
            add_ms.append((time.perf_counter() - started) * 1000)
        store.close()
    indexer.close()

    print(f"Memory speed with {args.memories:,} memories ({embed_s:.0f} s to embed them for the setup; "
          f"index load {load_ms:.0f} ms, once per agent)")  # fmt: skip
    print(f"{'':28}{'median':>10}{'p95':>10}{'goal':>12}")
    print(
        f"{'recall (no query embedding)':28}{statistics.median(recall_ms):>8.1f}ms{percentile(recall_ms, 0.95):>8.1f}ms{'≤ 20 ms p95':>12}"
    )
    print(
        f"{'add one memory':28}{statistics.median(add_ms):>8.1f}ms{percentile(add_ms, 0.95):>8.1f}ms{'≤ 20 ms':>12}"
    )


if __name__ == "__main__":
    main()
