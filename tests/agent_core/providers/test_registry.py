from __future__ import annotations

from collections.abc import AsyncIterator
from importlib.metadata import EntryPoint

import pytest

from agent_core.errors import ProviderConfigError
from agent_core.providers import registry
from agent_core.providers.base import ChatRequest, Provider, ProviderSettings, StreamEvent
from agent_core.providers.local_llama import LocalLlamaProvider
from agent_core.providers.scripted import ScriptedProvider


class EchoProvider(Provider):
    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        if False:
            yield


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_factories", {})
    monkeypatch.setattr(registry, "_plugins_loaded", False)


def test_built_in_types_are_registered_like_plugins(fresh_registry: None) -> None:
    assert {"anthropic", "gemini", "local", "openai", "openai-compatible", "scripted"} <= set(
        registry.provider_types()
    )


def test_create_provider_builds_the_registered_type(fresh_registry: None) -> None:
    provider = registry.create_provider(ProviderSettings(provider_id="offline", type="local"))
    assert isinstance(provider, LocalLlamaProvider)
    assert isinstance(
        registry.create_provider(ProviderSettings(provider_id="s", type="scripted")), ScriptedProvider
    )


def test_unknown_type_names_the_known_types(fresh_registry: None) -> None:
    with pytest.raises(
        ProviderConfigError, match=r"Unknown provider type 'nope'.*openai-compatible.*scripted"
    ):
        registry.create_provider(ProviderSettings(provider_id="x", type="nope"))


def test_entry_point_plugins_register_their_types(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def register_providers(register: registry.RegisterProvider) -> None:
        register("echo", EchoProvider)

    monkeypatch.setattr(
        registry,
        "entry_points",
        lambda group: [EntryPoint("echo", "fake_plugin:register_providers", group)],
    )
    monkeypatch.setattr(EntryPoint, "load", lambda self: register_providers)
    assert "echo" in registry.provider_types()
    assert isinstance(registry.create_provider(ProviderSettings(provider_id="e", type="echo")), EchoProvider)


def test_a_broken_plugin_is_skipped_and_logged(
    fresh_registry: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(
        registry, "entry_points", lambda group: [EntryPoint("bad", "does_not_exist_anywhere:hook", group)]
    )
    assert "scripted" in registry.provider_types()
    assert "does_not_exist_anywhere:hook failed to load" in caplog.text


def test_two_factories_for_one_type_are_refused(fresh_registry: None) -> None:
    registry.register_provider("echo", EchoProvider)
    with pytest.raises(ProviderConfigError, match="Two plug-ins register the provider type 'echo'"):
        registry.register_provider("echo", ScriptedProvider)


def test_importing_providers_does_not_import_cloud_sdks() -> None:
    import subprocess
    import sys

    code = (
        "import sys; from agent_core.providers import registry; registry.provider_types(); "
        "print(sorted(m for m in ('openai', 'anthropic', 'google.genai', 'llama_cpp') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
