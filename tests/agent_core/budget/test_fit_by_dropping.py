"""A request that would overflow the window leaves out the items selected for its message, the
lowest-scored first, before it ever fails; when it still cannot fit, the error names what
takes the room and the fix that applies to it."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.budget.counting import TokenCounter, counter_for
from agent_core.budget.dropping import LEFT_OUT_TO_FIT, SelectedItem, fit_dropping
from agent_core.budget.fitting import Block, ContextOverflowError, Draft, Limits
from agent_core.budget.windows import WindowSize
from agent_core.chat.events import ChatEvent, ContextBuilt, ReplyFinished
from agent_core.chat.prompt import PromptLimits, build_prompt
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SelectionRun
from agent_core.context.selection import ContextSelector
from agent_core.providers.base import ToolSpec
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore

WORDS = TokenCounter("words", True, lambda text: len(text.split()))


def words(count: int, word: str = "word") -> str:
    return " ".join([word] * count)


def selected_draft(system_words: int = 10) -> Draft:
    """A message with three selected references of 100 words and one selected tool of 50."""
    return Draft(
        system=[Block("system_prompt", words(system_words, "system"))],
        history=[],
        user=[
            Block("framing", "<context>"),
            Block("selected_reference", words(100, "alpha"), "alpha"),
            Block("selected_reference", words(100, "beta"), "beta"),
            Block("selected_reference", words(100, "gamma"), "gamma"),
            Block("framing", "</context>"),
            Block("message", "what do my notes say?"),
        ],
        turns=[],
        tools=[ToolSpec("search__find", words(50, "find"), {"type": "object", "properties": {}})],
    )


SELECTED = (
    SelectedItem(ItemRef("reference", "alpha"), 0.9),
    SelectedItem(ItemRef("reference", "beta"), 0.5),
    SelectedItem(ItemRef("reference", "gamma"), 0.7),
    SelectedItem(ItemRef("tool", "find", "search"), 0.6, tool="search__find"),
)


def limits(window: int) -> Limits:
    return Limits(WindowSize(window, "chat"), reply_reserve=0)


def test_the_lowest_scored_selected_item_is_left_out_first_and_recorded() -> None:
    fitted = fit_dropping(selected_draft(), SELECTED, WORDS, limits(330))

    assert [miss.ref.name for miss in fitted.left_out] == ["beta"]
    assert fitted.left_out[0].reason == LEFT_OUT_TO_FIT == "left out to fit the window"
    assert fitted.left_out[0].score == 0.5
    sent = fitted.messages[-1].content
    assert "alpha" in sent and "gamma" in sent and "beta" not in sent
    assert fitted.manifest.total_tokens <= 330
    action = next(a for a in fitted.manifest.trimmed if a.kind == "items_left_out")
    assert action.detail == "1 selected item left out to fit the window: beta"


def test_everything_selected_can_go_wrapper_and_tools_too_before_the_request_fails() -> None:
    fitted = fit_dropping(selected_draft(), SELECTED, WORDS, limits(40))

    assert [miss.ref.label() for miss in fitted.left_out] == ["beta", "search.find", "gamma", "alpha"]
    assert fitted.left_out_tools() == {"find"}
    assert fitted.messages[-1].content == "what do my notes say?"  # no empty <context> wrapper
    assert not [part for part in fitted.manifest.parts if part.kind == "tool"]


def test_items_with_no_score_are_left_out_last() -> None:
    unscored = (
        SelectedItem(ItemRef("reference", "alpha"), None),
        SelectedItem(ItemRef("reference", "beta"), 0.5),
        SelectedItem(ItemRef("reference", "gamma"), 0.4),
    )
    fitted = fit_dropping(selected_draft(), unscored, WORDS, limits(200))
    assert [miss.ref.name for miss in fitted.left_out] == ["gamma", "beta"]


def test_a_request_that_fits_leaves_nothing_out() -> None:
    fitted = fit_dropping(selected_draft(), SELECTED, WORDS, limits(1000))
    assert fitted.left_out == () and not fitted.manifest.trimmed


def test_when_what_is_left_cannot_fit_the_error_names_it_and_its_fix_not_the_chats_items() -> None:
    with pytest.raises(ContextOverflowError) as raised:
        fit_dropping(selected_draft(system_words=500), SELECTED, WORDS, limits(300))
    message = str(raised.value)
    assert message.startswith("4 items selected for this message were left out first, and still")
    assert "The largest part is the system prompt, 500 tokens: shorten the agent's system prompt" in message
    assert "or choose a model with a larger window" in message
    assert "remove items from the chat" not in message
    assert raised.value.excess > 0


def test_the_prompt_records_what_was_left_out_as_near_misses(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    rng = random.Random(4)
    names = [f"note-{n}" for n in range(5)]
    for name in names:
        body = "\n\n".join(
            " ".join(rng.choice(["star", "moon", "orbit", "comet"]) for _ in range(60)) for _ in range(20)
        )
        (root / "references" / f"{name}.md").write_text(
            f"---\ndescription: notes {name}\ninclude: agent\n---\n\n{body}\n", encoding="utf-8"
        )
    agent = load_agent(root)
    counter = counter_for(ScriptedProvider(), "scripted", "x")
    items = tuple(
        RequestItem(ItemRef("reference", name), "agent", 0.8 - n / 10) for n, name in enumerate(names)
    )
    context = RequestContext(items, "scripted:x", SelectionRun(20, 5, 0.7))
    # So small a window that only some of the five (each cut to its 128-token minimum) fit.
    prompt_limits = PromptLimits(Limits(WindowSize(600, "chat"), 0), max_reference_tokens=200)

    prompt = build_prompt(agent, context, [], "what about comets?", {}, counter=counter, limits=prompt_limits)

    assert prompt.manifest.total_tokens <= 600
    left = [miss.ref.name for miss in prompt.left_out]
    assert left and left == names[len(names) - len(left) :][::-1]  # the lowest scores went first
    sent = prompt.sent_context(context)
    assert [item.ref.name for item in sent.items] == names[: len(names) - len(left)]
    assert [miss.reason for miss in sent.near_misses[: len(left)]] == [LEFT_OUT_TO_FIT] * len(left)
    assert sent.manifest == prompt.manifest


ASTRONOMY = [
    "Saw Jupiter and four of its moons through the telescope tonight; the seeing was steady.",
    "The Perseid meteor shower peaks in mid August; best after midnight away from city lights.",
    "Andromeda galaxy is visible to the naked eye from a dark site in autumn.",
]
EVERYDAY = [
    "Sourdough starter needs feeding twice a day at room temperature.",
    "Tomatoes need staking by June; pinch out the side shoots.",
    "Quarterly planning meeting moved to Thursday; bring the budget sheet.",
    "Train to Lyon leaves at 7:42 from Gare de Lyon; pack the rain jacket.",
]


@pytest.mark.slow
def test_three_hundred_notes_asked_about_astronomy_go_out_with_at_most_top_n_in_a_4k_window(
    tmp_path: Path,
) -> None:
    root = tmp_path / "agent"
    create_agent(root)
    with (root / "agent.yaml").open("a", encoding="utf-8") as config:
        config.write("context:\n  window: 4096\n")  # the offline model's window
    for number in range(300):
        about_stars = number % 5 == 0
        lines = ASTRONOMY if about_stars else EVERYDAY
        topic = "astronomy" if about_stars else "everyday"
        body = "\n\n".join(
            f"{lines[(number + k) % len(lines)]} Entry {k} of note {number}." for k in range(6)
        )
        (root / "references" / f"note-{number:03d}.md").write_text(
            f"---\ndescription: note {number} ({topic})\ninclude: agent\n---\n\n{body}\n", encoding="utf-8"
        )
    agent = load_agent(root)
    provider = ScriptedProvider()
    provider.enqueue_reply("Your notes mention Jupiter, the Perseids and Andromeda.")
    selector = ContextSelector(cache_dir=tmp_path / "embeddings")
    try:
        session = ChatSession.create(
            agent,
            ChatStore(tmp_path / "chats.sqlite3"),
            ChatServices(resolve_provider=lambda m: (provider, "x"), selector=selector),
        )

        async def send() -> list[ChatEvent]:
            return [event async for event in session.send("What do my notes say about astronomy?")]

        events = asyncio.run(send())
    finally:
        selector.indexer.close()

    built = next(e for e in events if isinstance(e, ContextBuilt))
    selected = [item for item in built.context.items if item.include_mode == "agent"]
    assert 0 < len(selected) <= 5
    assert len(provider.requests) == 1  # the request went out
    saved = next(e for e in events if isinstance(e, ReplyFinished)).message
    assert saved.status == "complete", saved.error
    manifest = saved.request_context.manifest if saved.request_context else None
    assert manifest is not None and manifest.total_tokens <= manifest.budget
    references = [part for part in manifest.parts if part.kind == "selected_reference"]
    assert 0 < len(references) <= 5
