"""Several long references selected for one message share half of the room between them, so
the request still fits a small local model's window (each is cut to its most relevant chunks)."""

from __future__ import annotations

import random
from pathlib import Path

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.budget.counting import counter_for
from agent_core.budget.fitting import Limits
from agent_core.budget.windows import WindowSize
from agent_core.chat.prompt import PromptLimits, build_prompt
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SelectionRun
from agent_core.providers.scripted import ScriptedProvider

WINDOW, RESERVE = 4096, 512


def long_reference(root: Path, name: str, words: int, seed: int) -> None:
    rng = random.Random(seed)
    vocabulary = [f"term{n}" for n in range(400)] + ["deploy", "staging", "rollback", "release"]
    paragraphs = [" ".join(rng.choice(vocabulary) for _ in range(80)) + "." for _ in range(words // 80)]
    (root / "references" / f"{name}.md").write_text(
        f"---\nname: {name}\ndescription: notes {name}\ninclude: agent\n---\n\n"
        + "\n\n".join(paragraphs)
        + "\n",
        encoding="utf-8",
    )


def test_five_long_selected_references_fit_a_4k_window_together(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    names = [f"runbook-{n}" for n in range(5)]
    for seed, name in enumerate(names):
        long_reference(root, name, 1600, seed)
    agent = load_agent(root)
    counter = counter_for(ScriptedProvider(), "scripted", "x")
    limits = PromptLimits(Limits(WindowSize(WINDOW, "chat"), RESERVE), max_reference_tokens=int(0.25 * 3584))
    context = RequestContext(
        tuple(
            RequestItem(ItemRef("reference", name), "agent", 0.6 - n / 100) for n, name in enumerate(names)
        ),
        "scripted:x",
        SelectionRun(20, 5, 0.4),
    )

    prompt = build_prompt(
        agent, context, [], "how do we deploy to staging?", {}, counter=counter, limits=limits
    )

    manifest = prompt.manifest
    assert manifest.total_tokens <= WINDOW - RESERVE
    selected = [part for part in manifest.parts if part.kind == "selected_reference"]
    assert [part.name for part in selected] == names  # every one is there, none dropped
    assert all(part.detail.startswith("chunks ") for part in selected)  # each cut to its chunks
    assert sum(part.tokens for part in selected) <= (WINDOW - RESERVE) // 2 + 5 * 20  # framing
