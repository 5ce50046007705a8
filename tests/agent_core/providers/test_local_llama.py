from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from agent_core.errors import ProviderConfigError, ProviderRequestError
from agent_core.providers._llama_prompt import PROMPT_STEP_TOKENS
from agent_core.providers._local_tool_calls import parse_arguments, required_arguments_schema
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    GenerationSettings,
    PromptProgressEvent,
    ProviderSettings,
    StreamEvent,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolSpec,
    UsageEvent,
)
from agent_core.providers.local_llama import DEFAULT_MODEL_ID, LocalLlamaProvider
from tests.support.models import offline_model_file, runnable_offline_model

SETTINGS = ProviderSettings(provider_id="offline", type="local", threads=2, context_size=2048)


def ask(text: str, max_tokens: int) -> ChatRequest:
    return ChatRequest(
        messages=[ChatMessage("system", "You are terse."), ChatMessage("user", text)],
        settings=GenerationSettings(model=DEFAULT_MODEL_ID, max_output_tokens=max_tokens, temperature=0.0),
    )


@pytest.fixture(scope="session")
def local_provider() -> Iterator[LocalLlamaProvider]:
    runnable_offline_model()
    provider = LocalLlamaProvider(SETTINGS)
    provider.load_model(DEFAULT_MODEL_ID)
    yield provider
    asyncio.run(provider.aclose())


def test_the_default_model_id_means_the_bundled_smollm2_file() -> None:
    found = offline_model_file()
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


TOOL_TURN = [
    ChatMessage("user", "What is in notes.md?"),
    ChatMessage("assistant", "", tool_calls=(ToolCall("c1", "workspace__read_file", {"path": "notes.md"}),)),
    ChatMessage("tool", "Buy milk.", tool_call_id="c1", tool_name="workspace__read_file"),
]


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_model_set_to_answer_after_a_tool_gets_the_tool_traffic_as_text() -> None:
    offline_model_file()
    provider = LocalLlamaProvider(replace(SETTINGS, options={"afterTool": "answer"}))
    try:
        completion = await provider.complete(ChatRequest(messages=TOOL_TURN, settings=ask("", 8).settings))
    finally:
        await provider.aclose()
    assert completion.tool_calls == ()
    assert completion.finish_reason in ("stop", "length")
    assert completion.usage.output_tokens  # the model wrote it


@pytest.mark.anyio
async def test_the_bundled_model_shows_a_tool_result_as_returned_instead_of_restating_it() -> None:
    offline_model_file()
    provider = LocalLlamaProvider(SETTINGS)  # nothing is loaded for this
    failed = ChatMessage(
        "tool", "No such file.", tool_call_id="c2", tool_name="workspace__read_file", is_error=True
    )
    completion = await provider.complete(
        ChatRequest(messages=[*TOOL_TURN, failed], settings=ask("", 8).settings)
    )
    assert completion.text == (
        "`workspace.read_file` returned:\n\n```text\nBuy milk.\n```\n\n"
        "`workspace.read_file` failed:\n\n```text\nNo such file.\n```"
    )
    assert completion.finish_reason == "stop"
    assert completion.usage == TokenUsage(without_model=True)  # no tokens, rather than a made-up 0 in, 0 out
    assert provider._llama is None  # the model was not even loaded


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_routed_call_gets_only_its_required_arguments_from_the_model(
    local_provider: LocalLlamaProvider,
) -> None:
    read_file = ToolSpec(
        "workspace__read_file",
        "Read a text file of the workspace folder.",
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "max_bytes": {"type": "integer", "default": 1000}},
            "required": ["path"],
        },
    )
    request = ChatRequest(
        messages=[ChatMessage("system", "You are terse."), ChatMessage("user", "read notes.md")],
        settings=ask("", 64).settings,
        tools=[read_file],
        call_tool="workspace__read_file",
    )
    completion = await local_provider.complete(request)
    assert completion.finish_reason == "tool_calls" and completion.text == ""
    [call] = completion.tool_calls
    assert call.name == "workspace__read_file" and call.id.startswith("call_")
    assert list(call.arguments) == ["path"] and isinstance(call.arguments["path"], str)
    assert completion.usage.input_tokens and completion.usage.output_tokens  # the model wrote them
    assert not completion.usage.without_model


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_routed_call_without_arguments_reports_that_no_model_ran(
    local_provider: LocalLlamaProvider,
) -> None:
    list_files = ToolSpec("workspace__list_files", "List files.", {"type": "object", "properties": {}})
    request = ChatRequest(
        messages=[ChatMessage("user", "list my files")],
        settings=ask("", 64).settings,
        tools=[list_files],
        call_tool="workspace__list_files",
    )
    completion = await local_provider.complete(request)
    assert [call.name for call in completion.tool_calls] == ["workspace__list_files"]
    assert completion.usage == TokenUsage(without_model=True)


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
    offline_model_file()
    provider = LocalLlamaProvider(ProviderSettings(provider_id="x", type="local"))
    assert provider.count_tokens("Hello world") == 2
    asyncio.run(provider.aclose())


@pytest.mark.parametrize(
    ("reply", "problem"),
    [('{"path": "notes', "did not finish the arguments"), ('["notes.md"]', "not a JSON object")],
)
def test_arguments_cut_short_or_of_the_wrong_shape_fail_the_reply_with_what_to_do(
    reply: str, problem: str
) -> None:
    schema = required_arguments_schema({"properties": {"path": {"type": "string"}}, "required": ["path"]})
    with pytest.raises(ProviderRequestError, match=problem) as raised:
        parse_arguments(reply, schema)
    assert "ask again" in str(raised.value)


def test_only_the_required_arguments_are_asked_for_and_kept() -> None:
    schema = required_arguments_schema(
        {
            "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["path", "gone"],
        }
    )
    assert schema == {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
        "additionalProperties": False,
    }
    assert parse_arguments('{"path": "a.md", "limit": 3}', schema) == {"path": "a.md"}


# About 700 tokens: three steps of reading, a few seconds on two cores.
LONG_PROMPT = " ".join(
    f"Note {number}: the launch moved to day {number} of the month." for number in range(50)
)


def long_request(question: str, *, history: tuple[ChatMessage, ...] = ()) -> ChatRequest:
    return ChatRequest(
        messages=[ChatMessage("system", LONG_PROMPT), *history, ChatMessage("user", question)],
        settings=GenerationSettings(model=DEFAULT_MODEL_ID, max_output_tokens=4, temperature=0.0),
    )


@pytest.fixture
def fresh_provider() -> Iterator[LocalLlamaProvider]:
    """A provider of its own: nothing from another test's prompt is cached in it."""
    runnable_offline_model()
    provider = LocalLlamaProvider(SETTINGS)
    provider.load_model(DEFAULT_MODEL_ID)
    yield provider
    asyncio.run(provider.aclose())


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_long_prompt_reports_its_progress_then_only_the_new_tokens_of_the_next_one(
    fresh_provider: LocalLlamaProvider, monkeypatch: pytest.MonkeyPatch
) -> None:
    llama = fresh_provider._llama
    assert llama is not None
    evaluated: list[int] = []  # the length of every batch the model evaluates
    read = llama.eval

    def counted(tokens: Sequence[int]) -> None:
        evaluated.append(len(tokens))
        read(tokens)

    monkeypatch.setattr(llama, "eval", counted)

    events = [event async for event in fresh_provider.stream(long_request("When is the launch?"))]
    progress = [event for event in events if isinstance(event, PromptProgressEvent)]
    first_text = next(i for i, event in enumerate(events) if isinstance(event, TextDelta))
    assert all(events.index(event) < first_text for event in progress)  # all before the first words
    total = progress[0].total
    assert total > 2 * PROMPT_STEP_TOKENS and progress[0].done == 0 and progress[0].cached == 0
    assert [event.done for event in progress] == sorted(event.done for event in progress)
    assert progress[-1].done == total and len(progress) == 1 + -(-total // PROMPT_STEP_TOKENS)
    # The completion found the whole prompt read: it evaluated only the tokens it wrote.
    assert max(evaluated[len(progress) - 1 :], default=0) <= 1
    usage = next(event.usage for event in events if isinstance(event, UsageEvent))
    assert usage.input_tokens == total and usage.cached_input_tokens == 0

    answer = "".join(event.text for event in events if isinstance(event, TextDelta))
    history = (ChatMessage("user", "When is the launch?"), ChatMessage("assistant", answer))
    again = [
        event async for event in fresh_provider.stream(long_request("And the next one?", history=history))
    ]
    progress = [event for event in again if isinstance(event, PromptProgressEvent)]
    assert progress[0].cached >= total and progress[0].total < 40  # the shared start is not read again
    usage = next(event.usage for event in again if isinstance(event, UsageEvent))
    assert usage.cached_input_tokens == progress[0].cached


@pytest.mark.slow
@pytest.mark.anyio
async def test_stopping_while_the_prompt_is_read_ends_at_once_and_frees_the_model_within_a_step(
    fresh_provider: LocalLlamaProvider,
) -> None:
    reading = asyncio.Event()
    seen: list[StreamEvent] = []

    async def consume() -> None:
        async for event in fresh_provider.stream(long_request("When is the launch?")):
            seen.append(event)
            if isinstance(event, PromptProgressEvent):
                reading.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(reading.wait(), timeout=30)
    stopped_at = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - stopped_at < 0.5  # the caller (the GUI's reply) does not wait
    assert await asyncio.to_thread(fresh_provider.wait_until_idle, 30.0)
    assert not any(isinstance(event, TextDelta) for event in seen)
    first = next(event for event in seen if isinstance(event, PromptProgressEvent))
    llama = fresh_provider._llama
    assert llama is not None and llama.n_tokens < first.total  # stopped before the end of the prompt
    again = await fresh_provider.complete(ask("Say yes.", 4))
    assert again.usage.output_tokens is not None and again.usage.output_tokens <= 4


def test_the_local_model_never_takes_images_whatever_the_agent_lists() -> None:
    # Its prompt is text rendered with the model's chat template: an image has no place in it.
    settings = ProviderSettings(provider_id="offline", type="local", vision_models=("*",))
    assert not LocalLlamaProvider(settings).accepts_images("llava-v1.6")


CLOSE_WHILE_COUNTING = r"""
import asyncio, sys, threading
from agent_core.providers.base import ProviderSettings
from agent_core.providers.local_llama import LocalLlamaProvider

provider = LocalLlamaProvider(ProviderSettings(provider_id="x", type="local"))
text = "Counting tokens of a long message while the app quits. " * 4000
counted = threading.Event()

def count() -> None:
    for _ in range(20):
        provider.count_tokens(text)
        counted.set()

worker = threading.Thread(target=count)
worker.start()
counted.wait(60)
for _ in range(20):  # the app quitting (aclose) while another thread is still counting
    asyncio.run(provider.aclose())
worker.join(120)
asyncio.run(provider.aclose())
print("closed cleanly")
"""


@pytest.mark.slow
def test_closing_the_provider_while_another_thread_counts_tokens_does_not_crash() -> None:
    """The desktop counts tokens on a worker thread; quitting just after a chat opened freed the
    tokenizer under that count, and llama.cpp aborted the process."""
    offline_model_file()
    result = subprocess.run(
        [sys.executable, "-c", CLOSE_WHILE_COUNTING], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.returncode == 0 and "closed cleanly" in result.stdout, result.stderr[-2000:]
