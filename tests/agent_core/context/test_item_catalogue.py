"""The ``context.read_item`` catalogue: the agent-mode rules and references selection left out,
near-misses first; only an item the catalogue offered can be read."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.context.item_catalogue import (
    CONTEXT_SERVER,
    MAX_ITEM_CHARS,
    READ_ITEM,
    catalogue_tool,
    read_item,
)
from agent_core.context.items import ItemRef, NearMiss
from agent_core.context.request_tools import PULLED_REASON

CODE = ItemRef("rule", "code-answers")
WRITING = ItemRef("rule", "writing-style")
CHEATSHEET = ItemRef("reference", "markdown-cheatsheet")
GUIDE = ItemRef("reference", "using-contextdesk")


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    """The default agent (two agent-mode rules, two agent-mode references) with a manual rule and
    a long agent-mode reference."""
    root = create_agent(tmp_path / "agent").root
    (root / "rules" / "pirate.md").write_text("---\ninclude: manual\n---\nSpeak like a pirate.\n")
    (root / "references" / "huge.md").write_text(
        "---\ninclude: agent\ndescription: A very long reference\n---\n" + "x" * (MAX_ITEM_CHARS + 500)
    )
    return load_agent(root)


def names(agent: Agent, included: set[ItemRef], near: list[NearMiss] | None = None) -> list[str]:
    tool = catalogue_tool(agent, included, set(), near or [])
    assert tool is not None
    return [name for _, name, _ in tool.catalogue]


def test_the_catalogue_offers_the_agent_mode_items_not_in_the_request(agent: Agent) -> None:
    tool = catalogue_tool(agent, {CODE}, {GUIDE}, [])
    assert tool is not None
    assert (tool.server, tool.name) == (CONTEXT_SERVER, READ_ITEM) and not tool.permission_required
    offered = {name for _, name, _ in tool.catalogue}
    assert offered == {"writing-style", "markdown-cheatsheet", "huge"}  # no manual, included or excluded one
    assert "- rule writing-style: Style for drafting" in tool.description
    schema = tool.input_schema
    assert schema["properties"]["name"]["enum"] == [name for _, name, _ in tool.catalogue]
    assert schema["properties"]["kind"]["enum"] == ["reference", "rule"]


def test_near_misses_come_first_in_the_catalogue(agent: Agent) -> None:
    assert names(agent, set())[:2] == ["using-contextdesk", "writing-style"]  # by priority, then name
    near = [NearMiss(CHEATSHEET, 0.4, "below the bar"), NearMiss(CODE, 0.3, "below the bar")]
    assert names(agent, set(), near)[:2] == ["markdown-cheatsheet", "code-answers"]


def test_no_catalogue_when_every_agent_mode_item_is_in_the_request(agent: Agent) -> None:
    everything = {CODE, WRITING, CHEATSHEET, GUIDE, ItemRef("reference", "huge")}
    assert catalogue_tool(agent, everything, set(), []) is None


def test_an_offered_item_is_read_with_its_text(agent: Agent) -> None:
    ref, text = read_item(agent, {"kind": "rule", "name": "writing-style"}, ["writing-style"])
    assert ref == WRITING and text == agent.rules["writing-style"].text


def test_a_long_item_is_cut_at_the_limit(agent: Agent) -> None:
    _, text = read_item(agent, {"kind": "reference", "name": "huge"}, ["huge"])
    assert len(text) == MAX_ITEM_CHARS + 2 and text.endswith("\n…")


@pytest.mark.parametrize(
    "arguments",
    [
        {"kind": "rule", "name": "code-answers"},  # exists, but was not offered
        {"kind": "rule", "name": "pirate"},  # a manual rule, never offered
        {"kind": "rule", "name": "no-such-rule"},
        {"kind": "tool", "name": "writing-style"},  # not a kind the catalogue has
        {},
    ],
)
def test_an_item_the_catalogue_did_not_offer_is_refused(agent: Agent, arguments: dict[str, str]) -> None:
    with pytest.raises(LookupError, match="in the catalogue; read one it lists"):
        read_item(agent, arguments, ["writing-style", "huge"])


def test_a_pulled_item_says_the_model_asked_for_it() -> None:
    assert PULLED_REASON == "requested by the model"
