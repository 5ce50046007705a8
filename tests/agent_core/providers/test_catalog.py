"""The models a front end offers: each provider's list, with slow or broken providers left out."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import ClassVar

import pytest

from agent_core.agent.schema import AgentConfig
from agent_core.errors import ProviderAuthError, ProviderConfigError, ProviderUnavailableError
from agent_core.providers import catalog
from agent_core.providers.base import ChatRequest, ModelInfo, Provider, ProviderSettings, StreamEvent
from agent_core.providers.catalog import chat_model_choices, model_choices, probe_provider

pytestmark = pytest.mark.anyio


class Listing(Provider):
    """Lists fixed models; ``hang`` never answers, ``refuse`` rejects the key."""

    closed: ClassVar[list[str]] = []

    async def list_models(self) -> list[ModelInfo]:
        if self.settings.provider_id == "hang":
            await asyncio.Event().wait()
        if self.settings.provider_id == "refuse":
            raise ProviderAuthError("the key was refused: check it in Providers")
        return [
            ModelInfo(f"{self.settings.provider_id}-small"),
            ModelInfo(f"{self.settings.provider_id}-large"),
        ]

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        raise NotImplementedError

    async def aclose(self) -> None:
        Listing.closed.append(self.settings.provider_id)


def resolver(unconfigured: frozenset[str] = frozenset()) -> Callable[[str], tuple[Provider, str]]:
    def resolve(model_ref: str) -> tuple[Provider, str]:
        provider_id, _, model_id = model_ref.partition(":")
        if provider_id in unconfigured:
            raise ProviderConfigError(f"this agent has no provider '{provider_id}'")
        return Listing(ProviderSettings(provider_id, "listing")), model_id

    return resolve


def config(model: str, *providers: str) -> AgentConfig:
    return AgentConfig.model_validate(
        {"name": "A", "chat": {"model": model}, "providers": {provider_id: {} for provider_id in providers}}
    )


async def test_the_chat_model_comes_first_then_every_provider_list_in_provider_order() -> None:
    choices = await chat_model_choices(config("beta:beta-large", "alpha"), resolver())
    assert choices == [
        "beta:beta-large",
        "alpha:alpha-small",
        "alpha:alpha-large",
        "beta:beta-small",
        "beta:beta-large",
    ]


async def test_providers_that_hang_fail_or_are_not_set_up_are_left_out() -> None:
    choices = await chat_model_choices(
        config("alpha:alpha-small", "hang", "refuse", "ghost"), resolver(frozenset({"ghost"})), timeout_s=0.05
    )
    assert choices == ["alpha:alpha-small", "alpha:alpha-small", "alpha:alpha-large"]


async def test_each_provider_left_out_of_the_choices_says_why() -> None:
    choices = await model_choices(
        config("alpha:alpha-small", "hang", "refuse", "ghost"), resolver(frozenset({"ghost"})), timeout_s=0.05
    )
    assert choices.models == ["alpha:alpha-small", "alpha:alpha-small", "alpha:alpha-large"]
    assert choices.unlisted == {
        "ghost": "this agent has no provider 'ghost'",
        "hang": "no answer in 0.05 s",
        "refuse": "the key was refused: check it in Providers",
    }


async def test_probing_lists_the_model_ids_of_a_registered_provider_type() -> None:
    assert await probe_provider(ProviderSettings("demo", "scripted")) == ["scripted"]


async def test_probing_closes_the_provider_whether_it_answers_fails_or_hangs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(catalog, "create_provider", Listing)
    Listing.closed.clear()
    assert await probe_provider(ProviderSettings("demo", "listing")) == ["demo-small", "demo-large"]
    with pytest.raises(ProviderUnavailableError, match="No answer in 0 s: check the base URL"):
        await probe_provider(ProviderSettings("hang", "listing"), timeout_s=0.05)
    with pytest.raises(ProviderAuthError, match="check it in Providers"):
        await probe_provider(ProviderSettings("refuse", "listing"))
    assert Listing.closed == ["demo", "hang", "refuse"]
