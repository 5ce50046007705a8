"""Requests to fit, as the budget tests build them: a word counter, a draft with a rule and a
file-reading tool, limits of a given window, and short question-and-answer turns."""

from __future__ import annotations

from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import Block, Draft, Limits
from agent_core.budget.windows import WindowSize
from agent_core.providers.base import ChatMessage, ToolSpec

__all__ = ["WORDS", "draft", "limits", "short_turns"]

WORDS = TokenCounter("words", True, lambda text: len(text.split()))


def draft(
    history: list[ChatMessage], user: str = "new question", turns: list[ChatMessage] | None = None
) -> Draft:
    return Draft(
        system=[
            Block("system_prompt", "You are helpful."),
            Block("rule", '<rule name="r">Be brief.</rule>', "r"),
        ],
        history=history,
        user=[Block("message", user)],
        turns=turns or [],
        tools=[
            ToolSpec(
                "fs__read_file", "Read a file", {"type": "object", "properties": {"path": {"type": "string"}}}
            )
        ],
    )


def limits(window: int, reserve: int = 100, keep: int = 2, max_result: int = 4000) -> Limits:
    return Limits(WindowSize(window, "chat"), reserve, keep, max_result)


def short_turns(count: int) -> list[ChatMessage]:
    return [
        m
        for n in range(1, count + 1)
        for m in (ChatMessage("user", f"question {n}"), ChatMessage("assistant", f"answer {n}"))
    ]
