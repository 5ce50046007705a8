"""OpenAI's chat.completions API and the many servers that speak it (Ollama, LM Studio, vLLM,
llama.cpp server, OpenRouter), through the ``openai`` SDK with a ``base_url``.

The SDK is imported on first use: it costs noticeable time at app start-up. The SDK's own retries
are off (``max_retries=0``): ``stream_with_retries`` retries and tells the user it does.
Prompt caching of the stable prefix is automatic on OpenAI, so cache breakpoints are not sent.

Images of tool results go to models that can see them (OpenAI's own vision models, or the models
an agent lists in ``visionModels`` for another server). A ``tool`` message cannot hold images, so
they follow the run of tool messages in one ``user`` message of ``image_url`` parts (data URLs),
each group introduced by the tool call it came from.

Options: ``stream_usage`` (default true) asks for usage in the stream with
``stream_options={"include_usage": true}``; set it false for servers that reject that field.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlparse

from agent_core.errors import ProviderConfigError, ProviderError, ProviderUnavailableError
from agent_core.providers._common import (
    aclosing_iter,
    check_argument_size,
    connection_error,
    dropped_error,
    error_for_status,
    malformed_error,
    not_a_stream_error,
    parse_retry_after,
    parse_tool_arguments,
    timeout_error,
)
from agent_core.providers.base import (
    ChatMessage,
    ChatRequest,
    FinishEvent,
    FinishReason,
    ModelInfo,
    Provider,
    ProviderSettings,
    StreamEvent,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolCallEvent,
    ToolSpec,
    UsageEvent,
)
from agent_core.providers.registry import RegisterProvider
from agent_core.redaction import redact_url

if TYPE_CHECKING:
    import openai

__all__ = ["OpenAICompatibleProvider", "register_providers"]

OPENAI_HOST = "api.openai.com"
DEFAULT_TIMEOUT_SECONDS = 120.0
_FINISH_REASONS: Mapping[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "stop",
}


@dataclass
class _PartialCall:
    id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    size: int = 0


class OpenAICompatibleProvider(Provider):
    """chat.completions over HTTP (types ``openai-compatible`` and ``openai``)."""

    # OpenAI's models that read images in chat.completions (audio, realtime, speech and search
    # variants do not). Other servers' model names say nothing reliable: the agent lists those.
    known_vision_models = (
        "gpt-4o*",
        "chatgpt-4o*",
        "gpt-4-turbo*",
        "gpt-4.1*",
        "gpt-4.5*",
        "gpt-5*",
        "o1",
        "o1-2*",
        "o1-pro*",
        "o3",
        "o3-2*",
        "o3-pro*",
        "o3-deep-research*",
        "o4-mini*",
        "!*audio*",
        "!*realtime*",
        "!*transcribe*",
        "!*tts*",
        "!*search*",
    )

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self._client: openai.AsyncOpenAI | None = None

    @property
    def is_openai(self) -> bool:
        """True when talking to OpenAI itself (no base URL, or api.openai.com)."""
        return not self.settings.base_url or urlparse(self.settings.base_url).hostname == OPENAI_HOST

    def accepts_images(self, model_id: str) -> bool:
        if self.settings.vision_models is None and not self.is_openai:
            return False  # another server: only the models the agent lists in visionModels
        return super().accepts_images(model_id)

    @property
    def label(self) -> str:
        """How messages name this provider."""
        if self.is_openai:
            return "OpenAI"
        return f"{self.settings.provider_id} at {redact_url(self.settings.base_url or '')}"

    def _key_hint(self) -> str:
        if self.is_openai:
            return "OPENAI_API_KEY or the key in Providers"
        return f"the API key of provider {self.settings.provider_id!r} in Providers"

    def client(self) -> openai.AsyncOpenAI:
        """The SDK client, created on first use.

        Raises:
            ProviderConfigError: OpenAI itself needs a key and none is set, or the SDK is missing.
        """
        if self._client is not None:
            return self._client
        sdk = _sdk()
        api_key = self.settings.api_key
        if self.is_openai:
            api_key = api_key or os.environ.get("OPENAI_API_KEY")
            if not api_key:
                raise ProviderConfigError("No API key for OpenAI: set OPENAI_API_KEY or add it in Providers.")
        self._client = sdk.AsyncOpenAI(
            # Local servers (Ollama, llama.cpp) ignore the key, but the SDK insists on one.
            api_key=api_key or "not-needed",
            base_url=self.settings.base_url or None,
            timeout=self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS,
            max_retries=0,
            default_headers=dict(self.settings.headers) or None,
        )
        return self._client

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream text and assembled tool calls.

        Raises:
            ProviderError: the subclass matching the failure (see ``agent_core.errors``).
        """
        import httpx2

        sdk = _sdk()
        client = self.client()
        params = self._request_params(request)
        calls: dict[int, _PartialCall] = {}
        finish: FinishReason | None = None
        usage: TokenUsage | None = None
        called_tools = False
        responded = received = False
        content_type = ""
        try:
            chunks = await client.chat.completions.create(**params)
            responded = True
            content_type = chunks.response.headers.get("content-type", "")
            async with aclosing_iter(_closing(chunks)) as chunk_iter:
                async for chunk in chunk_iter:
                    received = True
                    if chunk.usage is not None:
                        details = chunk.usage.prompt_tokens_details
                        usage = TokenUsage(
                            input_tokens=chunk.usage.prompt_tokens,
                            output_tokens=chunk.usage.completion_tokens,
                            cached_input_tokens=details.cached_tokens if details is not None else None,
                        )
                    if not chunk.choices:
                        continue
                    choice = chunk.choices[0]
                    delta = choice.delta
                    if delta.content:
                        yield TextDelta(delta.content)
                    for fragment in delta.tool_calls or ():
                        partial = calls.setdefault(fragment.index, _PartialCall())
                        partial.id = partial.id or fragment.id
                        if fragment.function is not None:
                            partial.name += fragment.function.name or ""
                            partial.arguments.append(fragment.function.arguments or "")
                            partial.size += len(fragment.function.arguments or "")
                            check_argument_size(self.label, partial.size)
                    if choice.finish_reason is not None:
                        finish = _FINISH_REASONS.get(choice.finish_reason, "stop")
                        for call in _complete_calls(calls):
                            called_tools = True
                            yield ToolCallEvent(call)
                        calls.clear()
        except sdk.APIError as error:
            if responded and type(error) is sdk.APIConnectionError:
                # The SDK wraps a body that ends early as a connection error.
                raise dropped_error(self.label) from error
            raise self._map_error(error, request.settings.model) from error
        except httpx2.TimeoutException as error:
            raise timeout_error(
                self.label, self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
            ) from error
        except httpx2.TransportError as error:
            raise dropped_error(self.label) from error
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise malformed_error(self.label, error) from error
        if finish is None:
            if responded and not received and "event-stream" not in content_type:
                raise not_a_stream_error(self.label, content_type)
            # The body ended without a finish reason: the connection closed early.
            raise dropped_error(self.label)
        if usage is not None:
            yield UsageEvent(usage)
        # Some servers say "stop" after tool calls; the engine needs to know tools were called.
        yield FinishEvent("tool_calls" if called_tools else finish)

    async def list_models(self) -> list[ModelInfo]:
        """Models from ``GET /models``.

        Raises:
            ProviderError: the server cannot be reached or refuses the request.
        """
        import httpx2

        sdk = _sdk()
        try:
            return [ModelInfo(id=model.id, name=model.id) async for model in self.client().models.list()]
        except sdk.APIError as error:
            raise self._map_error(error, "") from error
        except httpx2.HTTPError as error:
            raise connection_error(self.label, str(error) or type(error).__name__) from error

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _request_params(self, request: ChatRequest) -> dict[str, Any]:
        settings = request.settings
        params: dict[str, Any] = {
            "model": settings.model,
            "messages": to_openai_messages(
                request.messages,
                image_types=self.image_types if self.accepts_images(settings.model) else frozenset(),
            ),
            "stream": True,
            "temperature": settings.temperature,
            "top_p": settings.top_p,
        }
        # OpenAI's newer models only take max_completion_tokens; other servers mostly know max_tokens.
        params["max_completion_tokens" if self.is_openai else "max_tokens"] = settings.max_output_tokens
        if self.settings.options.get("stream_usage", True):
            params["stream_options"] = {"include_usage": True}
        if request.tools:
            params["tools"] = to_openai_tools(request.tools)
        return params

    def _map_error(self, error: openai.APIError, model: str) -> ProviderError:
        sdk = _sdk()
        if isinstance(error, sdk.APITimeoutError):
            return timeout_error(self.label, self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS)
        if isinstance(error, sdk.APIConnectionError):
            return connection_error(self.label, str(error.__cause__ or error))
        if isinstance(error, sdk.APIStatusError):
            headers = dict(error.response.headers)
            return error_for_status(
                error.status_code,
                label=self.label,
                detail=_error_detail(error.body, error.message),
                model=model,
                key_hint=self._key_hint(),
                retry_after=parse_retry_after(headers),
            )
        # An error event inside an otherwise successful stream.
        return ProviderUnavailableError(
            f"{self.label} reported an error while streaming: {_error_detail(error.body, error.message)}. "
            "Try again."
        )


def _sdk() -> Any:
    """The ``openai`` module, imported on first use (typed as Any: only this module touches it)."""
    try:
        import openai
    except ImportError as error:
        raise ProviderConfigError(
            "The 'openai' package is not installed: run `python3 dev.py run` to install the providers."
        ) from error
    return openai


async def _closing(chunks: Any) -> AsyncIterator[Any]:
    """Iterate an SDK stream and close its HTTP response however the iteration ends."""
    try:
        async for chunk in chunks:
            yield chunk
    finally:
        await chunks.close()


def _complete_calls(calls: Mapping[int, _PartialCall]) -> list[ToolCall]:
    return [
        ToolCall(
            id=partial.id or f"call_{uuid.uuid4().hex[:24]}",
            name=partial.name,
            arguments=parse_tool_arguments("".join(partial.arguments)),
        )
        for _, partial in sorted(calls.items())
    ]


def _error_detail(body: object, fallback: str) -> str:
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return cast(str, inner["message"])
        if isinstance(inner, str):
            return inner
    return fallback


def to_openai_messages(
    messages: Sequence[ChatMessage], *, image_types: frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """Our messages as chat.completions messages; tool results' images of ``image_types`` (none by
    default: the model cannot see) in a ``user`` message after each run of tool messages."""
    result: list[dict[str, Any]] = []
    images: list[dict[str, Any]] = []  # of the tool messages since the last other message
    for message in messages:
        if message.role != "tool" and images:
            result.append({"role": "user", "content": images})
            images = []
        if message.role == "tool":
            result.append(
                {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
            )
            images += _image_parts(message, image_types)
        elif message.role == "assistant" and message.tool_calls:
            result.append(
                {
                    "role": "assistant",
                    "content": message.content or None,
                    "tool_calls": [
                        {
                            "id": call.id,
                            "type": "function",
                            "function": {"name": call.name, "arguments": _json(call.arguments)},
                        }
                        for call in message.tool_calls
                    ],
                }
            )
        else:
            result.append({"role": message.role, "content": message.content})
    if images:
        result.append({"role": "user", "content": images})
    return result


def _image_parts(message: ChatMessage, image_types: frozenset[str]) -> list[dict[str, Any]]:
    """The images of one tool result as content parts, introduced by the call they came from."""
    images = [image for image in message.images if image.mime_type in image_types]
    if not images:
        return []
    intro = (
        f"The images of the result of {message.tool_name or 'a tool'} (call {message.tool_call_id or ''}):"
    )
    return [{"type": "text", "text": intro}] + [
        {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"}}
        for image in images
    ]


def to_openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.input_schema),
            },
        }
        for tool in tools
    ]


def _json(arguments: Mapping[str, Any]) -> str:
    return json.dumps(dict(arguments), ensure_ascii=False)


def register_providers(register: RegisterProvider) -> None:
    register("openai-compatible", OpenAICompatibleProvider)
    register("openai", OpenAICompatibleProvider)
