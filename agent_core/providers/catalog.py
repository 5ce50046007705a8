"""Which models a front end can offer: what each provider lists, asked with a time limit.

A provider that is not set up, cannot be reached or does not answer in time is left out of the
choices (logged) rather than failing them: a chat can still type any ``provider:model`` by hand.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from agent_core.agent.schema import AgentConfig
from agent_core.errors import ContextDeskError, ProviderUnavailableError
from agent_core.providers.base import Provider, ProviderSettings
from agent_core.providers.registry import create_provider

__all__ = [
    "MODEL_LIST_TIMEOUT_S",
    "PROBE_TIMEOUT_S",
    "ModelChoices",
    "chat_model_choices",
    "model_choices",
    "probe_provider",
]

logger = logging.getLogger(__name__)

MODEL_LIST_TIMEOUT_S = 8.0  # per provider, while a chat's model menu fills in the background
PROBE_TIMEOUT_S = 15.0  # the user pressed Test and is waiting for this one answer

ModelResolver = Callable[[str], tuple[Provider, str]]  # "provider:model" -> (provider, model id)


@dataclass(frozen=True)
class ModelChoices:
    """A chat's model menu: ``models`` as ``provider:model`` (the chat model first), and for each
    provider that gave no list, why (not set up, refused the key, no answer in time): a front end
    says so instead of treating that provider's models as unknown."""

    models: list[str]
    unlisted: dict[str, str] = field(default_factory=dict)


async def model_choices(
    config: AgentConfig, resolve: ModelResolver, timeout_s: float = MODEL_LIST_TIMEOUT_S
) -> ModelChoices:
    """``provider:model`` references for a chat's model menu: the agent's chat model first, then
    every model listed by each configured provider and by the chat model's provider, in provider
    order; with why each provider that listed nothing did not."""
    chat_model = config.chat.model
    provider_ids = set(config.providers) | {chat_model.partition(":")[0]}
    found = [chat_model]
    unlisted: dict[str, str] = {}
    for provider_id in sorted(provider_ids):
        try:
            # The pool hands out providers by model reference; any model id reaches the provider.
            provider, _ = resolve(f"{provider_id}:_")
            models = await asyncio.wait_for(provider.list_models(), timeout_s)
        except TimeoutError:
            logger.info("no model list from %s: no answer in %.0f s", provider_id, timeout_s)
            unlisted[provider_id] = f"no answer in {timeout_s:g} s"
            continue
        except (ContextDeskError, OSError) as error:
            logger.info("no model list from %s: %s", provider_id, error)
            unlisted[provider_id] = str(error) or type(error).__name__
            continue
        found += [f"{provider_id}:{model.id}" for model in models]
    return ModelChoices(found, unlisted)


async def chat_model_choices(
    config: AgentConfig, resolve: ModelResolver, timeout_s: float = MODEL_LIST_TIMEOUT_S
) -> list[str]:
    """The models of :func:`model_choices` alone."""
    return (await model_choices(config, resolve, timeout_s)).models


async def probe_provider(settings: ProviderSettings, timeout_s: float = PROBE_TIMEOUT_S) -> list[str]:
    """Connect with ``settings`` (e.g. a form not saved yet) and return the model ids the provider
    lists; empty when it does not list them. The provider is closed afterwards.

    Raises:
        ProviderError: the provider is not set up, refused the key, or failed; no answer within
            ``timeout_s`` is a ``ProviderUnavailableError``.
    """
    provider = create_provider(settings)
    try:
        models = await asyncio.wait_for(provider.list_models(), timeout_s)
    except TimeoutError as error:
        raise ProviderUnavailableError(
            f"No answer in {timeout_s:.0f} s: check the base URL and the network."
        ) from error
    finally:
        await provider.aclose()
    return [model.id for model in models]
