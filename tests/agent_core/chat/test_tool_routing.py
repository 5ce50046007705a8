"""Routing a tool for a model that cannot choose among tools: at most one tool stays in the
request, none when nothing matches well enough, and every tool left out says why.

Scored by the real selector (MiniLM)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from agent_core.agent.schema import SelectionConfig
from agent_core.chat.tool_routing import route_tool
from agent_core.context.items import ItemRef, NearMiss, RequestContext, RequestItem, SelectionRun
from agent_core.context.selection import ContextSelector
from tests.support.chat_tools import Tool

pytestmark = pytest.mark.slow  # the real MiniLM model

WEATHER = Tool("weather", "forecast", "Weather forecast for a city: temperature, rain and wind")
FILES = Tool("files", "list_files", "List the files in a folder of the workspace")
MAIL = Tool("mail", "send_email", "Send an email message to a person")
TOOLS = {ItemRef("tool", t.name, t.server): t for t in (WEATHER, FILES, MAIL)}
RULE = RequestItem(ItemRef("rule", "clear-answers"), "always")
RULE_MISS = NearMiss(ItemRef("rule", "writing-style"), 0.2, "below the bar")


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def context(*modes: str) -> RequestContext:
    """The rule, and the three tools in the request (``always`` unless ``modes`` says otherwise)."""
    tools = [
        RequestItem(ref, modes[i] if i < len(modes) else "always")  # type: ignore[arg-type]
        for i, ref in enumerate(TOOLS)
    ]
    return RequestContext(
        items=(RULE, *tools),
        model="local:tiny",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.7),
        near_misses=(RULE_MISS,),
    )


def routed(
    selector: ContextSelector | None,
    message: str,
    score: float = 0.3,
    unroutable: dict[ItemRef, str] | None = None,
    given: RequestContext | None = None,
) -> RequestContext:
    config = SelectionConfig(tool_route_score=score)
    return asyncio.run(route_tool(selector, message, None, given or context(), TOOLS, config, unroutable))


def tool_names(context: RequestContext) -> list[str]:
    return [item.ref.name for item in context.of_type("tool")]


def test_the_one_tool_the_message_asks_for_stays_and_the_others_say_why(selector: ContextSelector) -> None:
    result = routed(selector, "what will the weather be in Paris tomorrow, will it rain?")
    assert tool_names(result) == ["forecast"]
    assert RULE in result.items and RULE_MISS in result.near_misses  # other items untouched
    [kept] = result.of_type("tool")
    assert kept.score is not None and kept.score >= 0.3
    out = {m.ref.name: m for m in result.near_misses if m.ref.type == "tool"}
    assert set(out) == {"list_files", "send_email"}
    assert (
        out["send_email"].reason
        == "Always-on tool routed out: only weather.forecast, the best match, was sent"
    )
    assert out["send_email"].score is not None
    assert "local:tiny" not in result.notes.tool_routing  # the model's name, without its provider
    assert result.notes.tool_routing.startswith("tiny cannot choose tools itself, so ContextDesk picked")


def test_at_most_one_tool_is_routed_even_when_several_pass_the_bar(selector: ContextSelector) -> None:
    result = routed(selector, "list the files, send an email about the weather", score=0.0)
    assert len(result.of_type("tool")) == 1


def test_no_tool_is_routed_below_the_bar(selector: ContextSelector) -> None:
    exact = WEATHER.description  # scores the forecast tool above 1 (about 1.17)
    assert tool_names(routed(selector, exact, score=1.1)) == ["forecast"]
    result = routed(selector, exact, score=1.4)
    assert tool_names(result) == []
    out = [m for m in result.near_misses if m.ref.type == "tool"]
    assert len(out) == 3 and all(m.needed == 1.4 for m in out)
    assert all(
        m.reason.endswith("routed out: no tool matched the message well enough to be called") for m in out
    )
    assert "no tool matched this message at 1.40 or more (best: weather.forecast" in result.notes.tool_routing


def test_a_reason_says_how_the_tool_had_come_in(selector: ContextSelector) -> None:
    result = routed(
        selector, "nothing relevant at all", score=1.4, given=context("manual", "agent", "always")
    )
    reasons = {
        m.ref.name: m.reason.split(" routed out")[0] for m in result.near_misses if m.ref.type == "tool"
    }
    assert reasons == {
        "forecast": "Tool added to this chat",
        "list_files": "Selected tool",
        "send_email": "Always-on tool",
    }


def test_an_unroutable_tool_is_never_picked_and_says_why(selector: ContextSelector) -> None:
    weather = ItemRef("tool", "forecast", "weather")
    result = routed(
        selector, "weather forecast in Paris", score=0.0, unroutable={weather: "it needs arguments"}
    )
    assert "forecast" not in tool_names(result) and len(tool_names(result)) == 1
    [miss] = [m for m in result.near_misses if m.ref == weather]
    assert miss.reason == "Always-on tool routed out: it needs arguments" and miss.score is None


def test_when_no_tool_can_be_picked_none_is_sent() -> None:
    unroutable = {ref: "it needs arguments" for ref in TOOLS}
    result = routed(None, "weather", unroutable=unroutable)
    assert tool_names(result) == []
    assert "none of this request's tools can be picked" in result.notes.tool_routing


def test_without_selection_no_tool_is_routed() -> None:
    result = routed(None, "what will the weather be?")
    assert tool_names(result) == []
    assert "selection is off in this app" in result.notes.tool_routing
    assert all(
        m.reason.endswith("selection is off in this app, so no tool can be picked")
        for m in result.near_misses
        if m.ref.type == "tool"
    )


def test_a_request_without_tools_is_left_as_it_was() -> None:
    given = RequestContext(items=(RULE,), model="local:tiny", selection=SelectionRun(20, 5, 0.7))
    assert routed(None, "hello", given=given) is given


REFERENCES = Tool(
    "references",
    "list_references",
    "List the agent's reference documents: one line per document, name: description.",
)
RELEASE_NOTES = Tool(
    "workflows", "release-notes", "Run the workflow 'release-notes': Write release notes from notes"
)
WRITING_TOOLS = {ItemRef("tool", t.name, t.server): t for t in (REFERENCES, RELEASE_NOTES, FILES)}


@pytest.mark.parametrize(
    "message",
    [
        "Write release notes for Bluefin 0.9.2 from my notes",
        "Write release notes for {{topic}} from these notes",
    ],
)
def test_a_request_to_write_goes_to_the_model_even_when_a_tools_words_match(
    selector: ContextSelector, message: str
) -> None:
    given = RequestContext(
        items=tuple(RequestItem(ref, "always") for ref in WRITING_TOOLS),
        model="local:tiny",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.7),
    )
    config = SelectionConfig(tool_route_score=0.3)
    result = asyncio.run(route_tool(selector, message, None, given, WRITING_TOOLS, config))
    assert tool_names(result) == []
    note = result.notes.tool_routing
    assert note.startswith("tiny cannot choose tools itself; the message asks to write, which the model does")
    assert "so no tool was called (best match: " in note
    out = [m for m in result.near_misses if m.ref.type == "tool"]
    assert len(out) == 3
    assert all(
        m.reason == "Always-on tool routed out: the message asks to write, which the model does" for m in out
    )
    assert all(m.score is not None for m in out) and max(m.score or 0.0 for m in out) >= 0.3  # it matched


def test_a_request_for_a_tools_action_is_still_routed_among_writing_tools(selector: ContextSelector) -> None:
    given = RequestContext(
        items=tuple(RequestItem(ref, "always") for ref in WRITING_TOOLS),
        model="local:tiny",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.7),
    )
    config = SelectionConfig(tool_route_score=0.3)
    result = asyncio.run(
        route_tool(selector, "list the files in my folder", None, given, WRITING_TOOLS, config)
    )
    assert tool_names(result) == ["list_files"]
