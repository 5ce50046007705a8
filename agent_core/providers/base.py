"""The one small seam every model provider plugs into: ``stream()`` and ``complete()``.

Messages and events here are provider-neutral; each provider translates them to its API.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any, ClassVar, Literal

# The one usage record: providers report it, the RequestContext stores it.
from agent_core.context.items import TokenUsage
from agent_core.errors import ProviderError

__all__ = [
    "ChatMessage",
    "ChatRequest",
    "Completion",
    "FinishEvent",
    "GenerationSettings",
    "ImageInput",
    "ModelInfo",
    "PromptProgressEvent",
    "Provider",
    "ProviderSettings",
    "RetryEvent",
    "StreamEvent",
    "TextDelta",
    "TokenUsage",
    "ToolCall",
    "ToolCallEvent",
    "ToolCalling",
    "ToolSpec",
    "UsageEvent",
    "model_matches",
]

Role = Literal["system", "user", "assistant", "tool"]
FinishReason = Literal["stop", "tool_calls", "length", "cancelled"]
#: How a model uses tools. ``native``: it is offered the tools and chooses among them itself.
#: ``routed``: it cannot choose well (small local models), so ContextDesk picks at most one tool per
#: message with the semantic indexer and the request names it in ``ChatRequest.call_tool``; the model
#: only writes that tool's arguments. ``none``: it is never offered tools.
ToolCalling = Literal["native", "routed", "none"]


@dataclass(frozen=True)
class ToolCall:
    """A tool call the model asked for. ``name`` is the name the model saw (see ToolSpec)."""

    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model. ``name`` is unique in a request and safe for every API
    (``[A-Za-z0-9_-]{1,64}``); the chat engine maps it back to (server, tool)."""

    name: str
    description: str
    input_schema: Mapping[str, Any]


@dataclass(frozen=True)
class ImageInput:
    """An image a tool gave back, for a model that can see (``Provider.accepts_images``)."""

    mime_type: str
    data: str  # base64


@dataclass(frozen=True)
class ChatMessage:
    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()  # assistant messages that call tools
    tool_call_id: str | None = None  # tool results: which call this answers
    tool_name: str | None = None  # tool results: the ToolSpec name
    is_error: bool = False  # tool results: the tool failed
    cache_breakpoint: bool = False  # last message of the stable prefix (prompt caching hint)
    # Tool results: the images among the result's parts. ``content`` describes each in one line
    # too, so a provider that cannot show images ignores this and loses nothing but the pixels.
    images: tuple[ImageInput, ...] = ()


@dataclass(frozen=True)
class GenerationSettings:
    model: str  # the model id within the provider, without "provider:"
    max_output_tokens: int = 1000
    temperature: float = 0.5
    top_p: float = 0.9


@dataclass(frozen=True)
class ChatRequest:
    messages: Sequence[ChatMessage]
    settings: GenerationSettings
    tools: Sequence[ToolSpec] = ()
    #: For ``routed`` models only: the name of the one tool in ``tools`` the reply must call.
    call_tool: str | None = None


@dataclass(frozen=True)
class TextDelta:
    text: str
    type: Literal["text"] = "text"


@dataclass(frozen=True)
class ToolCallEvent:
    """A complete tool call (providers assemble streamed argument fragments first)."""

    call: ToolCall
    type: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True)
class UsageEvent:
    usage: TokenUsage
    type: Literal["usage"] = "usage"


@dataclass(frozen=True)
class RetryEvent:
    """The request failed with a retryable error and will be tried again after ``delay``."""

    attempt: int
    delay: float
    error: ProviderError
    type: Literal["retry"] = "retry"


@dataclass(frozen=True)
class PromptProgressEvent:
    """How far the model has read the prompt, for providers that can tell (a local model, which
    may take a minute on a long prompt before its first word). ``done`` of ``total`` new tokens;
    ``cached`` tokens at the start were kept from the previous request and need no reading."""

    done: int
    total: int
    cached: int = 0
    type: Literal["prompt_progress"] = "prompt_progress"


@dataclass(frozen=True)
class FinishEvent:
    reason: FinishReason
    type: Literal["finish"] = "finish"


StreamEvent = TextDelta | ToolCallEvent | UsageEvent | RetryEvent | PromptProgressEvent | FinishEvent


@dataclass(frozen=True)
class Completion:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: FinishReason = "stop"


@dataclass(frozen=True)
class ModelInfo:
    id: str
    name: str = ""
    context_window: int | None = None


@dataclass(frozen=True)
class ProviderSettings:
    """A provider's resolved configuration (secrets already resolved, never written anywhere)."""

    provider_id: str  # the agent's id for it, e.g. "ollama"
    type: str  # the registered provider type, e.g. "openai-compatible"
    api_key: str | None = None
    base_url: str | None = None
    model_path: str | None = None
    threads: int | None = None
    context_size: int | None = None
    timeout_seconds: float | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, str | int | float | bool] = field(default_factory=dict)
    #: The agent's list of this provider's models that can see images (``visionModels``: glob
    #: patterns); None: the provider's own list of known ones (``Provider.known_vision_models``).
    vision_models: tuple[str, ...] | None = None


def model_matches(model_id: str, patterns: Sequence[str]) -> bool:
    """Whether ``model_id`` matches one of the glob ``patterns`` (case-insensitive) and none of
    those that start with ``!`` (exclusions win wherever they stand)."""
    name = model_id.lower()
    if any(fnmatchcase(name, p[1:].lower()) for p in patterns if p.startswith("!")):
        return False
    return any(fnmatchcase(name, p.lower()) for p in patterns if not p.startswith("!"))


class Provider(ABC):
    """A model provider. Subclasses implement ``stream``; the rest has working defaults.

    ``stream`` raises ``ProviderError`` subclasses (never SDK exceptions) and stops promptly when
    the consuming task is cancelled.
    """

    #: For tests and demos only (the scripted provider): registered like any other, but front ends
    #: leave it out of the types a user chooses from.
    internal: ClassVar[bool] = False
    #: Glob patterns of the model ids known to see images (see ``model_matches``), used when the
    #: agent does not list them itself (``ProviderSettings.vision_models``).
    known_vision_models: ClassVar[tuple[str, ...]] = ()
    #: The image types the provider's API reads; others are left to their one-line summary.
    image_types: ClassVar[frozenset[str]] = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

    def __init__(self, settings: ProviderSettings) -> None:
        self.settings = settings

    @abstractmethod
    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        """Yield text deltas and complete tool calls as they arrive, then usage and a finish event.
        Before the first of them a provider may report how far it has read the prompt
        (``PromptProgressEvent``); most cannot tell and do not."""

    async def complete(self, request: ChatRequest) -> Completion:
        """The whole reply at once, built from ``stream``."""
        text: list[str] = []
        calls: list[ToolCall] = []
        usage = TokenUsage()
        reason: FinishReason = "stop"
        async for event in self.stream(request):
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, ToolCallEvent):
                calls.append(event.call)
            elif isinstance(event, UsageEvent):
                usage = event.usage
            elif isinstance(event, FinishEvent):
                reason = event.reason
        return Completion(text="".join(text), tool_calls=tuple(calls), usage=usage, finish_reason=reason)

    async def list_models(self) -> list[ModelInfo]:
        """Models the provider offers, where it can tell; empty when it cannot."""
        return []

    def count_tokens(self, text: str) -> int | None:
        """Exact token count with the model's own tokenizer, or None when not available offline."""
        return None

    def tool_calling(self, model_id: str) -> ToolCalling:
        """How ``model_id`` uses tools (see ``ToolCalling``); tools are left out of its requests if ``none``."""
        return "native"

    def accepts_images(self, model_id: str) -> bool:
        """Whether ``model_id`` is given the images of tool results (``ChatMessage.images``); a
        model that is not reads only their one-line summaries. The agent's ``visionModels`` for
        the provider decide when set, else the provider's known vision models."""
        patterns = self.settings.vision_models
        return model_matches(model_id, self.known_vision_models if patterns is None else patterns)

    def context_window(self, model_id: str) -> int | None:
        """The window this provider runs ``model_id`` with, when the provider decides it (a local
        model's context size); None to use ContextDesk's table of known models."""
        return None

    async def aclose(self) -> None:  # noqa: B027 - an optional hook: nothing to release by default
        """Release connections or loaded models."""
