"""A reply's provenance, from what its turns did: the tool calls they made (routed or chosen by
the model) and whether the last turn's text came from the model or was a tool's result shown as
it is (the provider reports no model run then)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

from agent_core.context.provenance import STOPPED, Provenance, ToolUse
from agent_core.store.records import StoredMessage, ToolCallRecord

__all__ = ["chat_provenance", "reply_provenance", "stopped_calls", "tool_uses"]


def tool_uses(records: Iterable[ToolCallRecord], *, routed: bool) -> list[ToolUse]:
    """The calls of one turn; ``routed``: ContextDesk picked the tool, not the model."""
    return [
        ToolUse(
            f"{r.server}.{r.tool}" if r.server else r.tool,  # no server: a tool no server offers
            dict(r.arguments),
            routed=routed,
            is_error=r.is_error,
            ended=r.ended,
        )
        for r in records
    ]


def stopped_calls(records: Iterable[ToolCallRecord]) -> tuple[ToolCallRecord, ...]:
    """``records`` of a stopped reply, each call still unanswered marked as stopped."""
    return tuple(
        r
        if r.result or r.elapsed_seconds is not None or r.approval == "denied"
        else replace(r, ended=STOPPED)
        for r in records
    )


def reply_provenance(model: str, uses: Sequence[ToolUse], *, last_turn_without_model: bool) -> Provenance:
    """A finished reply's: a tool's result shown as it is when its last turn ran no model after a
    tool call, else the model's."""
    if last_turn_without_model and uses:
        return Provenance("tool_result", model, tuple(uses))
    return Provenance("model", model, tuple(uses))


def chat_provenance(messages: Sequence[StoredMessage]) -> Provenance | None:
    """A chat's result (a sub-agent's): its last finished reply's provenance, with the tools every
    reply of the chat called (a repair turn calls none, yet the work before it used them). None
    when no reply recorded one (it failed, or it was saved by an older ContextDesk)."""
    last = next(
        (
            m.request_context.provenance
            for m in reversed(messages)
            if m.role == "assistant" and m.request_context is not None and m.request_context.provenance
        ),
        None,
    )
    if last is None:
        return None
    uses: list[ToolUse] = []
    for message in messages:
        context = message.request_context
        if message.role == "assistant" and context is not None and context.provenance is not None:
            uses.extend(context.provenance.tools)
    return Provenance(last.produced_by, last.model, tuple(uses))
