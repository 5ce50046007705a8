"""The providers an agent configures, by id: `provider:model` turned into a ready provider, each created once."""

from __future__ import annotations

import asyncio
import threading

from agent_core.agent.agent import Agent
from agent_core.agent.schema import ProviderConfig
from agent_core.agent.secrets import MissingSecretError, resolve_secret
from agent_core.errors import ProviderConfigError
from agent_core.providers.base import Provider, ProviderSettings
from agent_core.providers.registry import create_provider, provider_types

__all__ = ["ProviderPool", "split_model_ref"]


def split_model_ref(model_ref: str) -> tuple[str, str]:
    """``"openai:gpt-4o-mini"`` -> ``("openai", "gpt-4o-mini")``.

    Raises:
        ProviderConfigError: the reference has no ``provider:`` part.
    """
    provider_id, sep, model_id = model_ref.partition(":")
    if not sep or not provider_id or not model_id:
        raise ProviderConfigError(
            f"'{model_ref}' does not name a model as provider:model (for example openai:gpt-4o-mini): "
            "pick a model in the chat settings"
        )
    return provider_id, model_id


class ProviderPool:
    """One provider instance per configured provider id, created on first use and reused."""

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self._providers: dict[str, Provider] = {}
        self._lock = threading.Lock()

    def resolve(self, model_ref: str) -> tuple[Provider, str]:
        """The provider and model id for ``model_ref``.

        Raises:
            ProviderConfigError: the provider is not configured, its type is unknown, or a secret
                it refers to is not set.
        """
        provider_id, model_id = split_model_ref(model_ref)
        with self._lock:
            provider = self._providers.get(provider_id)
            if provider is None:
                provider = create_provider(self.settings_for(provider_id))
                self._providers[provider_id] = provider
        return provider, model_id

    def settings_for(self, provider_id: str) -> ProviderSettings:
        config = self.agent.config.providers.get(provider_id)
        if config is None:
            if provider_id not in provider_types():
                raise ProviderConfigError(
                    f"this agent has no provider '{provider_id}': add it under Providers (or `providers:` in "
                    f"agent.yaml), or choose another model"
                )
            config = ProviderConfig()
        try:
            api_key = (
                None
                if config.api_key is None
                else resolve_secret(config.api_key, what=f"the {provider_id} API key")
            )
            headers = {
                k: resolve_secret(v, what=f"the {provider_id} header {k}") for k, v in config.headers.items()
            }
        except MissingSecretError as error:
            raise ProviderConfigError(str(error)) from error
        return ProviderSettings(
            provider_id=provider_id,
            type=config.type or provider_id,
            api_key=api_key,
            base_url=config.base_url,
            model_path=config.model_path,
            threads=config.threads,
            context_size=config.context_size,
            timeout_seconds=config.timeout_seconds,
            headers=headers,
            options=dict(config.options),
            vision_models=None if config.vision_models is None else tuple(config.vision_models),
        )

    async def aclose(self) -> None:
        with self._lock:
            providers, self._providers = list(self._providers.values()), {}
        await asyncio.gather(*(p.aclose() for p in providers))
