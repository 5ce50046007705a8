"""Provider types by name, in the ``providers`` plug-in registry (entry-point group ``contextdesk.providers``).

A plug-in exposes ``register_providers(register)`` and calls ``register("my-type", MyProvider)``;
the built-in provider modules do exactly that (see :mod:`agent_core.plugins`).
"""

from __future__ import annotations

from collections.abc import Callable

from agent_core.errors import ProviderConfigError
from agent_core.plugins import PluginError, PluginRegistry, Register
from agent_core.providers.base import Provider, ProviderSettings

__all__ = [
    "PROVIDERS",
    "ProviderFactory",
    "RegisterProvider",
    "create_provider",
    "provider_types",
    "user_provider_types",
]

ProviderFactory = Callable[[ProviderSettings], Provider]
RegisterProvider = Register[ProviderFactory]

PROVIDERS: PluginRegistry[ProviderFactory] = PluginRegistry(
    "providers",
    noun="provider type",
    builtins=(
        "agent_core.providers.scripted:register_providers",
        "agent_core.providers.local_llama:register_providers",
        "agent_core.providers.openai_compatible:register_providers",
        "agent_core.providers.anthropic_provider:register_providers",
        "agent_core.providers.gemini_provider:register_providers",
    ),
)


def provider_types() -> list[str]:
    """The registered provider type names, sorted."""
    return PROVIDERS.names()


def user_provider_types() -> list[str]:
    """The provider types a user chooses from, sorted: those not marked ``internal`` (test providers)."""
    return [name for name, factory in sorted(PROVIDERS.plugins()) if not getattr(factory, "internal", False)]


def create_provider(settings: ProviderSettings) -> Provider:
    """A new provider for ``settings.type``.

    Raises:
        ProviderConfigError: the type is unknown (an agent setting, so a provider configuration
            problem), or the provider cannot be set up from ``settings``.
    """
    try:
        factory = PROVIDERS.get(settings.type)
    except PluginError as error:
        raise ProviderConfigError(f"Provider {settings.provider_id!r}: {error}") from error
    return factory(settings)
