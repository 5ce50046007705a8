"""A provider is untrusted output: a malformed stream event, a web page where the API should be,
endless tool arguments, credentials in its base URL. Each ends as a clear error on the reply, what
arrived is kept, and no credential reaches the database, an export or the log."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.cli.main import configure_logging
from agent_core.providers.base import ProviderSettings
from agent_core.providers.openai_compatible import OpenAICompatibleProvider
from agent_core.store.chats import ChatStore, StoredMessage
from agent_core.store.export import export_json, export_markdown
from agent_core.tools.runtime import NoTools
from tests.support.fake_api import FakeApi, Reply, sse_fixture


@pytest.fixture
def api() -> Iterator[FakeApi]:
    server = FakeApi()
    yield server
    server.close()


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    root = tmp_path / "agent"
    create_agent(root)
    return load_agent(root)


def reply_from(agent: Agent, store: ChatStore, base_url: str) -> StoredMessage:
    provider = OpenAICompatibleProvider(
        ProviderSettings(
            provider_id="lab",
            type="openai-compatible",
            base_url=base_url,
            api_key="sk-test",
            timeout_seconds=5,
        )
    )
    session = ChatSession.create(
        agent, store, ChatServices(resolve_provider=lambda model: (provider, "lab-model"), tools=NoTools())
    )

    async def run() -> StoredMessage:
        last = None
        async for event in session.send("hello"):
            if isinstance(event, ReplyFinished):
                last = event.message
        assert last is not None
        return last

    return asyncio.run(asyncio.wait_for(run(), timeout=30))


def no_reply_left_streaming(store: ChatStore) -> bool:
    return all(m.status != "streaming" for s in store.sessions() for m in store.messages(s.id))


def test_a_malformed_stream_event_keeps_the_text_so_far(agent: Agent, api: FakeApi, tmp_path: Path) -> None:
    good = sse_fixture("openai/text.sse")[:3]
    api.queue(Reply(sse_events=[*good, b"data: {not json\n\n"]))
    store = ChatStore(tmp_path / "chats.sqlite3")

    message = reply_from(agent, store, f"{api.url}/v1")

    assert (message.status, message.content) == ("partial", "Hello there")
    assert message.error is not None and "malformed stream event" in message.error
    assert no_reply_left_streaming(store)


def test_a_web_page_where_the_api_should_be_is_named_as_such(
    agent: Agent, api: FakeApi, tmp_path: Path
) -> None:
    api.queue(Reply(raw_body=b"<html><body>Welcome to nginx!</body></html>", content_type="text/html"))
    store = ChatStore(tmp_path / "chats.sqlite3")

    message = reply_from(agent, store, f"{api.url}/v1")

    assert message.status == "error"
    assert message.error is not None and "not with an event stream (text/html)" in message.error
    assert "/v1" in message.error and "dropped" not in message.error


def test_endless_tool_arguments_are_stopped(agent: Agent, api: FakeApi, tmp_path: Path) -> None:
    def chunk(delta: dict[str, object], finish: str | None = None) -> bytes:
        body = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
        return f"data: {json.dumps(body)}\n\n".encode()

    start = chunk(
        {
            "tool_calls": [
                {"index": 0, "id": "call_1", "type": "function", "function": {"name": "x", "arguments": ""}}
            ]
        }
    )
    piece = chunk({"tool_calls": [{"index": 0, "function": {"arguments": "a" * 100_000}}]})
    api.queue(Reply(sse_events=[start, *[piece] * 12, chunk({}, "tool_calls")]))
    store = ChatStore(tmp_path / "chats.sqlite3")

    message = reply_from(agent, store, f"{api.url}/v1")

    assert message.status == "error" and message.error is not None
    assert "arguments pass 1,000,000 characters" in message.error
    assert no_reply_left_streaming(store)


def test_credentials_in_a_base_url_are_never_stored_exported_or_logged(
    agent: Agent,
    api: FakeApi,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", logging.WARNING)
    configure_logging(verbose=True)  # as `contextdesk -v`: every library's debug lines, URLs included
    api.queue(Reply(status=401, json_body={"error": {"message": "bad key"}}))
    host = api.url.removeprefix("http://")
    store = ChatStore(tmp_path / "chats.sqlite3")

    message = reply_from(agent, store, f"http://sam:s3cretpw@{host}/v1?api_key=abc123xyz")

    assert message.error is not None and host in message.error
    log = capsys.readouterr().err
    assert "abc123xyz" not in message.error and host in log
    session = store.sessions()[0]
    exports = export_markdown(session, store.messages(session.id)) + export_json(
        session, store.messages(session.id)
    )
    store.close()
    stored = b"".join(path.read_bytes() for path in tmp_path.glob("chats.sqlite3*"))
    for secret in ("s3cretpw", "abc123xyz"):
        assert secret.encode() not in stored
        assert secret not in exports
        assert secret not in log
