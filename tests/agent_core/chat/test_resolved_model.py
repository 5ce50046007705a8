"""Resolving ``provider:model``: one token counter per model, shared by every resolve, and how
the model uses tools."""

from __future__ import annotations

import pytest

from agent_core.agent.schema import ChatDefaults
from agent_core.chat.resolved_model import ModelResolver
from agent_core.errors import ProviderError
from agent_core.providers.base import Provider, ProviderSettings, ToolCalling
from agent_core.providers.scripted import ScriptedProvider


class ToolUse(ScriptedProvider):
    """A scripted provider whose models use tools as ``modes`` says (native otherwise)."""

    def __init__(self, modes: dict[str, ToolCalling], provider_id: str = "scripted") -> None:
        super().__init__(ProviderSettings(provider_id=provider_id, type="scripted"))
        self.modes = modes
        self.counted: list[str] = []

    def tool_calling(self, model_id: str) -> ToolCalling:
        return self.modes.get(model_id, "native")

    def count_tokens(self, text: str) -> int | None:
        self.counted.append(text)
        return len(text.split())


def resolver(*providers: ToolUse) -> ModelResolver:
    by_id: dict[str, Provider] = {p.settings.provider_id: p for p in providers}

    def resolve(ref: str) -> tuple[Provider, str]:
        provider_id, _, model_id = ref.partition(":")
        if provider_id not in by_id:
            raise ProviderError(f"no provider {provider_id}: add it under providers in agent.yaml")
        return by_id[provider_id], model_id

    return ModelResolver(resolve)


def test_a_model_keeps_one_counter_however_often_it_is_resolved() -> None:
    provider = ToolUse({})
    models = resolver(provider)
    first, again = models.resolve("scripted:a"), models.resolve("scripted:a")
    assert first.counter is again.counter
    assert provider.counted.count("probe") == 1  # the tokenizer was looked up once
    assert (first.ref, first.model_id) == ("scripted:a", "a")


def test_each_model_has_its_own_counter() -> None:
    models = resolver(ToolUse({}), ToolUse({}, provider_id="other"))
    assert models.resolve("scripted:a").counter is not models.resolve("scripted:b").counter
    assert models.resolve("scripted:a").counter is not models.resolve("other:a").counter


def test_the_counter_counts_with_the_models_own_tokenizer() -> None:
    provider = ToolUse({})
    counter = resolver(provider).resolve("scripted:a").counter
    assert counter.count("one two three") == 3


@pytest.mark.parametrize("mode", ["native", "routed", "none"])
def test_how_a_model_uses_tools_is_its_providers_answer_for_it(mode: ToolCalling) -> None:
    models = resolver(ToolUse({"m": mode}))
    assert models.resolve("scripted:m").tool_calling == mode
    assert models.resolve("scripted:other").tool_calling == "native"


def test_an_unknown_provider_is_the_providers_error() -> None:
    with pytest.raises(ProviderError, match="add it under providers"):
        resolver(ToolUse({})).resolve("missing:m")


def test_generation_settings_come_from_the_chat_for_this_model() -> None:
    model = resolver(ToolUse({})).resolve("scripted:m")
    generation = model.generation(ChatDefaults(max_output_tokens=123, temperature=1.1, top_p=0.5))
    assert (generation.model, generation.max_output_tokens, generation.temperature, generation.top_p) == (
        "m",
        123,
        1.1,
        0.5,
    )
