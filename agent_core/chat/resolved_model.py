"""A chat's model once resolved: the provider, the model id within it and how to count its tokens,
as one value instead of loose pieces passed side by side."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from agent_core.agent.schema import ChatDefaults
from agent_core.budget.counting import TokenCounter, counter_for
from agent_core.providers.base import GenerationSettings, Provider, ToolCalling

__all__ = ["ModelResolver", "ProviderResolver", "ResolvedModel"]

# (provider:model) -> (provider, model id within it). Raises ProviderError when it cannot.
ProviderResolver = Callable[[str], tuple[Provider, str]]


@dataclass(frozen=True)
class ResolvedModel:
    ref: str  # provider:model, as the user chose it
    provider: Provider
    model_id: str
    counter: TokenCounter

    @property
    def tool_calling(self) -> ToolCalling:
        return self.provider.tool_calling(self.model_id)

    def generation(self, settings: ChatDefaults) -> GenerationSettings:
        return GenerationSettings(
            model=self.model_id,
            max_output_tokens=settings.max_output_tokens,
            temperature=settings.temperature,
            top_p=settings.top_p,
        )


class ModelResolver:
    """Resolves ``provider:model`` references, keeping one token counter per model (a tokenizer
    can be slow to load)."""

    def __init__(self, resolve_provider: ProviderResolver) -> None:
        self._resolve_provider = resolve_provider
        self._counters: dict[str, TokenCounter] = {}
        self._lock = threading.Lock()

    def resolve(self, model_ref: str) -> ResolvedModel:
        """Raises:
        ProviderError: the provider is not configured or cannot be set up.
        """
        provider, model_id = self._resolve_provider(model_ref)
        key = f"{provider.settings.provider_id}:{model_id}"
        with self._lock:
            counter = self._counters.get(key)
        if counter is None:
            counter = counter_for(provider, provider.settings.type, model_id)
            with self._lock:
                counter = self._counters.setdefault(key, counter)
        return ResolvedModel(model_ref, provider, model_id, counter)
