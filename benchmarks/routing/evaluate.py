"""Score tool routing for models that cannot choose tools: right tool, or left to the model.

    .venv/bin/python benchmarks/routing/evaluate.py                  # dev: sweep the route score
    .venv/bin/python benchmarks/routing/evaluate.py --split holdout --threshold 0.5
    .venv/bin/python benchmarks/routing/evaluate.py --misses         # the messages it gets wrong
    .venv/bin/python benchmarks/routing/evaluate.py --write-docs --threshold 0.5   # dev + holdout

Each message goes through the app's own ``route_tool`` (real MiniLM) with every tool of
tools.json in the request, as an always-on tool (``references.read_reference`` is left out, as
the app leaves it out for such models). "Scores only" is routing before the intent test: the best
tool at or above the route score is called. "With intent" adds ``routing_intent``.

Routed to the right tool: precision = right calls / calls made; recall = right calls / messages
labelled with a tool. Left to the model: precision = messages labelled "model" among those no tool
answered / those no tool answered; recall = messages labelled "model" no tool answered / messages
labelled "model". Accuracy: messages whose outcome is right (a listed tool, or none when "model").
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.schema import SelectionConfig
from agent_core.chat.tool_routing import route_tool
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SelectionRun
from agent_core.context.selection import ContextSelector
from benchmarks.docs_section import replace_section

HERE = Path(__file__).resolve().parent
UNROUTABLE = {"references.read_reference"}  # the app never routes it (context_builder._reference_readers)
THRESHOLDS = (0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65)


@dataclass(frozen=True)
class _Tool:
    server: str
    name: str
    description: str
    input_schema: dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    message: str
    expected: tuple[str, ...]
    best: str | None  # the best-scoring tool
    score: float  # its score
    vetoed: bool  # the intent test left the message to the model


def load_tools() -> dict[ItemRef, _Tool]:
    entries = json.loads((HERE / "tools.json").read_text(encoding="utf-8"))
    tools = [_Tool(e["server"], e["name"], e["description"], e["inputSchema"]) for e in entries]
    return {ItemRef("tool", t.name, t.server): t for t in tools if f"{t.server}.{t.name}" not in UNROUTABLE}


def load_messages(split: str) -> list[dict[str, Any]]:
    path = Path(split) if split.endswith(".jsonl") else HERE / f"messages_{split}.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


async def route_all(selector: ContextSelector, messages: list[dict[str, Any]]) -> list[Outcome]:
    """Every message routed once at route score 0: the best tool and its score, and whether the
    intent test left it to the model; any threshold is then applied to the score."""
    tools = load_tools()
    context = RequestContext(
        items=tuple(RequestItem(ref, "always") for ref in tools),
        model="local:bench",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.7),
    )
    config = SelectionConfig(tool_route_score=0.0)
    outcomes = []
    for row in messages:
        result = await route_tool(selector, row["message"], None, context, tools, config)
        scored = [(i.ref, i.score) for i in result.of_type("tool")]
        scored += [(m.ref, m.score) for m in result.near_misses if m.ref.type == "tool"]
        ref, score = max(scored, key=lambda pair: pair[1] or 0.0)
        outcomes.append(
            Outcome(
                row["message"],
                tuple(row["expected"]),
                f"{ref.server}.{ref.name}",
                score or 0.0,
                vetoed=not result.of_type("tool"),
            )
        )
    return outcomes


def decision(outcome: Outcome, threshold: float, intent: bool) -> str | None:
    if outcome.score < threshold or (intent and outcome.vetoed):
        return None
    return outcome.best


def score(outcomes: list[Outcome], threshold: float, intent: bool) -> dict[str, float]:
    called = [(o, decision(o, threshold, intent)) for o in outcomes]
    calls = [(o, d) for o, d in called if d is not None]
    right_calls = sum(d in o.expected for o, d in calls)
    wanting_tool = sum(bool(o.expected) for o in outcomes)
    left = [o for o, d in called if d is None]
    model_left = sum(not o.expected for o in left)
    wanting_model = sum(not o.expected for o in outcomes)
    right = sum((d in o.expected) if o.expected else d is None for o, d in called)
    return {
        "tool precision": right_calls / len(calls) if calls else 1.0,
        "tool recall": right_calls / wanting_tool if wanting_tool else 1.0,
        "model precision": model_left / len(left) if left else 1.0,
        "model recall": model_left / wanting_model if wanting_model else 1.0,
        "accuracy": right / len(outcomes),
    }


def table(outcomes: list[Outcome], thresholds: tuple[float, ...]) -> list[str]:
    lines = [
        "| route score | routing | tool precision | tool recall | model precision | model recall | accuracy |",
        "|---|---|---|---|---|---|---|",
    ]
    for threshold in thresholds:
        for intent in (False, True):
            m = score(outcomes, threshold, intent)
            lines.append(
                f"| {threshold:.2f} | {'with intent' if intent else 'scores only'} | "
                + " | ".join(f"{m[k]:.2f}" for k in m)
                + " |"
            )
    return lines


def misses(outcomes: list[Outcome], threshold: float) -> list[str]:
    lines = []
    for o in outcomes:
        got = decision(o, threshold, True)
        if (got in o.expected) if o.expected else got is None:
            continue
        want = " or ".join(o.expected) or "the model"
        why = " (intent: model)" if o.vetoed else ""
        lines.append(f"{o.message!r}: {got or 'the model'} ({o.best} {o.score:.2f}{why}), wanted {want}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", default="dev", help="dev, holdout, or a path to a .jsonl file")
    parser.add_argument("--threshold", type=float, default=None, help="one route score instead of the sweep")
    parser.add_argument("--misses", action="store_true", help="list the messages routed wrongly")
    parser.add_argument("--write-docs", action="store_true", help="dev and holdout into docs/benchmarks.md")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as cache:
        selector = ContextSelector(cache_dir=Path(cache))
        try:
            if args.write_docs:
                return write_docs(selector, args.threshold or 0.5)
            outcomes = asyncio.run(route_all(selector, load_messages(args.split)))
        finally:
            selector.indexer.close()
    thresholds = (args.threshold,) if args.threshold is not None else THRESHOLDS
    labelled = sum(bool(o.expected) for o in outcomes)
    print(
        f"{args.split}: {len(outcomes)} messages ({labelled} for a tool, {len(outcomes) - labelled} for the model)"
    )
    print("\n".join(table(outcomes, thresholds)))
    if args.misses:
        print("\n".join(misses(outcomes, thresholds[-1] if args.threshold is not None else 0.5)))
    return 0


def write_docs(selector: ContextSelector, threshold: float) -> int:
    dev = asyncio.run(route_all(selector, load_messages("dev")))
    holdout = asyncio.run(route_all(selector, load_messages("holdout")))
    lines = [
        "## Routing intent",
        "",
        "A model that cannot choose among tools (the bundled one) gets *routed* calls: the best tool is",
        "called if it scores at least `selection.toolRouteScore`, and since issue #31 only when the message",
        "asks for the tool's action: writing, summarising, explaining, translating and rewriting requests go",
        "to the model (`agent_core/context/routing_intent.py`). Data: `benchmarks/routing/` (label policy in",
        f"its README), {len(dev)} dev and {len(holdout)} holdout messages, {len(load_tools())} tools from the",
        "default agent's built-in servers, the npm filesystem and everything servers and one workflow.",
        "Run: `.venv/bin/python benchmarks/routing/evaluate.py` (dev sweep), `--split holdout --threshold 0.5`.",
        "",
        "Dev (the route score and the intent test were chosen on it):",
        "",
        *table(dev, THRESHOLDS),
        "",
        f"Holdout, run once at the chosen route score {threshold:.2f}:",
        "",
        *table(holdout, (threshold,)),
        "",
        "The route score is chosen on dev as the one with the best accuracy among those that leave every",
        '"model" message to the model (model recall 1.00, the failure of issue #31), ties to the higher',
        'score: 0.45 (0.88) against 0.50 (0.86), one message apart ("make a folder called drafts" scores',
        "0.4999). One message at the bar is no reason to move the default, which stays 0.50. On both",
        "splits the intent test leaves to the model no message labelled for a tool (tool recall is the same",
        "with and without it) and every message labelled for the model; what is left is scoring: the wrong",
        'tool of several close ones (`filesystem.get_file_info` for "show me notes.md") or a right one',
        'under the bar ("remember that my birthday is 3 May", 0.40). Those are selection\'s to fix, not',
        "the intent test's.",
        "",
    ]
    replace_section("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
