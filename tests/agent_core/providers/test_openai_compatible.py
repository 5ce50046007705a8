from __future__ import annotations

import json
from dataclasses import replace

import pytest

from agent_core.errors import (
    ProviderAuthError,
    ProviderConfigError,
    ProviderRateLimitError,
    ProviderRequestError,
    ProviderUnavailableError,
)
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    ImageInput,
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
from agent_core.providers.openai_compatible import OpenAICompatibleProvider
from agent_core.providers.retry import stream_with_retries
from tests.support.fake_api import FakeApi, Reply, json_fixture, sse_fixture
from tests.support.image_turns import PIXEL, image_turn

pytestmark = pytest.mark.anyio

READ_FILE = ToolSpec(
    "read_file",
    "Read a file",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


def provider_for(api: FakeApi, **overrides: object) -> OpenAICompatibleProvider:
    settings = ProviderSettings(
        provider_id="lab",
        type="openai-compatible",
        base_url=f"{api.url}/v1",
        api_key="sk-test",
        timeout_seconds=2.0,
    )
    return OpenAICompatibleProvider(ProviderSettings(**{**settings.__dict__, **overrides}))


def request(*messages: ChatMessage, tools: tuple[ToolSpec, ...] = ()) -> ChatRequest:
    return ChatRequest(
        messages=list(messages) or [ChatMessage("system", "Be brief."), ChatMessage("user", "Hi")],
        settings=GenerationSettings(model="gpt-4o-mini", max_output_tokens=50, temperature=0.2, top_p=0.8),
        tools=tools,
    )


async def collect(provider: OpenAICompatibleProvider, req: ChatRequest) -> list[StreamEvent]:
    try:
        return [event async for event in provider.stream(req)]
    finally:
        await provider.aclose()


async def test_text_streams_as_deltas_with_usage_including_cached_tokens(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/text.sse")))
    events = await collect(provider_for(fake_api), request())
    assert events == [
        TextDelta("Hello"),
        TextDelta(" there"),
        TextDelta("!"),
        UsageEvent(TokenUsage(input_tokens=1317, output_tokens=3, cached_input_tokens=1152)),
        FinishEvent("stop"),
    ]


async def test_the_request_body_carries_messages_settings_and_usage_option(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/text.sse")))
    await collect(provider_for(fake_api, headers={"X-Team": "docs"}), request())
    sent = fake_api.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer sk-test"
    assert sent.headers["x-team"] == "docs"
    assert sent.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["max_tokens"] == 50 and sent.body["temperature"] == 0.2 and sent.body["top_p"] == 0.8


async def test_fragmented_tool_call_arguments_are_assembled_by_index(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/tool_calls.sse")))
    events = await collect(
        provider_for(fake_api), request(ChatMessage("user", "Read notes"), tools=(READ_FILE,))
    )
    assert [e for e in events if isinstance(e, ToolCallEvent)] == [
        ToolCallEvent(ToolCall("call_Wt8r1Qh0ZkVh3nqJ4bC2xYpD", "read_file", {"path": "notes.md"})),
        ToolCallEvent(ToolCall("call_5fYp0mUe2gSx9aLrTq7vKc1B", "search", {"q": "llama"})),
    ]
    assert events[-1] == FinishEvent("tool_calls")
    assert fake_api.requests[0].body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read_file",
                "description": "Read a file",
                "parameters": dict(READ_FILE.input_schema),
            },
        }
    ]


async def test_invalid_json_arguments_are_passed_raw_for_the_engine_to_report(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/bad_arguments.sse")))
    events = await collect(provider_for(fake_api), request(tools=(READ_FILE,)))
    assert ToolCallEvent(ToolCall("call_x1", "read_file", {"_raw": '{"path": notes'})) in events
    assert not any(isinstance(e, UsageEvent) for e in events)  # this server sends no usage


async def test_tool_history_is_sent_as_assistant_tool_calls_and_tool_messages(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/text.sse")))
    history = (
        ChatMessage("user", "Read notes"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("c1", "read_file", {"path": "notes.md"}),)),
        ChatMessage("tool", "Buy milk.", tool_call_id="c1", tool_name="read_file"),
    )
    await collect(provider_for(fake_api), request(*history, tools=(READ_FILE,)))
    messages = fake_api.requests[0].body["messages"]
    assert messages[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read_file", "arguments": '{"path": "notes.md"}'},
            }
        ],
    }
    assert messages[2] == {"role": "tool", "tool_call_id": "c1", "content": "Buy milk."}


async def test_a_401_is_an_auth_error_saying_to_check_the_key(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(401, json_fixture("openai/error_401.json")))
    with pytest.raises(
        ProviderAuthError, match=r"lab at .* rejected the API key \(HTTP 401\): Incorrect API key"
    ) as raised:
        await collect(provider_for(fake_api), request())
    assert "in Providers" in str(raised.value)


async def test_a_404_names_the_model_and_says_to_check_it(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(404, json_fixture("openai/error_404.json")))
    with pytest.raises(ProviderRequestError, match=r"does not know model 'gpt-4o-mini'.*Check the model id"):
        await collect(provider_for(fake_api), request())


async def test_a_429_carries_retry_after_and_succeeds_on_retry(fake_api: FakeApi) -> None:
    fake_api.queue(
        Reply(429, json_fixture("openai/error_429.json"), headers={"retry-after": "2"}),
        Reply(sse_events=sse_fixture("openai/text.sse")),
    )
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    provider = provider_for(fake_api)
    events = [event async for event in stream_with_retries(provider, request(), sleep=fake_sleep)]
    await provider.aclose()
    retry = events[0]
    assert isinstance(retry, RetryEvent) and retry.delay == 2.0
    assert isinstance(retry.error, ProviderRateLimitError) and retry.error.status == 429
    assert "Rate limit reached" in str(retry.error)
    assert delays == [2.0]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Hello there!"
    assert len(fake_api.requests) == 2


async def test_a_500_is_retryable_unavailable(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(500, json_fixture("openai/error_500.json")))
    with pytest.raises(
        ProviderUnavailableError, match=r"failed on its side \(HTTP 500\).*Try again"
    ) as raised:
        await collect(provider_for(fake_api), request())
    assert raised.value.retryable


async def test_a_stream_that_drops_mid_way_is_unavailable(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/text.sse"), drop_after=2))
    seen: list[StreamEvent] = []
    provider = provider_for(fake_api)
    with pytest.raises(ProviderUnavailableError, match="dropped before the reply was complete"):
        async for event in provider.stream(request()):
            seen.append(event)
    await provider.aclose()
    assert seen == [TextDelta("Hello")]


async def test_a_server_that_never_answers_times_out(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(hang=True))
    with pytest.raises(ProviderUnavailableError, match=r"did not answer within 0.3 s.*raise the timeout"):
        await collect(provider_for(fake_api, timeout_seconds=0.3), request())


async def test_an_unreachable_server_says_to_check_it_is_running() -> None:
    provider = OpenAICompatibleProvider(
        ProviderSettings(provider_id="ollama", type="openai-compatible", base_url="http://127.0.0.1:9/v1")
    )
    with pytest.raises(ProviderUnavailableError, match=r"Cannot reach ollama at http://127\.0\.0\.1:9/v1"):
        await collect(provider, request())


async def test_openai_itself_without_a_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    provider = OpenAICompatibleProvider(ProviderSettings(provider_id="openai", type="openai"))
    with pytest.raises(
        ProviderConfigError, match="No API key for OpenAI: set OPENAI_API_KEY or add it in Providers"
    ):
        await collect(provider, request())


async def test_openai_itself_gets_max_completion_tokens(
    fake_api: FakeApi, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = OpenAICompatibleProvider(ProviderSettings(provider_id="openai", type="openai", api_key="sk"))
    assert provider.is_openai
    assert provider._request_params(request())["max_completion_tokens"] == 50


async def test_models_are_listed_from_the_models_endpoint(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(json_body=json_fixture("openai/models.json")))
    provider = provider_for(fake_api)
    models = await provider.list_models()
    await provider.aclose()
    assert [m.id for m in models] == ["gpt-4o-mini", "gpt-4.1"]
    assert fake_api.requests[0].path == "/v1/models"


async def test_a_vision_model_gets_the_images_in_a_user_message_after_the_tool_messages(
    fake_api: FakeApi,
) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/text.sse")))
    provider = provider_for(fake_api, vision_models=("llava*", "qwen2.5-vl*"))
    assert provider.accepts_images("llava-1.6") and not provider.accepts_images("llama3.1")
    req = replace(
        request(*image_turn(ImageInput("image/tiff", "AAAA"))),
        settings=replace(request().settings, model="llava-1.6"),
    )
    await collect(provider, req)
    messages = fake_api.requests[0].body["messages"]
    # The API wants every tool message right after the calls, so the images wait for the last one.
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "user", "user"]
    assert messages[2] == {"role": "tool", "tool_call_id": "call_a", "content": "[image: PNG 1x1, 0.1 KB]"}
    assert messages[4] == {
        "role": "user",
        "content": [
            {"type": "text", "text": "The images of the result of shots__capture (call call_a):"},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PIXEL}"}},
        ],
    }  # the TIFF, which the API does not read, is left to the summary line
    assert messages[5] == {"role": "user", "content": "What does it show?"}


async def test_a_model_that_cannot_see_gets_only_the_summary_line(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("openai/text.sse")))
    # Another server's models see nothing unless the agent lists them in visionModels.
    await collect(provider_for(fake_api), request(*image_turn(ImageInput("image/tiff", "AAAA"))))
    messages = fake_api.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "tool", "user"]
    assert "image_url" not in json.dumps(messages)
    assert messages[2]["content"] == "[image: PNG 1x1, 0.1 KB]"


def test_openais_own_vision_models_are_known_and_its_others_are_not() -> None:
    openai = OpenAICompatibleProvider(ProviderSettings(provider_id="openai", type="openai"))
    for model in ("gpt-4o", "gpt-4o-mini", "gpt-4.1-nano", "gpt-5", "gpt-5-mini", "o3", "o4-mini", "o1"):
        assert openai.accepts_images(model), model
    for model in ("gpt-3.5-turbo", "o3-mini", "o1-mini", "gpt-4o-audio-preview", "gpt-4o-mini-tts"):
        assert not openai.accepts_images(model), model
    # An agent's list replaces what ContextDesk knows: here, no model of OpenAI's sees images.
    none = OpenAICompatibleProvider(ProviderSettings(provider_id="openai", type="openai", vision_models=()))
    assert not none.accepts_images("gpt-4o")
