"""Provider types by name. Built-ins register exactly as a third-party plug-in does.

A plug-in is a module (or a callable) exposing ``register_providers(register)``; built-ins are listed in
``DEFAULT_PROVIDER_MODULES`` and imported on first use, third-party ones are found through the
``contextdesk.providers`` entry-point group (like simonw/llm's ``DEFAULT_PLUGINS`` + pluggy entry points).
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable
from importlib.metadata import entry_points
from types import ModuleType

from agent_core.errors import ProviderConfigError
from agent_core.providers.base import Provider, ProviderSettings

__all__ = [
    "DEFAULT_PROVIDER_MODULES",
    "ENTRY_POINT_GROUP",
    "ProviderFactory",
    "RegisterProvider",
    "create_provider",
    "provider_types",
    "register_provider",
]

logger = logging.getLogger(__name__)

ProviderFactory = Callable[[ProviderSettings], Provider]
RegisterProvider = Callable[[str, ProviderFactory], None]

ENTRY_POINT_GROUP = "contextdesk.providers"
DEFAULT_PROVIDER_MODULES: tuple[str, ...] = (
    "agent_core.providers.scripted",
    "agent_core.providers.local_llama",
    "agent_core.providers.openai_compatible",
    "agent_core.providers.anthropic_provider",
    "agent_core.providers.gemini_provider",
)

_factories: dict[str, ProviderFactory] = {}
_plugins_loaded = False
_lock = threading.RLock()


def register_provider(type_name: str, factory: ProviderFactory) -> None:
    """Make ``type_name`` (as written in provider settings) create providers with ``factory``.

    Raises:
        ProviderConfigError: another factory already has this type name.
    """
    with _lock:
        existing = _factories.get(type_name)
        if existing is not None and existing is not factory:
            raise ProviderConfigError(
                f"Two plug-ins register the provider type {type_name!r}: uninstall one of them "
                "or give the new one a different type name."
            )
        _factories[type_name] = factory


def provider_types() -> list[str]:
    """The registered provider type names, sorted."""
    _load_plugins()
    with _lock:
        return sorted(_factories)


def create_provider(settings: ProviderSettings) -> Provider:
    """A new provider for ``settings.type``.

    Raises:
        ProviderConfigError: the type is unknown, or the provider cannot be set up from ``settings``.
    """
    _load_plugins()
    with _lock:
        factory = _factories.get(settings.type)
    if factory is None:
        known = ", ".join(provider_types())
        raise ProviderConfigError(
            f"Unknown provider type {settings.type!r} for provider {settings.provider_id!r}: "
            f"use one of {known}, or install the plug-in that provides it."
        )
    return factory(settings)


def _register_from(plugin: object, origin: str) -> None:
    hook = plugin if not isinstance(plugin, ModuleType) else getattr(plugin, "register_providers", None)
    if not callable(hook):
        logger.warning("provider plug-in %s has no register_providers(register) function; skipped", origin)
        return
    hook(register_provider)


def _load_plugins() -> None:
    global _plugins_loaded
    with _lock:
        if _plugins_loaded:
            return
        _plugins_loaded = True
        for module_name in DEFAULT_PROVIDER_MODULES:
            _register_from(importlib.import_module(module_name), module_name)
        for entry_point in entry_points(group=ENTRY_POINT_GROUP):
            # A broken third-party plug-in must not stop the app: this is the plug-in boundary.
            try:
                _register_from(entry_point.load(), entry_point.value)
            except Exception:  # top-level handler for foreign code, logged in full
                logger.exception("provider plug-in %s failed to load; skipped", entry_point.value)
