from __future__ import annotations

import pytest

from agent_core.errors import (
    ProviderAuthError,
    ProviderConfigError,
    ProviderRateLimitError,
    ProviderUnavailableError,
)
from agent_core.providers.anthropic_provider import AnthropicProvider
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    ProviderSettings,
    RetryEvent,
    StreamEvent,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolCallEvent,
    ToolSpec,
    UsageEvent,
)
from agent_core.providers.retry import stream_with_retries
from tests.support.fake_api import FakeApi, Reply, json_fixture, sse_fixture

pytestmark = pytest.mark.anyio

READ_FILE = ToolSpec(
    "read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)


def provider_for(api: FakeApi, timeout: float = 2.0) -> AnthropicProvider:
    return AnthropicProvider(
        ProviderSettings(
            provider_id="anthropic",
            type="anthropic",
            api_key="sk-ant-test",
            base_url=api.url,
            timeout_seconds=timeout,
        )
    )


def request(*messages: ChatMessage, tools: tuple[ToolSpec, ...] = ()) -> ChatRequest:
    return ChatRequest(
        messages=list(messages) or [ChatMessage("system", "Be brief."), ChatMessage("user", "Hi")],
        settings=GenerationSettings(model="claude-fixture-model", max_output_tokens=64, temperature=0.3),
        tools=tools,
    )


async def collect(provider: AnthropicProvider, req: ChatRequest) -> list[StreamEvent]:
    try:
        return [event async for event in provider.stream(req)]
    finally:
        await provider.aclose()


async def test_text_streams_with_usage_counting_cache_reads(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("anthropic/text.sse")))
    events = await collect(provider_for(fake_api), request())
    assert events == [
        TextDelta("Hello"),
        TextDelta(" from Claude"),
        UsageEvent(TokenUsage(input_tokens=2073, output_tokens=15, cached_input_tokens=2048)),
        FinishEvent("stop"),
    ]
    sent = fake_api.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["authorization"] == "Bearer sk-ant-test"
    assert "anthropic-version" in sent.headers


async def test_system_is_separate_and_cache_control_marks_system_and_breakpoint(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("anthropic/text.sse")))
    history = (
        ChatMessage("system", "You are ContextDesk."),
        ChatMessage("user", "Project rules: be kind.", cache_breakpoint=True),
        ChatMessage("user", "Read notes"),
        ChatMessage(
            "assistant", "On it.", tool_calls=(ToolCall("toolu_1", "read_file", {"path": "notes.md"}),)
        ),
        ChatMessage("tool", "Buy milk.", tool_call_id="toolu_1", tool_name="read_file"),
        ChatMessage("tool", "no such file", tool_call_id="toolu_2", tool_name="read_file", is_error=True),
        ChatMessage("user", "Thanks"),
    )
    await collect(provider_for(fake_api), request(*history, tools=(READ_FILE,)))
    body = fake_api.requests[0].body
    assert body["system"] == [
        {"type": "text", "text": "You are ContextDesk.", "cache_control": {"type": "ephemeral"}}
    ]
    assert body["messages"] == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Project rules: be kind.", "cache_control": {"type": "ephemeral"}},
                {"type": "text", "text": "Read notes"},
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "On it."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "notes.md"}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Buy milk."},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "no such file",
                    "is_error": True,
                },
                {"type": "text", "text": "Thanks"},
            ],
        },
    ]
    assert body["tools"] == [
        {"name": "read_file", "description": "Read a file", "input_schema": dict(READ_FILE.input_schema)}
    ]
    assert body["max_tokens"] == 64 and "temperature" not in body and "top_p" not in body
    assert body["stream"] is True


async def test_tool_use_json_fragments_become_one_tool_call(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("anthropic/tool_use.sse")))
    events = await collect(provider_for(fake_api), request(tools=(READ_FILE,)))
    assert events[0] == TextDelta("Let me read that file.")
    assert events[1] == ToolCallEvent(
        ToolCall("toolu_01T1x1fJ34qAmk2tNTrN7Up6", "read_file", {"path": "notes.md"})
    )
    assert events[-1] == FinishEvent("tool_calls")


async def test_a_401_is_an_auth_error(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(401, json_fixture("anthropic/error_401.json")))
    with pytest.raises(
        ProviderAuthError, match=r"Anthropic rejected the API key \(HTTP 401\): invalid x-api-key"
    ):
        await collect(provider_for(fake_api), request())


async def test_a_429_with_retry_after_is_retried_then_succeeds(fake_api: FakeApi) -> None:
    fake_api.queue(
        Reply(429, json_fixture("anthropic/error_429.json"), headers={"retry-after": "4"}),
        Reply(sse_events=sse_fixture("anthropic/text.sse")),
    )
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    provider = provider_for(fake_api)
    events = [event async for event in stream_with_retries(provider, request(), sleep=fake_sleep)]
    await provider.aclose()
    assert isinstance(events[0], RetryEvent) and isinstance(events[0].error, ProviderRateLimitError)
    assert delays == [4.0]
    assert events[-1] == FinishEvent("stop")


async def test_overloaded_529_is_unavailable(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(529, json_fixture("anthropic/error_529.json")))
    with pytest.raises(ProviderUnavailableError, match=r"HTTP 529\): Overloaded"):
        await collect(provider_for(fake_api), request())


async def test_an_error_event_inside_the_stream_is_mapped_by_its_type(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("anthropic/overloaded_mid_stream.sse")))
    with pytest.raises(ProviderUnavailableError, match="Overloaded"):
        await collect(provider_for(fake_api), request())


async def test_a_stream_that_drops_mid_way_is_unavailable(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("anthropic/text.sse"), drop_after=4))
    with pytest.raises(ProviderUnavailableError, match="dropped before the reply was complete"):
        await collect(provider_for(fake_api), request())


async def test_a_server_that_never_answers_times_out(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(hang=True))
    with pytest.raises(ProviderUnavailableError, match=r"did not answer within 0\.3 s"):
        await collect(provider_for(fake_api, timeout=0.3), request())


async def test_no_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    provider = AnthropicProvider(ProviderSettings(provider_id="anthropic", type="anthropic"))
    with pytest.raises(ProviderConfigError, match="No API key for Anthropic: set ANTHROPIC_API_KEY"):
        await collect(provider, request())


def test_images_of_a_tool_result_go_to_claude_beside_their_one_line_summary() -> None:
    from agent_core.providers.anthropic_provider import to_anthropic_messages
    from agent_core.providers.base import ChatMessage, ImageInput

    claude = AnthropicProvider(ProviderSettings(provider_id="anthropic", type="anthropic"))
    assert claude.accepts_images("claude-sonnet-4-5")
    result = ChatMessage(
        "tool",
        "[image: PNG 20x20, 3.9 KB]",
        tool_call_id="c1",
        images=(ImageInput("image/png", "iVBORw0K"), ImageInput("image/x-unknown", "AAAA")),
    )
    _, messages = to_anthropic_messages([result])
    [block] = messages[0]["content"]
    assert block["type"] == "tool_result"
    assert block["content"] == [
        {"type": "text", "text": "[image: PNG 20x20, 3.9 KB]"},
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}},
    ]
    _, plain = to_anthropic_messages([ChatMessage("tool", "text only", tool_call_id="c2")])
    assert plain[0]["content"][0]["content"] == "text only"
    # An agent that lists no vision models for the provider sends the summary line alone.
    _, blind = to_anthropic_messages([result], image_types=frozenset())
    assert blind[0]["content"][0]["content"] == "[image: PNG 20x20, 3.9 KB]"
