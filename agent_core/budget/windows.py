"""How many tokens a model can take: a table of known models, overridable per agent and chat."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

__all__ = ["DEFAULT_WINDOW", "WindowSize", "known_window", "window_for"]

DEFAULT_WINDOW = 8192

# First match wins; patterns are matched against the model id (without "provider:").
_KNOWN: tuple[tuple[str, int], ...] = (
    (r"^gpt-4\.1", 1_047_576),
    (r"^gpt-5", 400_000),
    (r"^(o1|o3|o4)", 200_000),
    (r"^gpt-4o|^gpt-4-turbo|^chatgpt-4o", 128_000),
    (r"^gpt-4-32k", 32_768),
    (r"^gpt-4", 8_192),
    (r"^gpt-3\.5-turbo", 16_385),
    (r"^claude", 200_000),
    (r"^gemini-(1\.5|2|3)", 1_048_576),
    (r"^gemini", 32_768),
    (r"smollm2", 8_192),
    (r"llama-?3\.[123]|llama3\.[123]", 131_072),
    (r"llama-?3|llama3", 8_192),
    (r"qwen2\.5|qwen3", 32_768),
    (r"mistral|mixtral", 32_768),
    (r"phi-?3|phi-?4", 16_384),
    (r"gemma-?2|gemma2", 8_192),
    (r"gemma-?3|gemma3", 131_072),
)

Source = Literal["chat", "agent", "provider", "table", "default"]


@dataclass(frozen=True)
class WindowSize:
    tokens: int
    source: Source  # where the figure came from, shown to the user


def known_window(model_id: str) -> int | None:
    """The context window of a well-known model, or None."""
    lowered = model_id.lower()
    for pattern, tokens in _KNOWN:
        if re.search(pattern, lowered):
            return tokens
    return None


def window_for(
    model_id: str, *, chat_override: int | None, agent_override: int | None, provider_window: int | None
) -> WindowSize:
    """The window in force: the chat's setting, the agent's, what the provider runs, the table."""
    if chat_override:
        return WindowSize(chat_override, "chat")
    if agent_override:
        return WindowSize(agent_override, "agent")
    if provider_window:
        return WindowSize(provider_window, "provider")
    known = known_window(model_id)
    return WindowSize(known, "table") if known else WindowSize(DEFAULT_WINDOW, "default")
