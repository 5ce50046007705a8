"""How ``selection.skillInlineScore`` was chosen: for a model that cannot call tools, the best
selected skill's body comes inline when it scores at least that; too low and wrong bodies fill a
small window, too high and the local model never gets the skill it needs.

The skills are the 97 of three public collections (``catalogue.jsonl``: name and description as
their SKILL.md says, source noted; none is a held-out acceptance collection); ``messages.jsonl``
labels 71 messages with the skill each needs, or none. Each message is run through the real
selector (MiniLM, default settings) over all 97; for each threshold, a body inline is right when it
is the labelled skill, wrong otherwise. The threshold kept maximizes F0.5 (precision counts double:
a wrong body costs a small window more than a missing one, which the model does without).

Run: ``.venv/bin/python benchmarks/skills/inline_score.py``
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent import load_agent
from agent_core.agent.schema import SelectionConfig
from agent_core.context.selection import ContextSelector
from agent_core.context.sources import ContextRequest, candidates_from

HERE = Path(__file__).resolve().parent
THRESHOLDS = [round(0.40 + step / 100, 2) for step in range(51)]
BETA = 0.5


@dataclass(frozen=True)
class Outcome:
    message: str
    label: str | None
    best: str | None  # the best selected skill, None when selection chose none
    score: float


def build_agent(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "agent.yaml").write_text("name: skills-benchmark\n", encoding="utf-8")
    for line in (HERE / "catalogue.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        folder = root / "skills" / entry["name"]
        folder.mkdir(parents=True)
        header = json.dumps({"name": entry["name"], "description": entry["description"]})
        (folder / "SKILL.md").write_text(f"---\n{header}\n---\nInstructions.\n", encoding="utf-8")
    return root


async def outcomes(root: Path, selector: ContextSelector) -> list[Outcome]:
    agent = load_agent(root)
    found = []
    for line in (HERE / "messages.jsonl").read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        request = ContextRequest(agent, entry["message"], None, (), ())
        selected = await selector.select(entry["message"], candidates_from(request), SelectionConfig())
        assert selected.run.status == "ok", selected.run
        best = max(selected.items, key=lambda item: item.score or 0.0, default=None)
        found.append(
            Outcome(
                entry["message"],
                entry["skill"],
                best.ref.name if best else None,
                (best.score or 0.0) if best else 0.0,
            )
        )
    return found


def sweep(found: list[Outcome]) -> list[tuple[float, int, int, float, float, float]]:
    """(threshold, right, wrong, precision, recall, F0.5) for each threshold."""
    positives = sum(1 for o in found if o.label)
    rows = []
    for threshold in THRESHOLDS:
        inline = [o for o in found if o.best is not None and o.score >= threshold]
        right = sum(1 for o in inline if o.best == o.label)
        wrong = len(inline) - right
        precision = right / len(inline) if inline else 1.0
        recall = right / positives if positives else 0.0
        weight = BETA * BETA
        f = (1 + weight) * precision * recall / (weight * precision + recall) if precision + recall else 0.0
        rows.append((threshold, right, wrong, precision, recall, f))
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = build_agent(Path(folder) / "agent")
        selector = ContextSelector(cache_dir=Path(folder) / "embeddings")
        try:
            found = asyncio.run(outcomes(root, selector))
        finally:
            selector.indexer.close()
    positives = sum(1 for o in found if o.label)
    selected_right = sum(1 for o in found if o.label and o.best == o.label)
    print(
        f"{len(found)} messages, {positives} need a skill; selection's best is the right one for {selected_right}"
    )
    print("threshold  right  wrong  precision  recall  F0.5")
    rows = sweep(found)
    for threshold, right, wrong, precision, recall, f in rows:
        print(f"{threshold:9.2f}  {right:5d}  {wrong:5d}  {precision:9.2f}  {recall:6.2f}  {f:.3f}")
    best = max(rows, key=lambda row: (round(row[5], 3), -row[0]))
    print(f"best F0.5 at {best[0]:.2f}: {best[1]} right, {best[2]} wrong inline")
    print("wrong or missed near it:")
    for o in found:
        if (o.best != o.label and o.score >= best[0]) or (o.label and o.score < best[0]):
            print(f"  {o.score:.3f} label={o.label} best={o.best}: {o.message}")


if __name__ == "__main__":
    main()
