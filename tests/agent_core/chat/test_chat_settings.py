"""A chat's settings: the agent's with the chat's overrides on top, overrides validated before
anything is kept, and the window limits a request must fit."""

from __future__ import annotations

import pydantic
import pytest

from agent_core.agent.schema import AgentConfig
from agent_core.chat.chat_settings import ChatSettings, prompt_limits, with_overrides
from agent_core.chat.resolved_model import ModelResolver, ResolvedModel
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chat_state import ChatOverrides


def agent_config(**context: object) -> AgentConfig:
    return AgentConfig.model_validate(
        {
            "name": "test",
            "chat": {"model": "scripted:x", "temperature": 0.3, "max_output_tokens": 800},
            "context": context,
        }
    )


class WindowedProvider(ScriptedProvider):
    def __init__(self, window: int | None) -> None:
        super().__init__()
        self.window = window

    def context_window(self, model_id: str) -> int | None:
        return self.window


def model(window: int | None = None) -> ResolvedModel:
    provider = WindowedProvider(window)
    return ModelResolver(lambda ref: (provider, ref.partition(":")[2])).resolve("scripted:x")


def test_a_chats_overrides_beat_the_agents_settings_field_by_field() -> None:
    config = agent_config(window=8000)
    overrides = ChatOverrides(chat={"temperature": 1.2}, selection={"top_n": 2}, context={"window": 4096})
    settings = ChatSettings.of(config, overrides)
    assert settings.chat.temperature == 1.2
    assert settings.chat.max_output_tokens == 800  # not overridden: the agent's
    assert settings.selection.top_n == 2
    assert settings.window_override == 4096 and settings.agent_window == 8000
    assert ChatSettings.of(config, ChatOverrides()).chat.temperature == 0.3


def test_with_overrides_adds_to_the_current_ones() -> None:
    config = agent_config()
    current = ChatOverrides(chat={"temperature": 1.0})
    changed = with_overrides(config, current, chat={"max_chat_turns": 5}, memory={"max_recalled": 2})
    assert changed.chat == {"temperature": 1.0, "max_chat_turns": 5}
    assert changed.memory == {"max_recalled": 2}
    assert current.chat == {"temperature": 1.0}  # the old overrides are unchanged


@pytest.mark.parametrize(
    ("section", "value"),
    [
        ("chat", {"temperature": 2.5}),
        ("chat", {"max_chat_turns": 0}),
        ("selection", {"include_score": 1.5}),
        ("context", {"compact_at": 0}),
        ("memory", {"max_tokens": -1}),
    ],
)
def test_an_out_of_range_override_is_refused_and_nothing_changes(
    section: str, value: dict[str, object]
) -> None:
    config = agent_config()
    current = ChatOverrides(chat={"temperature": 1.0}, selection={"top_n": 3})
    with pytest.raises(pydantic.ValidationError):
        with_overrides(config, current, **{section: value})
    assert current == ChatOverrides(chat={"temperature": 1.0}, selection={"top_n": 3})


def test_prompt_limits_take_the_chats_window_first_then_the_agents_then_the_provider() -> None:
    chat_window = ChatSettings.of(agent_config(window=8000), ChatOverrides(context={"window": 4096}))
    assert prompt_limits(model(16_000), chat_window).fit.window.tokens == 4096
    agent_window = ChatSettings.of(agent_config(window=8000), ChatOverrides())
    assert prompt_limits(model(16_000), agent_window).fit.window.tokens == 8000
    provider_window = ChatSettings.of(agent_config(), ChatOverrides())
    assert prompt_limits(model(16_000), provider_window).fit.window.tokens == 16_000


def test_the_reply_reserve_is_max_output_tokens_unless_set() -> None:
    by_output = prompt_limits(model(), ChatSettings.of(agent_config(window=8000), ChatOverrides()))
    assert by_output.fit.reply_reserve == 800 and by_output.fit.budget == 7200
    reserved = ChatSettings.of(agent_config(window=8000, reply_reserve=2000), ChatOverrides())
    assert prompt_limits(model(), reserved).fit.budget == 6000


def test_one_tool_result_takes_at_most_a_third_of_the_budget() -> None:
    small = ChatSettings.of(agent_config(window=2000, reply_reserve=500), ChatOverrides())
    assert prompt_limits(model(), small).fit.max_tool_result_tokens == 500  # (2000 - 500) // 3
    roomy = ChatSettings.of(agent_config(window=100_000), ChatOverrides())
    assert prompt_limits(model(), roomy).fit.max_tool_result_tokens == 4000  # maxToolResultTokens


def test_references_get_their_share_of_the_budget() -> None:
    settings = ChatSettings.of(agent_config(window=10_800, max_reference_share=0.5), ChatOverrides())
    limits = prompt_limits(model(), settings)
    assert limits.max_reference_tokens == 5000  # half of 10 800 - 800
