"""A tool server's sampling request at the terminal: who asks and what it wants to send, asked
before the model answers (``--yes`` approves it); one line on stderr when it ends."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable

from agent_core.chat.events import ApprovalDecision, ApprovalRequest, SamplingAnswered
from agent_core.chat.sampling_answers import SamplingEvent
from agent_core.context.items import SamplingRecord

__all__ = ["ask_sampling", "sampling_line", "terminal_sampling_events"]

SHOWN_PROMPT_CHARACTERS = 2000


async def ask_sampling(request: ApprovalRequest) -> ApprovalDecision:
    """Ask whether the server may have the model answer its prompt (shown, bounded)."""
    assert request.sampling is not None
    sampling = request.sampling
    prompt = sampling.prompt
    if len(prompt) > SHOWN_PROMPT_CHARACTERS:
        prompt = prompt[:SHOWN_PROMPT_CHARACTERS] + " […]"
    who = f"{request.asker}: the" if request.asker else "The"
    lines = [
        "",
        f"{who} MCP server '{request.server}' (during {request.server}.{request.tool}) asks for a model reply "
        f"of up to {sampling.max_tokens:,} tokens.",
    ]
    if sampling.system_prompt:
        lines.append(f"  system: {sampling.system_prompt[:SHOWN_PROMPT_CHARACTERS]}")
    lines += [f"  {line}" for line in prompt.splitlines()]
    print("\n".join(lines), file=sys.stderr)
    question = "Send it to the model? [o]nce / [a]lways for this server / [d]eny: "
    while True:
        try:
            reply = (await asyncio.to_thread(input, question)).strip().lower()
        except EOFError:
            return ApprovalDecision.DENY  # nobody to ask: fail closed
        if reply in ("o", "once", "y", "yes"):
            return ApprovalDecision.ALLOW_ONCE
        if reply in ("a", "always"):
            return ApprovalDecision.ALLOW_FOR_CHAT
        if reply in ("d", "deny", "n", "no"):
            return ApprovalDecision.DENY


def sampling_line(record: SamplingRecord) -> str:
    """One line on a sampling request that ended."""
    where = f"sampling for {record.server}.{record.tool}"
    if record.outcome != "answered":
        return f"{where} {record.outcome}: {record.note}"
    tokens = record.usage.total
    counted = f"{tokens:,} tokens" if tokens else "tokens not reported"
    return f"{where} answered by {record.model} ({counted}, {record.elapsed_seconds:.1f} s)"


def terminal_sampling_events(*, auto_approve: bool) -> Callable[[SamplingEvent], None]:
    """An ``emit`` for ``ChatSampling.handler`` outside a chat (``contextdesk mcp call``): asks
    at the terminal, or approves with ``--yes``; reports each end on stderr."""
    pending: set[asyncio.Task[None]] = set()

    async def decide(request: ApprovalRequest) -> None:
        request.decide(ApprovalDecision.ALLOW_ONCE if auto_approve else await ask_sampling(request))

    def emit(event: SamplingEvent) -> None:
        if isinstance(event, SamplingAnswered):
            print(f"[{sampling_line(event.record)}]", file=sys.stderr)
            return
        task = asyncio.get_running_loop().create_task(decide(event))
        pending.add(task)  # kept until done: the loop holds tasks only weakly
        task.add_done_callback(pending.discard)

    return emit
