from __future__ import annotations

import base64
import json
from dataclasses import replace

import pytest

from agent_core.errors import (
    ProviderAuthError,
    ProviderConfigError,
    ProviderRateLimitError,
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
    ToolCallEvent,
    ToolSpec,
    UsageEvent,
)
from agent_core.providers.gemini_provider import GeminiProvider
from agent_core.providers.retry import stream_with_retries
from tests.support.fake_api import FakeApi, Reply, json_fixture, sse_fixture
from tests.support.image_turns import PIXEL, image_turn

pytestmark = pytest.mark.anyio

READ_FILE = ToolSpec(
    "read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
)


def provider_for(api: FakeApi, timeout: float = 2.0) -> GeminiProvider:
    return GeminiProvider(
        ProviderSettings(
            provider_id="gemini",
            type="gemini",
            api_key="AIza-test",
            base_url=api.url,
            timeout_seconds=timeout,
        )
    )


def request(*messages: ChatMessage, tools: tuple[ToolSpec, ...] = ()) -> ChatRequest:
    return ChatRequest(
        messages=list(messages) or [ChatMessage("system", "Be brief."), ChatMessage("user", "Hi")],
        settings=GenerationSettings(
            model="gemini-2.5-flash", max_output_tokens=64, temperature=0.3, top_p=0.9
        ),
        tools=tools,
    )


async def collect(provider: GeminiProvider, req: ChatRequest) -> list[StreamEvent]:
    try:
        return [event async for event in provider.stream(req)]
    finally:
        await provider.aclose()


async def test_text_streams_with_usage_including_thinking_tokens(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("gemini/text.sse")))
    events = await collect(provider_for(fake_api), request())
    assert events == [
        TextDelta("Hello"),
        TextDelta(" from Gemini"),
        TextDelta("."),
        UsageEvent(TokenUsage(input_tokens=9, output_tokens=31, cached_input_tokens=0)),
        FinishEvent("stop"),
    ]
    sent = fake_api.requests[0]
    assert sent.path.endswith("/models/gemini-2.5-flash:streamGenerateContent?alt=sse")
    assert sent.headers["x-goog-api-key"] == "AIza-test"
    assert sent.body["systemInstruction"]["parts"] == [{"text": "Be brief."}]
    assert sent.body["contents"] == [{"role": "user", "parts": [{"text": "Hi"}]}]
    config = sent.body["generationConfig"]
    assert config["maxOutputTokens"] == 64 and config["temperature"] == 0.3 and config["topP"] == 0.9


async def test_function_calls_round_trip_with_their_thought_signature(fake_api: FakeApi) -> None:
    fake_api.queue(
        Reply(sse_events=sse_fixture("gemini/function_call.sse")),
        Reply(sse_events=sse_fixture("gemini/text.sse")),
    )
    provider = provider_for(fake_api)
    events = [
        event
        async for event in provider.stream(request(ChatMessage("user", "Read notes"), tools=(READ_FILE,)))
    ]
    call = next(event.call for event in events if isinstance(event, ToolCallEvent))
    assert (call.name, dict(call.arguments)) == ("read_file", {"path": "notes.md"})
    assert events[-1] == FinishEvent("tool_calls")
    (declaration,) = fake_api.requests[0].body["tools"][0]["functionDeclarations"]
    assert (declaration["name"], declaration["description"]) == ("read_file", "Read a file")
    # The API accepts proto field names in either case; this SDK version sends snake_case here.
    schema = declaration.get("parametersJsonSchema", declaration.get("parameters_json_schema"))
    assert schema == dict(READ_FILE.input_schema)

    history = (
        ChatMessage("user", "Read notes"),
        ChatMessage("assistant", "", tool_calls=(call,)),
        ChatMessage("tool", "Buy milk.", tool_call_id=call.id, tool_name="read_file"),
    )
    await collect(provider, request(*history, tools=(READ_FILE,)))
    contents = fake_api.requests[1].body["contents"]
    assert contents[1] == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "read_file", "args": {"path": "notes.md"}},
                "thoughtSignature": "CiQB0e2Kb4tmgd8Cxg==",
            }
        ],
    }
    assert contents[2] == {
        "role": "user",
        "parts": [{"functionResponse": {"name": "read_file", "response": {"result": "Buy milk."}}}],
    }


async def test_a_403_is_an_auth_error(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(403, json_fixture("gemini/error_403.json")))
    with pytest.raises(ProviderAuthError, match=r"Gemini refused access \(HTTP 403\).*GEMINI_API_KEY"):
        await collect(provider_for(fake_api), request())


async def test_a_429_uses_the_retry_info_delay_then_succeeds(fake_api: FakeApi) -> None:
    fake_api.queue(
        Reply(429, json_fixture("gemini/error_429.json")), Reply(sse_events=sse_fixture("gemini/text.sse"))
    )
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    provider = provider_for(fake_api)
    events = [event async for event in stream_with_retries(provider, request(), sleep=fake_sleep)]
    await provider.aclose()
    assert isinstance(events[0], RetryEvent) and isinstance(events[0].error, ProviderRateLimitError)
    assert "exceeded your current quota" in str(events[0].error)
    assert delays == [3.0]
    assert events[-1] == FinishEvent("stop")


async def test_a_500_is_unavailable(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(500, json_fixture("gemini/error_500.json")))
    with pytest.raises(ProviderUnavailableError, match=r"Gemini failed on its side \(HTTP 500\)"):
        await collect(provider_for(fake_api), request())


async def test_a_stream_that_drops_mid_way_is_unavailable(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("gemini/text.sse"), drop_after=1))
    with pytest.raises(ProviderUnavailableError, match="dropped before the reply was complete"):
        await collect(provider_for(fake_api), request())


async def test_a_server_that_never_answers_times_out(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(hang=True))
    with pytest.raises(ProviderUnavailableError, match=r"did not answer within 0\.3 s"):
        await collect(provider_for(fake_api, timeout=0.3), request())


async def test_no_key_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ProviderConfigError, match="No API key for Gemini: set GEMINI_API_KEY"):
        await collect(GeminiProvider(ProviderSettings(provider_id="gemini", type="gemini")), request())


async def test_a_gemini_model_gets_the_images_as_inline_data_after_the_function_responses(
    fake_api: FakeApi,
) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("gemini/text.sse")))
    await collect(provider_for(fake_api), request(*image_turn(ImageInput("image/gif", "R0lGODlh"))))
    contents = fake_api.requests[0].body["contents"]
    assert [c["role"] for c in contents] == ["user", "model", "user"]
    parts = contents[2]["parts"]
    assert [next(iter(p)) for p in parts] == [
        "functionResponse",
        "functionResponse",
        "text",
        "inlineData",
        "text",
    ]
    assert parts[2] == {"text": "The images of the result of shots__capture (call call_a):"}
    # The GIF, which Gemini does not read, is left to the summary line.
    # As the SDK writes it: URL-safe base64, which the API reads (proto JSON takes either alphabet).
    blob = parts[3]["inlineData"]
    assert blob.get("mimeType", blob.get("mime_type")) == "image/png"
    assert base64.urlsafe_b64decode(blob["data"]) == base64.b64decode(PIXEL)
    assert parts[4] == {"text": "What does it show?"}


async def test_a_gemini_model_the_agent_says_cannot_see_gets_only_the_summary_line(fake_api: FakeApi) -> None:
    fake_api.queue(Reply(sse_events=sse_fixture("gemini/text.sse")))
    provider = GeminiProvider(
        replace(provider_for(fake_api).settings, vision_models=("!*flash*", "gemini-*"))
    )
    await collect(provider, request(*image_turn(ImageInput("image/gif", "R0lGODlh"))))
    parts = fake_api.requests[0].body["contents"][2]["parts"]
    assert [next(iter(p)) for p in parts] == ["functionResponse", "functionResponse", "text"]
    assert "inlineData" not in json.dumps(fake_api.requests[0].body)


def test_gemini_models_from_1_5_on_see_images() -> None:
    gemini = GeminiProvider(ProviderSettings(provider_id="gemini", type="gemini"))
    for model in ("gemini-1.5-pro", "gemini-2.0-flash", "gemini-2.5-flash-lite", "gemini-3-pro-preview"):
        assert gemini.accepts_images(model), model
    for model in ("gemini-1.0-pro", "gemini-2.5-flash-preview-tts", "gemini-embedding-001"):
        assert not gemini.accepts_images(model), model
