from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.errors import ProviderConfigError, ProviderRateLimitError
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolCallEvent,
    UsageEvent,
)
from agent_core.providers.scripted import ScriptedProvider

pytestmark = pytest.mark.anyio


def ask(text: str = "hi") -> ChatRequest:
    return ChatRequest(messages=[ChatMessage("user", text)], settings=GenerationSettings(model="scripted"))


async def collect(provider: ScriptedProvider, request: ChatRequest) -> list[StreamEvent]:
    return [event async for event in provider.stream(request)]


async def test_a_queued_reply_streams_in_its_chunks_then_usage_and_finish() -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply(chunks=["Hel", "lo"])
    events = await collect(provider, ask("say hello"))
    assert events[:2] == [TextDelta("Hel"), TextDelta("lo")]
    assert isinstance(events[2], UsageEvent) and events[2].usage.input_tokens == 2
    assert events[3] == FinishEvent("stop")
    provider.assert_all_used()


async def test_text_is_split_into_deltas_that_join_back_exactly() -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("Hello  wide\nworld ")
    completion = await provider.complete(ask())
    assert completion.text == "Hello  wide\nworld "


async def test_several_tool_calls_come_in_one_step() -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_calls(
        [("read", {"path": "a"}, "c1"), ("read", {"path": "b"}, None)], text="Reading"
    )
    completion = await provider.complete(ask())
    assert completion.text == "Reading"
    assert completion.tool_calls == (
        ToolCall("c1", "read", {"path": "a"}),
        ToolCall("call_1", "read", {"path": "b"}),
    )
    assert completion.finish_reason == "tool_calls"


async def test_requests_are_recorded_in_order() -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("one")
    provider.enqueue_tool_call("lookup", {"q": "x"})
    await provider.complete(ask("first"))
    await provider.complete(ask("second"))
    assert [r.messages[0].content for r in provider.requests] == ["first", "second"]


async def test_a_queued_error_is_raised_after_its_chunks() -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderRateLimitError("slow down", retry_after=2), chunks_before=["par"])
    seen: list[StreamEvent] = []
    with pytest.raises(ProviderRateLimitError, match="slow down"):
        async for event in provider.stream(ask()):
            seen.append(event)
    assert seen == [TextDelta("par")]


async def test_running_out_of_steps_is_a_config_error() -> None:
    with pytest.raises(ProviderConfigError, match="no step left for request #1"):
        await ScriptedProvider().complete(ask())


async def test_assert_all_used_reports_unplayed_steps() -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("never asked")
    with pytest.raises(AssertionError, match="1 queued step"):
        provider.assert_all_used()


async def test_a_gate_holds_the_stream_so_a_test_can_cancel_mid_reply() -> None:
    provider = ScriptedProvider()
    gate = asyncio.Event()
    provider.enqueue_reply(chunks=["first", gate, "second"])
    first_seen = asyncio.Event()
    received: list[StreamEvent] = []

    async def consume() -> None:
        async for event in provider.stream(ask()):
            received.append(event)
            first_seen.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_seen.wait(), timeout=2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert received == [TextDelta("first")]


async def test_a_script_file_queues_replies_tool_calls_and_errors(tmp_path: Path) -> None:
    script = tmp_path / "chat.yaml"
    script.write_text(
        "steps:\n"
        "  - reply: Hello there\n"
        "    chunks: [Hello, ' there']\n"
        "  - tool_calls:\n"
        "      - {name: read_file, arguments: {path: notes.md}, id: call_9}\n"
        "  - error: {kind: rate_limit, message: Slow down, retry_after: 2}\n",
        encoding="utf-8",
    )
    from agent_core.providers.base import ProviderSettings

    provider = ScriptedProvider(
        ProviderSettings(provider_id="demo", type="scripted", options={"script": str(script)})
    )
    assert (await provider.complete(ask())).text == "Hello there"
    assert (await provider.complete(ask())).tool_calls == (
        ToolCall("call_9", "read_file", {"path": "notes.md"}),
    )
    with pytest.raises(ProviderRateLimitError) as raised:
        await provider.complete(ask())
    assert raised.value.retry_after == 2
    provider.assert_all_used()


async def test_an_invalid_script_file_says_what_is_wrong(tmp_path: Path) -> None:
    script = tmp_path / "chat.json"
    script.write_text('{"steps": [{"reply": "x", "surprise": 1}]}', encoding="utf-8")
    from agent_core.providers.base import ProviderSettings

    with pytest.raises(ProviderConfigError, match=r"chat.json is not valid.*surprise"):
        ScriptedProvider(
            ProviderSettings(provider_id="demo", type="scripted", options={"script": str(script)})
        )


async def test_tool_call_events_carry_complete_calls() -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_call("search", {"q": "llama"}, id="t1")
    events = await collect(provider, ask())
    assert events[0] == ToolCallEvent(ToolCall("t1", "search", {"q": "llama"}))
