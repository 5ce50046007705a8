"""Anthropic's Messages API through the ``anthropic`` SDK (imported on first use: it is slow to import).

Anthropic wants the system prompt apart from the messages, tool results as ``tool_result`` blocks in a
user message, and no two consecutive messages with the same role, so consecutive same-role messages are
merged. Prompt caching: ``cache_control: {"type": "ephemeral"}`` marks the end of the system prompt and
the last block of the message with ``cache_breakpoint=True``. ``temperature`` and ``top_p`` are not
sent: the Messages API of the SDK we use (anthropic 2.x) no longer takes sampling parameters.

Usage: ``input_tokens`` counts all input tokens, cached or not (Anthropic's ``input_tokens`` plus
``cache_read_input_tokens`` and ``cache_creation_input_tokens``); ``cached_input_tokens`` is the cache read.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.errors import ProviderConfigError, ProviderError
from agent_core.providers._common import (
    aclosing_iter,
    check_argument_size,
    connection_error,
    dropped_error,
    error_for_status,
    malformed_error,
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

__all__ = ["AnthropicProvider", "register_providers", "to_anthropic_messages", "to_anthropic_tools"]

DEFAULT_TIMEOUT_SECONDS = 120.0
EPHEMERAL: Mapping[str, str] = {"type": "ephemeral"}
_STOP_REASONS: Mapping[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
}
# Errors sent inside a stream carry a type, not an HTTP status.
_ERROR_TYPE_STATUS: Mapping[str, int] = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


# The image types the Messages API reads.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})


@dataclass
class _PartialToolUse:
    id: str
    name: str
    json_parts: list[str] = field(default_factory=list)
    size: int = 0


class AnthropicProvider(Provider):
    """Claude models (type ``anthropic``)."""

    label = "Anthropic"
    known_vision_models = ("*",)
    image_types = IMAGE_TYPES  # every current Claude model reads images, in tool results too

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self._client: Any = None

    def client(self) -> Any:
        """The SDK's ``AsyncAnthropic`` client, created on first use.

        Raises:
            ProviderConfigError: no API key is set, or the SDK is missing.
        """
        if self._client is not None:
            return self._client
        sdk = _sdk()
        api_key = self.settings.api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not api_key:
            raise ProviderConfigError(
                "No API key for Anthropic: set ANTHROPIC_API_KEY or add it in Providers."
            )
        self._client = sdk.AsyncAnthropic(
            api_key=api_key,
            base_url=self.settings.base_url or None,
            timeout=self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS,
            max_retries=0,
            default_headers=dict(self.settings.headers) or None,
        )
        return self._client

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream text and complete tool calls.

        Raises:
            ProviderError: the subclass matching the failure (see ``agent_core.errors``).
        """
        import httpx2

        sdk = _sdk()
        client = self.client()
        params = request_params(
            request,
            image_types=self.image_types if self.accepts_images(request.settings.model) else frozenset(),
        )
        tool_uses: dict[int, _PartialToolUse] = {}
        input_tokens = cache_read = cache_write = output_tokens = 0
        finish: FinishReason | None = None
        stopped = False
        try:
            events = await client.messages.create(**params)
            async with aclosing_iter(_closing(events)) as event_iter:
                async for event in event_iter:
                    kind = event.type
                    if kind == "message_start":
                        usage = event.message.usage
                        input_tokens = usage.input_tokens or 0
                        cache_read = usage.cache_read_input_tokens or 0
                        cache_write = usage.cache_creation_input_tokens or 0
                    elif kind == "content_block_start":
                        block = event.content_block
                        if block.type == "tool_use":
                            tool_uses[event.index] = _PartialToolUse(id=block.id, name=block.name)
                    elif kind == "content_block_delta":
                        delta = event.delta
                        if delta.type == "text_delta" and delta.text:
                            yield TextDelta(delta.text)
                        elif delta.type == "input_json_delta" and event.index in tool_uses:
                            partial_use = tool_uses[event.index]
                            partial_use.json_parts.append(delta.partial_json)
                            partial_use.size += len(delta.partial_json)
                            check_argument_size(self.label, partial_use.size)
                    elif kind == "content_block_stop" and event.index in tool_uses:
                        partial = tool_uses.pop(event.index)
                        arguments = parse_tool_arguments("".join(partial.json_parts))
                        yield ToolCallEvent(ToolCall(id=partial.id, name=partial.name, arguments=arguments))
                    elif kind == "message_delta":
                        if event.delta.stop_reason is not None:
                            finish = _STOP_REASONS.get(event.delta.stop_reason, "stop")
                        if event.usage is not None and event.usage.output_tokens is not None:
                            output_tokens = event.usage.output_tokens
                    elif kind == "message_stop":
                        stopped = True
        except sdk.APIError as error:
            raise self._map_error(error, request.settings.model) from error
        except httpx2.TimeoutException as error:
            raise timeout_error(
                self.label, self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
            ) from error
        except httpx2.TransportError as error:
            raise dropped_error(self.label) from error
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise malformed_error(self.label, error) from error
        if not stopped:
            raise dropped_error(self.label)
        yield UsageEvent(
            TokenUsage(
                input_tokens=input_tokens + cache_read + cache_write,
                output_tokens=output_tokens,
                cached_input_tokens=cache_read,
            )
        )
        yield FinishEvent(finish or "stop")

    async def list_models(self) -> list[ModelInfo]:
        """Models from ``GET /v1/models``.

        Raises:
            ProviderError: the API cannot be reached or refuses the request.
        """
        import httpx2

        sdk = _sdk()
        try:
            return [
                ModelInfo(id=model.id, name=getattr(model, "display_name", "") or model.id)
                async for model in self.client().models.list()
            ]
        except sdk.APIError as error:
            raise self._map_error(error, "") from error
        except httpx2.HTTPError as error:
            raise connection_error(self.label, str(error) or type(error).__name__) from error

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.close()
            self._client = None

    def _map_error(self, error: Any, model: str) -> ProviderError:
        sdk = _sdk()
        if isinstance(error, sdk.APITimeoutError):
            return timeout_error(self.label, self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS)
        if isinstance(error, sdk.APIConnectionError):
            return connection_error(self.label, str(error.__cause__ or error))
        error_type, detail = _error_body(getattr(error, "body", None), str(getattr(error, "message", error)))
        status = getattr(error, "status_code", None)
        headers: dict[str, str] = {}
        response = getattr(error, "response", None)
        if response is not None:
            headers = dict(response.headers)
        if not isinstance(status, int) or status < 400:  # an error event inside a 200 stream
            status = _ERROR_TYPE_STATUS.get(error_type, 500)
        return error_for_status(
            status,
            label=self.label,
            detail=detail,
            model=model,
            key_hint="ANTHROPIC_API_KEY or the key in Providers",
            retry_after=parse_retry_after(headers),
        )


def _sdk() -> Any:
    try:
        import anthropic
    except ImportError as error:
        raise ProviderConfigError(
            "The 'anthropic' package is not installed: run `python3 dev.py run` to install the providers."
        ) from error
    return anthropic


async def _closing(events: Any) -> AsyncIterator[Any]:
    try:
        async for event in events:
            yield event
    finally:
        await events.close()


def _error_body(body: object, fallback: str) -> tuple[str, str]:
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            return str(inner.get("type", "")), str(inner.get("message", fallback))
    return "", fallback


def request_params(request: ChatRequest, *, image_types: frozenset[str] = IMAGE_TYPES) -> dict[str, Any]:
    """The keyword arguments of ``messages.create`` for ``request`` (streaming); tool results'
    images of ``image_types`` only."""
    system, messages = to_anthropic_messages(request.messages, image_types=image_types)
    params: dict[str, Any] = {
        "model": request.settings.model,
        "max_tokens": request.settings.max_output_tokens,
        "messages": messages,
        "stream": True,
    }
    if system:
        params["system"] = system
    if request.tools:
        params["tools"] = to_anthropic_tools(request.tools)
    return params


def to_anthropic_messages(
    messages: Sequence[ChatMessage], *, image_types: frozenset[str] = IMAGE_TYPES
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Our messages as (system blocks, messages), same-role neighbours merged, cache points marked."""
    system: list[dict[str, Any]] = []
    result: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "system":
            if message.content:
                system.append({"type": "text", "text": message.content})
            continue
        blocks = _blocks(message, image_types)
        if not blocks:
            continue
        if message.cache_breakpoint:
            blocks[-1]["cache_control"] = dict(EPHEMERAL)
        role = "assistant" if message.role == "assistant" else "user"
        if result and result[-1]["role"] == role:
            result[-1]["content"].extend(blocks)
        else:
            result.append({"role": role, "content": blocks})
    if system:
        system[-1]["cache_control"] = dict(EPHEMERAL)
    return system, result


def _blocks(message: ChatMessage, image_types: frozenset[str]) -> list[dict[str, Any]]:
    if message.role == "tool":
        content: str | list[dict[str, Any]] = message.content
        images = [image for image in message.images if image.mime_type in image_types]
        if images:
            content = [{"type": "text", "text": message.content or "(images)"}] + [
                {"type": "image", "source": {"type": "base64", "media_type": i.mime_type, "data": i.data}}
                for i in images
            ]
        block: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.tool_call_id or "",
            "content": content,
        }
        if message.is_error:
            block["is_error"] = True
        return [block]
    blocks: list[dict[str, Any]] = []
    if message.content.strip():  # the API rejects empty text blocks
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": dict(call.arguments)})
    return blocks


def to_anthropic_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {"name": tool.name, "description": tool.description, "input_schema": dict(tool.input_schema)}
        for tool in tools
    ]


def register_providers(register: RegisterProvider) -> None:
    register("anthropic", AnthropicProvider)
