"""Selection at scale: the real selector over about a thousand public skills, on messages written
the way people type (data and label policy: ``benchmarks/selection/scale/README.md``).

    .venv/bin/python benchmarks/selection/scale.py                         # dev, as references
    .venv/bin/python benchmarks/selection/scale.py --as skills             # the same items as skills
    .venv/bin/python benchmarks/selection/scale.py --split holdout         # once, at the end
    .venv/bin/python benchmarks/selection/scale.py --variant floor35:min_score=0.35 --variant top3:top_n=3
    .venv/bin/python benchmarks/selection/scale.py --app-pack   # the whole set plus app_pack.jsonl

Each run builds fresh agent folders in a temporary directory (the 31-item library and the whole
set), each with its own empty embedding cache, and runs ``ContextSelector.select`` (the chat's own
selection, default settings: the hybrid strategy) for every message. A variant (an ablation) is a
name and ``key=value`` settings of the agent's ``selection`` (``SelectionConfig``, snake_case); any
field a mechanism adds there is an option here without a change to this script.

Printed: strict F1 (macro; per message, precision over everything offered, recall over the labels;
an item whose body is byte-identical to a labelled one counts as it, and each further copy offered
costs precision), recall, R@10 (labels among the ten best-scored by the indexer), items per message
(mean / worst), messages that need nothing answered with nothing, copies offered twice, F1 on the
messages the 31-item library serves (31 vs all), the first selection on a fresh agent (31 vs all,
same run: indexing every chunk), later selections (median), and the process's peak RSS.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from agent_core.agent import load_agent  # noqa: E402
from agent_core.agent.schema import SelectionConfig  # noqa: E402
from agent_core.cli.select_run import indexing_progress  # noqa: E402
from agent_core.context.embedding_model import configured_indexer  # noqa: E402
from agent_core.context.selection import Candidate, ContextSelector, indexer_settings  # noqa: E402
from agent_core.context.session_context import agent_candidates  # noqa: E402
from benchmarks.docs_section import BENCHMARKS_DOC, replace_section  # noqa: E402
from benchmarks.selection.scale_alike import head_of, lenient_f1  # noqa: E402

DATA = Path(__file__).resolve().parent / "scale"


@dataclass(frozen=True)
class Item:
    name: str
    description: str
    text: str
    same_body_as: str | None


@dataclass(frozen=True)
class Message:
    id: str
    message: str
    expected: frozenset[str]
    tags: tuple[str, ...]


@dataclass
class Run:
    """What one library gave for the messages."""

    predicted: dict[str, list[str]] = field(default_factory=dict)  # message id -> item names offered
    ranked: dict[str, list[str]] = field(default_factory=dict)  # message id -> ten best-scored names
    first_seconds: float = 0.0  # the first selection on the fresh agent
    first_description_only: int = 0  # items the first selection judged on their description only
    background_seconds: float = 0.0  # the bodies embedded in the background after the first answer
    model_seconds: float = 0.0  # loading the embedding model, before it
    later_ms: list[float] = field(default_factory=list)
    heads: dict[str, Any] = field(default_factory=dict)  # item name -> its head's vector (scale_alike)
    peak_rss_mb: float = 0.0  # of the process, once the messages are selected


def load_items(data: Path = DATA, app_pack: bool = False) -> list[Item]:
    """The labelled items, and with ``app_pack`` the unlabelled pack of templated apps after them."""
    files = ("items.jsonl", "app_pack.jsonl") if app_pack else ("items.jsonl",)
    rows = [
        json.loads(line)
        for name in files
        for line in (data / name).read_text(encoding="utf-8").splitlines()
        if line
    ]
    return [Item(r["name"], r["description"], r["text"], r.get("same_body_as")) for r in rows]


def load_library(data: Path = DATA) -> list[str]:
    lines = (data / "library31.txt").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def load_messages(path: Path) -> list[Message]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Message(r["id"], r["message"], frozenset(r["expected"]), tuple(r.get("tags", ()))) for r in rows]


def write_agent(root: Path, items: Sequence[Item], as_kind: str) -> Path:
    """An agent folder with ``items`` as agent-mode references (``name``, ``description``,
    ``include: agent`` and the text) or as skills (SKILL.md)."""
    root.mkdir(parents=True)
    (root / "agent.yaml").write_text("name: selection-at-scale\n", encoding="utf-8")
    for item in items:
        header = {"name": item.name, "description": item.description}
        if as_kind == "skills":
            path = root / "skills" / item.name / "SKILL.md"
        else:
            header["include"] = "agent"
            path = root / "references" / f"{item.name}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"---\n{json.dumps(header, ensure_ascii=False)}\n---\n{item.text}\n", encoding="utf-8"
        )
    return root


def canonical(items: Sequence[Item]) -> dict[str, str]:
    """Every item name -> the first item with its body (copies count as one item)."""
    return {i.name: i.same_body_as or i.name for i in items}


def prf(
    predicted: Sequence[str], expected: frozenset[str], same: dict[str, str]
) -> tuple[float, float, float]:
    """Strict precision, recall and F1 of one message; a copy of a labelled item counts as it, and
    every item beyond the first of one body costs precision."""
    want = {same.get(e, e) for e in expected}
    got = [same.get(p, p) for p in predicted]
    hits = len(want & set(got))
    precision = hits / len(got) if got else (1.0 if not want else 0.0)
    recall = hits / len(want) if want else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def recall_at(ranked: Sequence[str], expected: frozenset[str], same: dict[str, str]) -> float:
    want = {same.get(e, e) for e in expected}
    return len(want & {same.get(r, r) for r in ranked}) / len(want)


def score(messages: Sequence[Message], run: Run, same: dict[str, str]) -> dict[str, float]:
    rows = [prf(run.predicted[m.id], m.expected, same) for m in messages]
    needing = [m for m in messages if m.expected]
    empty = [m for m in messages if not m.expected]
    counts = [len(run.predicted[m.id]) for m in messages]
    return {
        "messages": len(messages),
        "f1": statistics.fmean(r[2] for r in rows),
        "precision": statistics.fmean(r[0] for r in rows),
        "recall": statistics.fmean(r[1] for r in rows),
        "f1 (need an item)": statistics.fmean(prf(run.predicted[m.id], m.expected, same)[2] for m in needing)
        if needing
        else float("nan"),
        "R@10": statistics.fmean(recall_at(run.ranked[m.id], m.expected, same) for m in needing)
        if needing
        else float("nan"),
        "items/message": statistics.fmean(counts),
        "items worst": max(counts),
        "nothing->nothing": sum(not run.predicted[m.id] for m in empty),
        "nothing-needed": len(empty),
        "copies offered": sum(
            len({same.get(p, p) for p in run.predicted[m.id]}) < len(run.predicted[m.id]) for m in messages
        ),
    }


async def run_library(
    items: Sequence[Item],
    messages: Sequence[Message],
    config: SelectionConfig,
    folder: Path,
    as_kind: str,
    cache: Path | None = None,
    heads: bool = False,
) -> Run:
    """The messages through a fresh agent of ``items`` with an empty embedding cache (or ``cache``,
    kept between runs: ablations then skip embedding, and the first selection is a warm one)."""
    agent = load_agent(write_agent(folder / "agent", items, as_kind))
    if agent.errors:
        raise SystemExit("\n".join(problem.describe(agent.root) for problem in agent.errors))
    candidates = agent_candidates(agent, (), ())
    indexer = configured_indexer(cache or folder / "embeddings")
    indexer.progress = indexing_progress(sys.stderr)
    selector = ContextSelector(indexer, model_wait_seconds=600.0)
    run = Run()
    try:
        started = time.perf_counter()
        indexer.start_loading()
        await asyncio.to_thread(indexer.wait_until_ready, 600.0)
        run.model_seconds = time.perf_counter() - started
        for number, message in enumerate(messages):
            started = time.perf_counter()
            outcome = await selector.select(message.message, candidates, config, agent_path=str(agent.root))
            elapsed = time.perf_counter() - started
            if outcome.run.status != "ok":
                raise SystemExit(
                    f"selection failed for {message.id}: {outcome.run.status} {outcome.run.detail}"
                )
            if number == 0:
                run.first_seconds = elapsed
                run.first_description_only = len(outcome.run.description_only)
                if outcome.run.description_only:
                    # Quality is measured on the whole index: wait for the bodies the app embeds
                    # in the background after its first answer.
                    started = time.perf_counter()
                    await asyncio.to_thread(indexer.tiers.wait_until_done, 7200.0)
                    run.background_seconds = time.perf_counter() - started
                    outcome = await selector.select(
                        message.message, candidates, config, agent_path=str(agent.root)
                    )
            else:
                run.later_ms.append(elapsed * 1000)
            run.predicted[message.id] = [item.ref.name for item in outcome.items]
            run.ranked[message.id] = ranked(indexer_ranking(selector, message.message, candidates, config))
        run.peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if heads:  # after the peak is read: the harness's own embedding is not the app's memory
            named = {n for m in messages for n in (*run.predicted[m.id], *m.expected)}
            documents = {c.ref.name: c.document for c in candidates if c.ref.name in named}
            vectors = indexer.embed([head_of(d.name, d.description) for d in documents.values()])
            run.heads = dict(zip(documents, vectors, strict=True))
    finally:
        indexer.close()
    return run


def indexer_ranking(
    selector: ContextSelector, message: str, candidates: Sequence[Candidate], config: SelectionConfig
) -> list[str]:
    """The ten best-scored candidates' keys (the indexer's ranking, included or not)."""
    selection = selector.indexer.select(message, [c.document for c in candidates], indexer_settings(config))
    return [scored.key for scored in selection.best(10)]


def ranked(keys: Sequence[str]) -> list[str]:
    return [key.split(":", 1)[1] for key in keys]


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    """``NAME:key=value,...``: settings of ``SelectionConfig`` (values parsed as JSON when they are)."""
    name, _, assignments = text.partition(":")
    values: dict[str, Any] = {}
    for assignment in filter(None, assignments.split(",")):
        key, _, raw = assignment.partition("=")
        if key not in SelectionConfig.model_fields:
            raise SystemExit(f"unknown setting {key!r}; known: {', '.join(SelectionConfig.model_fields)}")
        try:
            values[key] = json.loads(raw)
        except json.JSONDecodeError:
            values[key] = raw
    return name, values


def pct(value: float) -> str:
    return f"{value:.3f}"


async def measure(
    items: Sequence[Item],
    library: Sequence[str],
    messages: Sequence[Message],
    overrides: dict[str, Any],
    as_kind: str,
    cache: Path | None = None,
) -> dict[str, Any]:
    """Every figure for one variant: the 31-item library on the messages it serves, then all items."""
    config = SelectionConfig.model_validate({**SelectionConfig().model_dump(), **overrides})
    same = canonical(items)
    in_library = set(library)
    served = [m for m in messages if m.expected and m.expected <= in_library]
    small_items = [i for i in items if i.name in in_library]
    with tempfile.TemporaryDirectory(prefix="scale-") as folder:
        small = await run_library(small_items, served, config, Path(folder) / "small", as_kind, cache)
        large = await run_library(items, messages, config, Path(folder) / "large", as_kind, cache, heads=True)
    figures: dict[str, Any] = dict(score(messages, large, same))
    figures["served"] = len(served)
    figures["served f1 small"] = score(served, small, same)["f1"]
    figures["served f1 large"] = score(served, large, same)["f1"]
    figures["served f1 large alike"] = statistics.fmean(
        lenient_f1(large.predicted[m.id], m.expected, same, large.heads) for m in served
    )
    figures["first s small"] = small.first_seconds
    figures["first s large"] = large.first_seconds
    figures["first description only"] = large.first_description_only
    figures["background s"] = large.background_seconds
    figures["model s"] = large.model_seconds
    figures["later ms median"] = statistics.median(large.later_ms) if large.later_ms else float("nan")
    figures["peak RSS MB"] = large.peak_rss_mb
    figures["large"] = large
    return figures


ROWS = (
    ("f1", "strict F1 (macro, all messages)", pct),
    ("f1 (need an item)", "F1 on the messages that need an item", pct),
    ("recall", "recall", pct),
    ("R@10", "R@10", pct),
    ("items/message", "items per message, mean", lambda v: f"{v:.2f}"),
    ("items worst", "items per message, worst", lambda v: f"{v:d}"),
    ("nothing->nothing", "nothing-needed answered with nothing", None),
    ("copies offered", "messages offered two copies of one body", lambda v: f"{v:d}"),
    ("served f1 small", "F1 on the messages the 31-item library serves, at 31", pct),
    ("served f1 large", "the same messages, at all items", pct),
    ("served f1 large alike", "the same, an item alike to a label counted as it", pct),
    ("first s small", "first selection, fresh 31-item agent (s)", lambda v: f"{v:.1f}"),
    ("first s large", "first selection, fresh agent of all items (s)", lambda v: f"{v:.1f}"),
    ("first description only", "items it judged on their description only", lambda v: f"{v:d}"),
    ("background s", "bodies embedded in the background after it (s)", lambda v: f"{v:.0f}"),
    ("model s", "loading the embedding model, before it (s)", lambda v: f"{v:.1f}"),
    ("later ms median", "later selections, median (ms)", lambda v: f"{v:.0f}"),
    ("peak RSS MB", "peak RSS of the process so far (MB)", lambda v: f"{v:.0f}"),
)


def table(results: dict[str, dict[str, Any]]) -> str:
    lines = ["| | " + " | ".join(results) + " |", "|---" * (len(results) + 1) + "|"]
    for key, label, form in ROWS:
        cells = []
        for figures in results.values():
            if form is None:
                cells.append(f"{figures['nothing->nothing']}/{figures['nothing-needed']}")
            else:
                cells.append(form(figures[key]))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# The issue's figures on the held-out 1,029-skill set (today's main, before #30), beside ours.
ISSUE_REFERENCE = {
    "f1": "—",
    "f1 (need an item)": "0.541",
    "recall": "0.690 (over the 100 that need one)",
    "R@10": "0.840",
    "items/message": "2.72",
    "items worst": "27",
    "nothing->nothing": "19/20",
    "copies offered": "18 of 120 (same body or same name)",
    "served f1 small": "0.536",
    "served f1 large": "0.358",
    "served f1 large alike": "—",
    "first s small": "17 (whole command)",
    "first s large": "302 (whole command)",
    "first description only": "—",
    "background s": "—",
    "model s": "—",
    "later ms median": "65",
    "peak RSS MB": "590",
}


def write_docs(results: dict[str, dict[str, Any]], messages: Sequence[Message], as_kind: str) -> str:
    """The "Selection at scale" section of docs/benchmarks.md: these figures beside the issue's."""
    first = next(iter(results.values()))
    columns = {**results}
    lines = table(columns).splitlines()
    lines[0] += " issue #30 (held-out 1,029 skills) |"
    lines[1] += "---|"
    for index, (key, _, _) in enumerate(ROWS, start=2):
        lines[index] += f" {ISSUE_REFERENCE[key]} |"
    section = (
        "## Selection at scale\n\n"
        f"Measured {time.strftime('%Y-%m-%d')} by `benchmarks/selection/scale.py --write-docs` on the dev "
        f"split of `benchmarks/selection/scale/` ({len(messages)} messages, "
        f"{sum(not m.expected for m in messages)} needing nothing, {first['served']} served by the 31-item "
        f"library): 1,063 public skills imported as agent-mode {as_kind} (100 of them one app template with "
        "only the app's name changed), each library a fresh agent with an empty embedding cache, selected by "
        "the chat's own `ContextSelector` with default settings. Strict F1 is the macro average per message "
        "(a copy of a labelled item counts as it; each further copy offered costs precision); R@10 is the "
        "share of labels among the indexer's ten best-scored. The first selection indexes what the chat's "
        "does (a large agent's descriptions first, its bodies in the background after the answer: see "
        '"Indexing in tiers"); the figures of quality are of the whole index, once the bodies are in '
        "(the harness waits for them after the first message, then selects it again). The model's loading "
        "is shown apart (the issue's times are of the whole `contextdesk select` command). "
        "The issue's column is its own held-out set, not this one: a reference for the size of the "
        "problem, not a comparison. Ablations: `--variant NAME:setting=value` (any `SelectionConfig` "
        f"field). Machine: {os.cpu_count()} cores, load average {os.getloadavg()[1]:.1f} over the last five "
        "minutes of the run (times grow with it).\n\n" + "\n".join(lines) + "\n"
    )
    replace_section(section + kept_subsections())
    return section


def kept_subsections(path: Path = BENCHMARKS_DOC) -> str:
    """The ``### `` parts of the section as docs/benchmarks.md has it (ablations written by hand),
    kept when the figures above them are rewritten."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    start = text.find("## Selection at scale\n")
    if start == -1:
        return ""
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else len(text)]
    first = body.find("\n### ")
    return "" if first == -1 else body[first:].rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data", type=Path, default=DATA, help="data folder (items.jsonl, library31.txt)")
    parser.add_argument("--split", default="dev", help="dev, holdout, or a path to a .jsonl file")
    parser.add_argument("--as", dest="as_kind", choices=("references", "skills"), default="references")
    parser.add_argument(
        "--cache",
        type=Path,
        help="keep the embedding cache in this folder between runs (ablations; first-selection times are then warm)",
    )
    parser.add_argument("--variant", action="append", default=[], help="NAME:key=value,... (repeatable)")
    parser.add_argument("--no-default", action="store_true", help="run only the variants")
    parser.add_argument(
        "--misses", action="store_true", help="list the messages the first variant gets wrong"
    )
    parser.add_argument(
        "--app-pack",
        action="store_true",
        help="add app_pack.jsonl (unlabelled templated apps) to the whole set; the 31-item library stays",
    )
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help='write the figures to docs/benchmarks.md, "Selection at scale"',
    )
    args = parser.parse_args(argv)
    if args.app_pack and args.write_docs:
        parser.error("--write-docs describes the set without the pack: run --app-pack without it")
    split = Path(args.split) if args.split.endswith(".jsonl") else args.data / f"messages_{args.split}.jsonl"
    items = load_items(args.data, args.app_pack)
    library = load_library(args.data)
    messages = load_messages(split)
    default: list[tuple[str, dict[str, Any]]] = [] if args.no_default else [("default", {})]
    variants = default + [parse_variant(v) for v in args.variant]
    results = {
        name: asyncio.run(measure(items, library, messages, values, args.as_kind, args.cache))
        for name, values in variants
    }
    print(
        f"data: {split.name}, {len(messages)} messages ({sum(not m.expected for m in messages)} need nothing); "
        f"{len(items)} items as {args.as_kind}; 31-item library serves {next(iter(results.values()))['served']}"
    )
    print(table(results))
    if args.write_docs:
        write_docs(results, messages, args.as_kind)
    if args.misses:
        same = canonical(items)
        large: Run = next(iter(results.values()))["large"]
        for m in messages:
            got = large.predicted[m.id]
            if prf(got, m.expected, same)[2] < 1.0:
                print(f"\n{m.id} {m.message!r}\n  expected {sorted(m.expected)}\n  offered  {got}")
                print(f"  best 10  {large.ranked[m.id]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
