"""A chat's settings: the agent's, with the chat's own overrides on top, and the window limits
they give a request to one model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel

from agent_core.agent.schema import AgentConfig, ChatDefaults, ContextConfig, MemoryConfig, SelectionConfig
from agent_core.budget.fitting import Limits
from agent_core.budget.overflow_advice import DEFAULT_OVERFLOW_FIXES, OverflowFixes
from agent_core.budget.windows import window_for
from agent_core.chat.prompt import PromptLimits
from agent_core.chat.resolved_model import ResolvedModel
from agent_core.store.chat_state import ChatOverrides

__all__ = ["ChatSettings", "prompt_limits", "with_overrides"]

_Config = TypeVar("_Config", bound=BaseModel)


@dataclass(frozen=True)
class ChatSettings:
    """Everything a chat's requests are made with, once the chat's overrides are applied."""

    chat: ChatDefaults
    selection: SelectionConfig
    context: ContextConfig
    memory: MemoryConfig
    window_override: int | None  # the chat's own window, which beats the agent's and the model's
    agent_window: int | None

    @classmethod
    def of(cls, config: AgentConfig, overrides: ChatOverrides) -> ChatSettings:
        return cls(
            chat=_merged(config.chat, overrides.chat),
            selection=_merged(config.selection, overrides.selection),
            context=_merged(config.context, overrides.context),
            memory=_merged(config.memory, overrides.memory),
            window_override=overrides.context.get("window"),
            agent_window=config.context.window,
        )


def with_overrides(
    config: AgentConfig,
    current: ChatOverrides,
    *,
    chat: Mapping[str, Any] | None = None,
    selection: Mapping[str, Any] | None = None,
    context: Mapping[str, Any] | None = None,
    memory: Mapping[str, Any] | None = None,
) -> ChatOverrides:
    """``current`` with more overrides (snake_case field names), each validated against the agent's
    settings before anything is kept.

    Raises:
        pydantic.ValidationError: a value is out of range.
    """
    merged_chat = {**current.chat, **(chat or {})}
    merged_selection = {**current.selection, **(selection or {})}
    merged_context = {**current.context, **(context or {})}
    merged_memory = {**current.memory, **(memory or {})}
    _merged(config.chat, merged_chat)
    _merged(config.selection, merged_selection)
    _merged(config.context, merged_context)
    _merged(config.memory, merged_memory)
    return ChatOverrides(
        chat=merged_chat, selection=merged_selection, context=merged_context, memory=merged_memory
    )


def prompt_limits(
    model: ResolvedModel, settings: ChatSettings, fixes: OverflowFixes = DEFAULT_OVERFLOW_FIXES
) -> PromptLimits:
    """The window, reply reserve and trimming limits a request to ``model`` must fit (``fixes``:
    the front end's words for what to take out when it cannot)."""
    config = settings.context
    window = window_for(
        model.model_id,
        chat_override=settings.window_override,
        agent_override=settings.agent_window,
        provider_window=model.provider.context_window(model.model_id),
    )
    reserve = config.reply_reserve if config.reply_reserve is not None else settings.chat.max_output_tokens
    budget = window.tokens - reserve
    # One result may never take more than a third of what the window leaves.
    max_result = max(64, min(config.max_tool_result_tokens, budget // 3))
    fit = Limits(window, reserve, config.keep_tool_rounds, max_result, fixes)
    return PromptLimits(fit=fit, max_reference_tokens=max(256, int(fit.budget * config.max_reference_share)))


def _merged(base: _Config, overrides: Mapping[str, Any]) -> _Config:
    return type(base).model_validate({**base.model_dump(), **overrides})
