"""Scripted providers for tests with several models: one per model name, so that the requests of
a parent chat and of each child are told apart."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from agent_core.providers.base import ChatRequest, Provider
from agent_core.providers.pool import ProviderPool
from agent_core.providers.scripted import ScriptedProvider

__all__ = ["WAIT", "OnePool", "Providers"]

WAIT = 10.0  # seconds any single await may take before the test fails


class Providers:
    """One scripted provider per model name; ``log`` records (model, request) in order."""

    def __init__(self) -> None:
        self.by_model: defaultdict[str, ScriptedProvider] = defaultdict(ScriptedProvider)
        self.log: list[tuple[str, ChatRequest]] = []

    def __getitem__(self, model: str) -> ScriptedProvider:
        return self.by_model[model]

    def resolve(self, model_ref: str) -> tuple[Provider, str]:
        name = model_ref.split(":", 1)[1]
        provider = self.by_model[name]
        log, original = self.log, provider.stream

        if not getattr(provider, "_logged", False):

            def stream(request: ChatRequest, _name: str = name, _original: Callable = original):  # type: ignore[no-untyped-def]
                log.append((_name, request))
                return _original(request)

            provider.stream = stream  # type: ignore[method-assign]
            provider._logged = True  # type: ignore[attr-defined]
        return provider, name

    def requests(self, model: str) -> list[ChatRequest]:
        return [request for name, request in self.log if name == model]


class OnePool(ProviderPool):
    """A workspace's providers that are one scripted provider, whatever model is asked for."""

    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def resolve(self, model_ref: str) -> tuple[Provider, str]:
        return self.provider, "x"

    async def aclose(self) -> None:
        await self.provider.aclose()
