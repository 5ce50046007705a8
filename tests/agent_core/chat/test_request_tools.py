"""The seam through which a feature offers tools a request answers itself (``request_tools``): an
offer registered by the test's own feature (``notes.lookup``) is asked for its tools once the
request's context is built, a model that chooses tools gets them, the chat awaits the answer, and
the item the answer pulls joins the reply's RequestContext. The chat knows only these shapes."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import IncludeMode
from agent_core.chat.events import ChatEvent, ToolCallFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef
from agent_core.context.request_tools import (
    PULLED_REASON,
    REQUEST_TOOLS,
    OfferedTool,
    OfferRequest,
    ToolAnswer,
)
from agent_core.errors import ContextDeskError
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore

WAIT = 10.0
CHEATSHEET = ItemRef("reference", "markdown-cheatsheet")


@dataclass(frozen=True)
class Lookup:
    """``notes.lookup``: gives a reference's text by name, and puts it in the reply."""

    texts: Mapping[str, str]
    server: str = "notes"
    name: str = "lookup"
    description: str = "Look up a reference by name"
    include: IncludeMode = IncludeMode.ALWAYS
    permission_required: bool = False
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: {"type": "object", "properties": {"name": {"type": "string"}}}
    )

    async def answer(self, arguments: Mapping[str, Any]) -> ToolAnswer:
        name = str(arguments.get("name", ""))
        if name == "locked":
            raise ContextDeskError("the notes are locked by another app; close it and ask again")
        if name not in self.texts:
            return ToolAnswer(f"no reference named {name!r}", is_error=True)
        return ToolAnswer(self.texts[name], pulled=ItemRef("reference", name))


@dataclass
class Notes:
    """The test's feature: offers ``notes.lookup`` to every request, and records what it saw."""

    seen: list[OfferRequest] = field(default_factory=list)

    async def offer(self, offer: OfferRequest) -> Sequence[OfferedTool]:
        self.seen.append(offer)
        texts = {name: item.text for name, item in offer.request.agent.references.items()}
        return [OfferedTool(Lookup(texts), "the notes feature's lookup")]


@pytest.fixture
def notes(monkeypatch: pytest.MonkeyPatch) -> Notes:
    REQUEST_TOOLS.names()  # the built-ins loaded, then the test's feature beside them (undone after)
    monkeypatch.setattr(REQUEST_TOOLS, "_plugins", dict(REQUEST_TOOLS._plugins))
    feature = Notes()
    REQUEST_TOOLS.register("test-notes", feature)
    return feature


def test_a_registered_offer_gives_the_model_a_tool_the_chat_answers_and_its_item_joins_the_reply(
    tmp_path: Path, notes: Notes
) -> None:
    loaded = load_agent(create_agent(tmp_path / "agent").root)
    provider = ScriptedProvider()
    provider.enqueue_tool_call("notes__lookup", {"name": CHEATSHEET.name})
    provider.enqueue_tool_call("notes__lookup", {"name": "no-such-note"})
    provider.enqueue_tool_call("notes__lookup", {"name": "locked"})
    provider.enqueue_reply("Done.")
    store = ChatStore(tmp_path / "chats.sqlite3")
    session = ChatSession.create(loaded, store, ChatServices(resolve_provider=lambda m: (provider, "x")))

    async def run() -> list[ChatEvent]:
        return [event async for event in session.send("what does the cheatsheet say?")]

    events = asyncio.run(asyncio.wait_for(run(), WAIT))
    [seen] = notes.seen
    assert seen.request.message == "what does the cheatsheet say?" and seen.outcome.run.status == "disabled"
    assert "notes__lookup" in {tool.name for tool in provider.requests[0].tools}
    found, missing, failed = (e.record for e in events if isinstance(e, ToolCallFinished))
    assert (found.server, found.tool, found.is_error) == ("notes", "lookup", False)
    assert found.result == loaded.references[CHEATSHEET.name].text
    assert missing.is_error and missing.result == "no reference named 'no-such-note'"
    assert failed.is_error and failed.result == (  # an answer that raises is a result, never a crash
        "The tool failed: the notes are locked by another app; close it and ask again"
    )
    context = session.last_request_context()
    assert context is not None
    [pulled] = [item for item in context.items if item.ref == CHEATSHEET]
    assert (pulled.include_mode, pulled.reason) == ("agent", PULLED_REASON)
    [tool] = [item for item in context.items if item.ref == ItemRef("tool", "lookup", "notes")]
    assert tool.reason == "the notes feature's lookup"
    store.close()
