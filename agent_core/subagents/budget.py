"""What the sub-agents started for one message of the user may use together.

Each sub-agent has its own caps (turns, tokens, time, depth, parallel children), but a tree of
them is bounded only by their product: three children each delegating to three more, five levels
deep, is 363 chats and their requests for one message. So the whole tree under one message
shares a budget: at most ``chat.maxSubagentRunsPerMessage`` runs (20 by default) and
``chat.maxSubagentTokensPerMessage`` tokens (1,000,000). Past the runs, a delegation is refused
(the model reads why, as the tool's result); past the tokens, no child starts and running ones
stop after their current turn. Every run that ends after a limit was reached carries a note
saying which, and how to raise it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_core.agent.schema import ChatDefaults
from agent_core.context.items import RequestContext, TokenUsage
from agent_core.errors import ContextDeskError

__all__ = ["FanOutBudget", "FanOutLimitError", "add_usage", "total_tokens"]


class FanOutLimitError(ContextDeskError):
    """A delegation refused: the message's sub-agents reached a limit."""


@dataclass
class FanOutBudget:
    """Shared by every chat of one tree of sub-agents (the user's chat makes one per message)."""

    max_runs: int = ChatDefaults().max_subagent_runs_per_message
    max_tokens: int = ChatDefaults().max_subagent_tokens_per_message
    runs: int = 0
    reached: str = ""  # the setting whose limit was reached ("" while none was)
    _tokens: dict[str, int] = field(default_factory=dict)  # child chat -> its own tokens so far
    # child chat -> its tokens with the prompt of the request it is sending (counted before the
    # provider reports: a child's first turn reports only after the children it delegates to)
    _sending: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, chat: ChatDefaults) -> FanOutBudget:
        return cls(chat.max_subagent_runs_per_message, chat.max_subagent_tokens_per_message)

    @property
    def tokens(self) -> int:
        children = self._tokens.keys() | self._sending.keys()
        return sum(max(self._tokens.get(c, 0), self._sending.get(c, 0)) for c in children)

    @property
    def tokens_spent(self) -> bool:
        """Whether the tree's tokens reached the limit (running children stop after their turn)."""
        if self.tokens < self.max_tokens:
            return False
        self.reached = self.reached or "maxSubagentTokensPerMessage"
        return True

    def admit(self, subagent: str) -> None:
        """Count one more run.

        Raises:
            FanOutLimitError: the runs or the tokens of this message's sub-agents are used up.
        """
        if self.tokens_spent:
            raise FanOutLimitError(f"'{subagent}' was not started: {self.note}")
        if self.runs >= self.max_runs:
            self.reached = self.reached or "maxSubagentRunsPerMessage"
            raise FanOutLimitError(f"'{subagent}' was not started: {self.note}")
        self.runs += 1

    def sending(self, child_id: str, context: RequestContext | None) -> None:
        """A child sends a request: its prompt (as counted to build it) counts from now on."""
        if context is not None and context.manifest is not None:
            self._sending[child_id] = self._tokens.get(child_id, 0) + context.manifest.total_tokens

    def spent(self, child_id: str, usage: TokenUsage) -> None:
        """A child's own tokens so far, as its provider reported them (cumulative: each report
        replaces the last)."""
        self._tokens[child_id] = total_tokens(usage)
        self._sending.pop(child_id, None)

    @property
    def note(self) -> str:
        """Which limit this message's sub-agents reached and how to raise it ("" while none was)."""
        if self.reached == "maxSubagentRunsPerMessage":
            return (
                f"this message's sub-agents reached their limit of {self.max_runs} runs in all "
                "(raise chat.maxSubagentRunsPerMessage in agent.yaml to allow more)"
            )
        if self.reached == "maxSubagentTokensPerMessage":
            return (
                f"this message's sub-agents reached their limit of {self.max_tokens:,} tokens in all "
                "(raise chat.maxSubagentTokensPerMessage in agent.yaml to allow more)"
            )
        return ""


def total_tokens(usage: TokenUsage) -> int:
    return (usage.input_tokens or 0) + (usage.output_tokens or 0)


def add_usage(a: TokenUsage, b: TokenUsage) -> TokenUsage:
    def add(x: int | None, y: int | None) -> int | None:
        return y if x is None else x if y is None else x + y

    return TokenUsage(
        add(a.input_tokens, b.input_tokens),
        add(a.output_tokens, b.output_tokens),
        add(a.cached_input_tokens, b.cached_input_tokens),
    )
