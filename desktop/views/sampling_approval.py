"""The words of a sampling approval in the chat: which server asks, during which tool call, and
the exact prompt it wants the model to answer (escaped and bounded: a server is untrusted)."""

from __future__ import annotations

import html

from agent_core.chat.events import ApprovalRequest

__all__ = ["SHOWN_CHARACTERS", "sampling_prompt_html", "sampling_question"]

SHOWN_CHARACTERS = 1500  # the rest is in the tooltip and, once answered, in View Context


def sampling_question(approval: ApprovalRequest) -> str:
    assert approval.sampling is not None
    asker = f" (in {html.escape(approval.asker.lower())})" if approval.asker else ""
    return (
        f"<b>Sampling request</b> from the MCP server <b>{html.escape(approval.server)}</b>{asker}, "
        f"while <b>{html.escape(approval.server)}.{html.escape(approval.tool)}</b> runs: it asks the model "
        f"for a reply of up to {approval.sampling.max_tokens:,} tokens to this prompt. Send it?"
    )


def sampling_prompt_html(approval: ApprovalRequest, muted: str) -> str:
    assert approval.sampling is not None
    request = approval.sampling
    parts = []
    if request.system_prompt:
        parts.append(f"<span style='color: {muted};'>system:</span> {_bounded(request.system_prompt)}")
    for message in request.messages:
        parts.append(f"<span style='color: {muted};'>{message.role}:</span> {_bounded(message.text)}")
    return "<br>".join(parts) or f"<span style='color: {muted};'>No messages.</span>"


def _bounded(text: str) -> str:
    shown = text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + " […]"
    return html.escape(shown).replace("\n", "<br>")
