"""The second opinion in a chat, on an agent of 60 real references (tests/support/real_library.py)
with the real MiniLM: the catalogue cannot list them all, so the model is offered a search; it
finds the reference the message needs, reads it, and the reply's RequestContext (what View Context
shows) has it as requested by the model. A name no catalogue or search offered is refused."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.chat.events import ChatEvent, ToolCallFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import ItemRef
from agent_core.context.learned import LearnedSelections
from agent_core.context.selection import ContextSelector
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from tests.support.real_library import library_agent

pytestmark = pytest.mark.slow

NEEDED = ItemRef("reference", "secrets-management")
# The first selection embeds every chunk of 60 real files (about a minute on two shared cores).
FIRST_REPLY_SECONDS = 300.0
MESSAGE = "Help me with the next step."  # says nothing selection could match; the model knows more


@pytest.fixture
def selector(tmp_path: Path) -> Iterator[ContextSelector]:
    made = ContextSelector(cache_dir=tmp_path / "embeddings")
    yield made
    made.indexer.close()


def test_the_model_searches_sixty_references_reads_the_one_it_needs_and_view_context_shows_it(
    tmp_path: Path, selector: ContextSelector
) -> None:
    agent = library_agent(tmp_path / "agent", 60)
    store = ChatStore(tmp_path / "chats.sqlite3")
    learned = LearnedSelections(store.path)
    selector.learned = learned
    provider = ScriptedProvider()
    provider.enqueue_tool_call("context__search_items", {"query": "keep API keys and passwords out of CI"})
    provider.enqueue_tool_call("context__read_item", {"kind": NEEDED.type, "name": NEEDED.name})
    provider.enqueue_tool_call("context__read_item", {"kind": "reference", "name": "zk-steward"})
    provider.enqueue_reply("Store them in the CI's secret store.")
    session = ChatSession.create(
        agent, store, ChatServices(resolve_provider=lambda m: (provider, "x"), selector=selector)
    )

    async def run() -> list[ChatEvent]:
        return await asyncio.wait_for(_events(session), FIRST_REPLY_SECONDS)

    events = asyncio.run(run())
    try:
        offered = {tool.name: tool for tool in provider.requests[0].tools}
        catalogue = offered["context__read_item"].description
        assert "search for the others" in catalogue and f"reference {NEEDED.name}:" not in catalogue
        assert "zk-steward" not in catalogue
        assert "context__search_items" in offered

        searched, read, refused = (e.record for e in events if isinstance(e, ToolCallFinished))
        assert (
            searched.result.startswith("<search-results")
            and f"- reference {NEEDED.name} (" in searched.result
        )
        assert "zk-steward" not in searched.result
        assert not read.is_error and read.result == agent.references[NEEDED.name].text
        assert refused.is_error and "no reference named 'zk-steward' in the catalogue" in refused.result

        context = session.last_request_context()
        assert context is not None
        [pulled] = [item for item in context.items if item.ref == NEEDED]
        assert (pulled.include_mode, pulled.reason) == ("agent", "requested by the model")
        assert all(item.ref.name != "zk-steward" for item in context.items)
        [search] = [item for item in context.items if item.ref == ItemRef("tool", "search_items", "context")]
        assert (
            search.reason.startswith("lets the model search the ")
            and "than the catalogue lists" in search.reason
        )
        [correction] = learned.corrections(str(agent.root))  # selection learns what it missed
        assert (correction.ref, correction.message, correction.added) == (NEEDED, MESSAGE, True)
    finally:
        selector.learned = None
        learned.close()
        store.close()


async def _events(session: ChatSession) -> list[ChatEvent]:
    return [event async for event in session.send(MESSAGE)]
