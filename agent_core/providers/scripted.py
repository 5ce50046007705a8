"""A deterministic provider for tests, demos and reproducible bug reports.

Queue replies, tool calls and errors; each ``stream()`` call plays the next step and records the
request it received. A step can hold on a gate (anything with ``async wait()``, e.g. an
``asyncio.Event``) so a test can cancel mid-stream without sleeping, and report how far the
prompt is read (a ``PromptProgressEvent`` among its chunks), as a local model does.

Script files (JSON or YAML) for the CLI, given as ``options: {script: path}``::

    steps:
      - reply: "Hello there"
        chunks: ["Hello", " there"]      # optional; default: split after each word
      - tool_calls:
          - {name: read_file, arguments: {path: notes.md}, id: call_1}
      - error: {kind: rate_limit, message: "Slow down", retry_after: 2}
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_core.errors import (
    ProviderAuthError,
    ProviderConfigError,
    ProviderError,
    ProviderRateLimitError,
    ProviderRequestError,
    ProviderUnavailableError,
)
from agent_core.providers.base import (
    ChatRequest,
    FinishEvent,
    ModelInfo,
    PromptProgressEvent,
    Provider,
    ProviderSettings,
    StreamEvent,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolCallEvent,
    ToolCalling,
    UsageEvent,
)
from agent_core.providers.registry import RegisterProvider

__all__ = ["Gate", "ScriptedProvider", "load_script", "register_providers"]

SCRIPTED_MODEL_ID = "scripted"


class Gate(Protocol):
    """Something a step waits on before going on, e.g. ``asyncio.Event``."""

    async def wait(self) -> Any: ...


Chunk = str | Gate | PromptProgressEvent


@dataclass
class _ReplyStep:
    chunks: Sequence[Chunk]
    usage: TokenUsage | None


@dataclass
class _ToolCallStep:
    calls: list[ToolCall]
    text_chunks: Sequence[Chunk] = ()
    gate: Gate | None = None
    usage: TokenUsage | None = None


@dataclass
class _ErrorStep:
    error: ProviderError
    chunks_before: Sequence[Chunk] = field(default_factory=tuple)


_Step = _ReplyStep | _ToolCallStep | _ErrorStep


class ScriptedProvider(Provider):
    """Plays queued steps in order, one per ``stream()`` call; ``requests`` records every request."""

    internal = True

    def __init__(self, settings: ProviderSettings | None = None) -> None:
        super().__init__(settings or ProviderSettings(provider_id="scripted", type="scripted"))
        self.requests: list[ChatRequest] = []
        self._steps: deque[_Step] = deque()
        self._next_call_number = 1
        script = self.settings.options.get("script")
        if script is not None:
            load_script(self, Path(str(script)))

    # -- queueing ---------------------------------------------------------------------------------

    def enqueue_reply(
        self, text: str = "", *, chunks: Sequence[Chunk] | None = None, usage: TokenUsage | None = None
    ) -> None:
        """Queue a text reply, streamed as ``chunks`` (strings, gates and prompt progress) or word
        by word from ``text``."""
        if chunks is None:
            chunks = _split_words(text)
        self._steps.append(_ReplyStep(chunks=list(chunks), usage=usage))

    def enqueue_tool_call(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        id: str | None = None,
        *,
        text: str = "",
        gate: Gate | None = None,
    ) -> None:
        """Queue a step that calls one tool (``enqueue_tool_calls`` for several in one step).

        ``text`` is streamed before the call; ``gate`` is awaited just before the call is yielded."""
        self.enqueue_tool_calls([(name, arguments or {}, id)], text=text, gate=gate)

    def enqueue_tool_calls(
        self,
        calls: Sequence[tuple[str, Mapping[str, Any], str | None]],
        *,
        text: str = "",
        gate: Gate | None = None,
    ) -> None:
        """Queue one step calling several tools: ``(name, arguments, id or None)`` each."""
        made = [
            ToolCall(id=call_id or self._new_call_id(), name=name, arguments=dict(args))
            for name, args, call_id in calls
        ]
        self._steps.append(_ToolCallStep(calls=made, text_chunks=_split_words(text), gate=gate))

    def enqueue_error(self, error: ProviderError, *, chunks_before: Sequence[Chunk] = ()) -> None:
        """Queue a step that raises ``error``, after streaming ``chunks_before`` (an error mid-reply)."""
        self._steps.append(_ErrorStep(error=error, chunks_before=list(chunks_before)))

    @property
    def pending_steps(self) -> int:
        """How many queued steps have not been played yet."""
        return len(self._steps)

    def assert_all_used(self) -> None:
        """Raises:
        AssertionError: some queued steps were never played (the code under test asked less than
            the script expected)."""
        if self._steps:
            raise AssertionError(
                f"ScriptedProvider: {len(self._steps)} queued step(s) never used "
                f"(after {len(self.requests)} request(s)): {list(self._steps)!r}"
            )

    # -- Provider -----------------------------------------------------------------------------------

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Play the next queued step.

        Raises:
            ProviderConfigError: no step is left in the script.
            ProviderError: the queued error.
        """
        self.requests.append(request)
        if not self._steps:
            raise ProviderConfigError(
                f"The scripted provider has no step left for request #{len(self.requests)}: "
                "queue more replies or tool calls, or add steps to the script file."
            )
        step = self._steps.popleft()
        produced: list[str] = []
        if isinstance(step, _ErrorStep):
            async for delta in _play(step.chunks_before, produced):
                yield delta
            raise step.error
        if isinstance(step, _ReplyStep):
            async for delta in _play(step.chunks, produced):
                yield delta
            yield UsageEvent(step.usage or self._usage(request, "".join(produced)))
            yield FinishEvent("stop")
            return
        async for delta in _play(step.text_chunks, produced):
            yield delta
        if step.gate is not None:
            await step.gate.wait()
        for call in step.calls:
            yield ToolCallEvent(call)
        arguments_text = "".join(json.dumps(dict(call.arguments)) for call in step.calls)
        yield UsageEvent(step.usage or self._usage(request, "".join(produced) + arguments_text))
        yield FinishEvent("tool_calls")

    async def list_models(self) -> list[ModelInfo]:
        return [ModelInfo(id=SCRIPTED_MODEL_ID, name="Scripted replies")]

    def tool_calling(self, model_id: str) -> ToolCalling:
        """``native``, or what ``options: {toolCalling: ...}`` says (a stand-in for a small model)."""
        calling = str(self.settings.options.get("toolCalling", "native"))
        return "routed" if calling == "routed" else "none" if calling == "none" else "native"

    def count_tokens(self, text: str) -> int | None:
        """Whitespace-separated words: deterministic and good enough for tests."""
        return len(text.split())

    def _usage(self, request: ChatRequest, output: str) -> TokenUsage:
        prompt = " ".join(message.content for message in request.messages)
        return TokenUsage(
            input_tokens=len(prompt.split()), output_tokens=len(output.split()), cached_input_tokens=0
        )

    def _new_call_id(self) -> str:
        call_id = f"call_{self._next_call_number}"
        self._next_call_number += 1
        return call_id


async def _play(
    chunks: Sequence[Chunk], produced: list[str]
) -> AsyncIterator[TextDelta | PromptProgressEvent]:
    for chunk in chunks:
        if isinstance(chunk, str):
            if chunk:
                produced.append(chunk)
                yield TextDelta(chunk)
        elif isinstance(chunk, PromptProgressEvent):
            yield chunk
        else:
            await chunk.wait()


def _split_words(text: str) -> list[str]:
    """``"a b c"`` → ``["a", " b", " c"]``: deltas that join back to the exact text."""
    if not text:
        return []
    parts: list[str] = []
    current = ""
    for char in text:
        if char.isspace() and current and not current.isspace():
            parts.append(current)
            current = ""
        current += char
    parts.append(current)
    return parts


# -- script files ------------------------------------------------------------------------------------


class _ScriptToolCall(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class _ScriptError(BaseModel):
    model_config = ConfigDict(extra="forbid")
    kind: Literal["config", "auth", "rate_limit", "unavailable", "request"]
    message: str
    retry_after: float | None = None


class _ScriptStep(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reply: str | None = None
    chunks: list[str] | None = None
    tool_calls: list[_ScriptToolCall] | None = None
    error: _ScriptError | None = None


class _Script(BaseModel):
    model_config = ConfigDict(extra="forbid")
    steps: list[_ScriptStep]


_ERROR_KINDS: dict[str, type[ProviderError]] = {
    "config": ProviderConfigError,
    "auth": ProviderAuthError,
    "rate_limit": ProviderRateLimitError,
    "unavailable": ProviderUnavailableError,
    "request": ProviderRequestError,
}


def load_script(provider: ScriptedProvider, path: Path) -> None:
    """Queue the steps of a JSON or YAML script file on ``provider``.

    Raises:
        ProviderConfigError: the file cannot be read or is not a valid script.
    """
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
        script = _Script.model_validate(data)
    except OSError as error:
        raise ProviderConfigError(
            f"Cannot read the provider script {path}: {error.strerror}. Check the 'script' option."
        ) from error
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in item['loc'])}: {item['msg']}" for item in error.errors()
        )
        raise ProviderConfigError(
            f"The provider script {path} is not valid ({problems}). See agent_core/providers/scripted.py "
            "for the format."
        ) from error
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise ProviderConfigError(
            f"The provider script {path} is not valid JSON or YAML ({error}). Fix the syntax."
        ) from error
    for number, step in enumerate(script.steps, start=1):
        has_output = step.reply is not None or step.tool_calls is not None
        if has_output == (step.error is not None):
            raise ProviderConfigError(
                f"Step {number} of the provider script {path} must have either 'reply' and/or "
                "'tool_calls', or 'error'."
            )
        if step.error is not None:
            error_type = _ERROR_KINDS[step.error.kind]
            provider.enqueue_error(error_type(step.error.message, retry_after=step.error.retry_after))
        elif step.tool_calls is not None:
            provider.enqueue_tool_calls(
                [(call.name, call.arguments, call.id) for call in step.tool_calls], text=step.reply or ""
            )
        else:
            provider.enqueue_reply(step.reply or "", chunks=step.chunks)


def register_providers(register: RegisterProvider) -> None:
    register("scripted", ScriptedProvider)
