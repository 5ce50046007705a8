from __future__ import annotations

import pytest

from agent_core.errors import ProviderConfigError
from agent_core.plugins import PluginError
from agent_core.providers.base import ProviderSettings
from agent_core.providers.local_llama import LocalLlamaProvider
from agent_core.providers.registry import PROVIDERS, create_provider, provider_types, user_provider_types
from agent_core.providers.scripted import ScriptedProvider


def test_built_in_types_are_registered_like_plugins() -> None:
    assert {"anthropic", "gemini", "local", "openai", "openai-compatible", "scripted"} <= set(
        provider_types()
    )


def test_the_scripted_test_provider_is_registered_but_not_offered_to_users() -> None:
    assert "scripted" in provider_types()
    assert "scripted" not in user_provider_types()
    assert {"anthropic", "gemini", "local", "openai", "openai-compatible"} <= set(user_provider_types())


def test_create_provider_builds_the_registered_type() -> None:
    provider = create_provider(ProviderSettings(provider_id="offline", type="local"))
    assert isinstance(provider, LocalLlamaProvider)
    assert isinstance(create_provider(ProviderSettings(provider_id="s", type="scripted")), ScriptedProvider)


def test_an_unknown_type_is_a_provider_config_error_naming_the_provider_and_the_known_types() -> None:
    with pytest.raises(
        ProviderConfigError, match=r"Provider 'x': Unknown provider type 'nope'.*openai-compatible.*scripted"
    ) as raised:
        create_provider(ProviderSettings(provider_id="x", type="nope"))
    assert isinstance(raised.value.__cause__, PluginError)


def test_two_factories_for_one_type_are_refused() -> None:
    with pytest.raises(PluginError, match="Two plug-ins register the provider type 'scripted'"):
        PROVIDERS.register("scripted", LocalLlamaProvider)


def test_importing_providers_does_not_import_cloud_sdks() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from agent_core.providers import registry; registry.provider_types(); "
        "print(sorted(m for m in ('openai', 'anthropic', 'google.genai', 'llama_cpp') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
