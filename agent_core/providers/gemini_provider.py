"""Google's Gemini API through the ``google-genai`` SDK (imported on first use).

Function declarations, calls and responses map to our tools. Gemini may return function calls
without ids; we make ids up and remember which ones came from the API so only those are sent back.
Gemini 3 models sign their function calls (``thought_signature``) and require the signature back with
the call: it is kept in memory per provider, so a chat continued after a restart sends calls unsigned.
Gemini caches prompt prefixes implicitly, so cache breakpoints are not sent.
Images of tool results go to models that can see them (Gemini 1.5 and later) as ``inline_data``
parts after the turn's function responses, each group introduced by the call it came from: every
such model reads them there, while images inside a function response only Gemini 3 reads.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import pydantic

from agent_core.errors import ProviderConfigError, ProviderError
from agent_core.providers._common import (
    connection_error,
    dropped_error,
    error_for_status,
    malformed_error,
    parse_retry_after,
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

__all__ = ["GeminiProvider", "register_providers"]

DEFAULT_TIMEOUT_SECONDS = 120.0
_FINISH_REASONS: Mapping[str, FinishReason] = {"STOP": "stop", "MAX_TOKENS": "length"}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)s$")


class GeminiProvider(Provider):
    """Gemini models (type ``gemini``)."""

    label = "Gemini"
    known_vision_models = (
        "gemini-1.5*",
        "gemini-2*",
        "gemini-3*",
        "gemini-*-latest",
        "!*tts*",
        "!*embedding*",
    )
    image_types = frozenset({"image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"})

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self._client: Any = None
        # Call id -> (whether Gemini gave the id, the call's thought signature).
        self._calls: dict[str, tuple[bool, bytes | None]] = {}

    def client(self) -> Any:
        """The SDK's ``genai.Client``, created on first use.

        Raises:
            ProviderConfigError: no API key is set, or the SDK is missing.
        """
        if self._client is not None:
            return self._client
        genai, types = _sdk()
        api_key = (
            self.settings.api_key or os.environ.get("GEMINI_API_KEY") or os.environ.get("GOOGLE_API_KEY")
        )
        if not api_key:
            raise ProviderConfigError("No API key for Gemini: set GEMINI_API_KEY or add it in Providers.")
        timeout = self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        options = types.HttpOptions(
            base_url=self.settings.base_url or None,
            timeout=int(timeout * 1000),
            headers=dict(self.settings.headers) or None,
        )
        self._client = genai.Client(api_key=api_key, http_options=options)
        return self._client

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Stream text and function calls.

        Raises:
            ProviderError: the subclass matching the failure (see ``agent_core.errors``).
        """
        import httpx
        import httpx2

        genai, _types = _sdk()
        client = self.client()
        contents, config = self.request_parts(request)
        usage: TokenUsage | None = None
        finish: FinishReason | None = None
        called = False
        try:
            chunks = await client.aio.models.generate_content_stream(
                model=request.settings.model, contents=contents, config=config
            )
            try:
                async for chunk in chunks:
                    if chunk.usage_metadata is not None:
                        meta = chunk.usage_metadata
                        usage = TokenUsage(
                            input_tokens=meta.prompt_token_count,
                            output_tokens=(meta.candidates_token_count or 0)
                            + (meta.thoughts_token_count or 0),
                            cached_input_tokens=meta.cached_content_token_count,
                        )
                    if not chunk.candidates:
                        continue
                    candidate = chunk.candidates[0]
                    parts = candidate.content.parts if candidate.content is not None else None
                    for part in parts or ():
                        if part.function_call is not None:
                            called = True
                            yield ToolCallEvent(
                                self._remember_call(part.function_call, part.thought_signature)
                            )
                        elif part.text and not part.thought:
                            yield TextDelta(part.text)
                    if candidate.finish_reason is not None:
                        reason = str(getattr(candidate.finish_reason, "value", candidate.finish_reason))
                        finish = _FINISH_REASONS.get(reason, "stop")
            finally:
                await chunks.aclose()
        except genai.errors.APIError as error:
            raise self._map_error(error, request.settings.model) from error
        except (httpx.TimeoutException, httpx2.TimeoutException) as error:
            raise timeout_error(
                self.label, self.settings.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
            ) from error
        except httpx2.ConnectError as error:
            raise connection_error(self.label, str(error)) from error
        except (httpx.TransportError, httpx2.TransportError) as error:
            raise dropped_error(self.label) from error
        except (
            json.JSONDecodeError,
            UnicodeDecodeError,
            pydantic.ValidationError,
            genai.errors.UnknownApiResponseError,
        ) as error:
            raise malformed_error(self.label, error) from error
        if finish is None:
            raise dropped_error(self.label)
        if usage is not None:
            yield UsageEvent(usage)
        yield FinishEvent("tool_calls" if called else finish)

    async def list_models(self) -> list[ModelInfo]:
        """Models that can generate content.

        Raises:
            ProviderError: the API cannot be reached or refuses the request.
        """
        import httpx
        import httpx2

        genai, _types = _sdk()
        try:
            pager = await self.client().aio.models.list()
            return [
                ModelInfo(
                    id=str(model.name).removeprefix("models/"),
                    name=model.display_name or "",
                    context_window=model.input_token_limit,
                )
                async for model in pager
                if not model.supported_actions or "generateContent" in model.supported_actions
            ]
        except genai.errors.APIError as error:
            raise self._map_error(error, "") from error
        except (httpx.HTTPError, httpx2.HTTPError) as error:
            raise connection_error(self.label, str(error) or type(error).__name__) from error

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aio.aclose()
            self._client = None

    def request_parts(self, request: ChatRequest) -> tuple[list[Any], Any]:
        """The ``contents`` and ``config`` of ``generate_content_stream`` for ``request``."""
        _genai, types = _sdk()
        system = "\n\n".join(message.content for message in request.messages if message.role == "system")
        config = types.GenerateContentConfig(
            system_instruction=system or None,
            max_output_tokens=request.settings.max_output_tokens,
            temperature=request.settings.temperature,
            top_p=request.settings.top_p,
            tools=to_gemini_tools(types, request.tools) or None,
            automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
        )
        image_types = self.image_types if self.accepts_images(request.settings.model) else frozenset()
        return self._contents(types, request.messages, image_types), config

    def _contents(
        self, types: Any, messages: Sequence[ChatMessage], image_types: frozenset[str]
    ) -> list[Any]:
        contents: list[Any] = []
        images: list[Any] = []  # of the tool results since the last other message
        for message in messages:
            if message.role == "system":
                continue
            if message.role == "tool":
                images += _image_parts(types, message, image_types)
            elif images:
                contents[-1].parts.extend(images)  # the user turn of those tool results
                images = []
            parts = self._parts(types, message)
            if not parts:
                continue
            role = "model" if message.role == "assistant" else "user"
            if contents and contents[-1].role == role:
                contents[-1].parts.extend(parts)
            else:
                contents.append(types.Content(role=role, parts=parts))
        if images:
            contents[-1].parts.extend(images)
        return contents

    def _parts(self, types: Any, message: ChatMessage) -> list[Any]:
        if message.role == "tool":
            from_api, _signature = self._calls.get(message.tool_call_id or "", (False, None))
            response = {"error": message.content} if message.is_error else {"result": message.content}
            return [
                types.Part(
                    function_response=types.FunctionResponse(
                        id=message.tool_call_id if from_api else None,
                        name=message.tool_name or "",
                        response=response,
                    )
                )
            ]
        parts: list[Any] = []
        if message.content:
            parts.append(types.Part(text=message.content))
        for call in message.tool_calls:
            from_api, signature = self._calls.get(call.id, (False, None))
            parts.append(
                types.Part(
                    function_call=types.FunctionCall(
                        id=call.id if from_api else None, name=call.name, args=dict(call.arguments)
                    ),
                    thought_signature=signature,
                )
            )
        return parts

    def _remember_call(self, function_call: Any, signature: bytes | None) -> ToolCall:
        from_api = bool(function_call.id)
        call_id = function_call.id or f"call_{uuid.uuid4().hex[:24]}"
        self._calls[call_id] = (from_api, signature)
        return ToolCall(id=call_id, name=function_call.name or "", arguments=dict(function_call.args or {}))

    def _map_error(self, error: Any, model: str) -> ProviderError:
        response = getattr(error, "response", None)
        headers = dict(response.headers) if response is not None and hasattr(response, "headers") else {}
        retry_after = parse_retry_after(headers)
        if retry_after is None:
            retry_after = _retry_delay(error.details)
        return error_for_status(
            int(error.code or 500),
            label=self.label,
            detail=str(error.message or error.status or ""),
            model=model,
            key_hint="GEMINI_API_KEY or the key in Providers",
            retry_after=retry_after,
        )


def _sdk() -> tuple[Any, Any]:
    try:
        from google import genai
        from google.genai import errors, types  # noqa: F401 - errors is used as genai.errors
    except ImportError as error:
        raise ProviderConfigError(
            "The 'google-genai' package is not installed: run `python3 dev.py run` to install the providers."
        ) from error
    return genai, types


def _image_parts(types: Any, message: ChatMessage, image_types: frozenset[str]) -> list[Any]:
    """The images of one tool result as ``inline_data`` parts, introduced by the call they came from."""
    parts: list[Any] = []
    for image in message.images:
        if image.mime_type not in image_types:
            continue
        try:
            data = base64.b64decode(image.data, validate=True)
        except binascii.Error:
            continue  # the chat keeps what the server sent; its summary line still describes it
        parts.append(types.Part.from_bytes(data=data, mime_type=image.mime_type))
    if not parts:
        return []
    intro = (
        f"The images of the result of {message.tool_name or 'a tool'} (call {message.tool_call_id or ''}):"
    )
    return [types.Part(text=intro), *parts]


def _retry_delay(details: object) -> float | None:
    """``RetryInfo.retryDelay`` ("30s") from a Google API error body."""
    if not isinstance(details, Mapping):
        return None
    inner = details.get("error", details)
    items = inner.get("details", []) if isinstance(inner, Mapping) else []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, Mapping) and str(item.get("@type", "")).endswith("google.rpc.RetryInfo"):
            match = _DURATION.match(str(item.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None


def to_gemini_tools(types: Any, tools: Sequence[ToolSpec]) -> list[Any]:
    if not tools:
        return []
    declarations = [
        types.FunctionDeclaration(
            name=tool.name, description=tool.description, parameters_json_schema=dict(tool.input_schema)
        )
        for tool in tools
    ]
    return [types.Tool(function_declarations=declarations)]


def register_providers(register: RegisterProvider) -> None:
    register("gemini", GeminiProvider)
