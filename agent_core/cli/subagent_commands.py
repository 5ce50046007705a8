"""``contextdesk subagent run``: run one sub-agent directly on a task, as its parent would.

Its chat is stored like any sub-agent's (``contextdesk sessions show ID`` prints it), under no
parent chat. Approvals are asked at the terminal, labelled with the sub-agent (``--yes`` allows).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
)
from agent_core.cli.limit_prompt import confirm_model
from agent_core.cli.server_start import start_tool_servers
from agent_core.context.items import Delegation
from agent_core.errors import ContextDeskError
from agent_core.subagents.child_context import resolve_model
from agent_core.subagents.direct import run_directly
from agent_core.workspace import Workspace

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("subagent", help="run an agent's sub-agents directly")
    commands = parser.add_subparsers(dest="subagent_command", metavar="SUBCOMMAND", required=True)
    run = commands.add_parser("run", help="run one sub-agent on a task and print its result")
    run.add_argument(
        "--agent", type=Path, default=None, help="the agent folder (default: your default agent)"
    )
    run.add_argument("name", help="the sub-agent's name (subagents/NAME.md)")
    run.add_argument("task", help="the task, self-contained: the sub-agent sees nothing else")
    run.add_argument("--json", action="store_true", help="print {result, usage, transcript_id, stopped_by}")
    run.add_argument("--yes", action="store_true", help="allow every tool call without asking")
    run.set_defaults(handler=run_subagent)


def run_subagent(args: argparse.Namespace) -> int:
    return asyncio.run(_run(args))


async def _run(args: argparse.Namespace) -> int:
    workspace = Workspace.open(args.agent)
    try:
        if args.name not in workspace.agent.subagents:
            known = ", ".join(workspace.agent.subagents) or "none"
            raise ContextDeskError(
                f"the agent has no sub-agent named {args.name!r} (it has: {known}); "
                f"add subagents/{args.name}.md, or see `contextdesk agent show {workspace.agent.root}`"
            )
        subagent = workspace.agent.subagents[args.name]
        model, _note = resolve_model(subagent, workspace.agent, workspace.agent.config.chat.model)
        if not await confirm_model(workspace.providers.resolve, model, "subagent", yes=args.yes):
            return 1
        await start_tool_servers(workspace)
        delegation = await _delegate(workspace, args.name, args.task, auto_approve=args.yes)
    finally:
        await workspace.aclose()
    if args.json:
        usage = delegation.usage
        print(
            json.dumps(
                {
                    "result": delegation.result,
                    "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
                    "transcript_id": delegation.child_session_id,
                    "stopped_by": delegation.stopped_by or None,
                    "turns": delegation.turns,
                    "elapsed_seconds": delegation.elapsed_seconds,
                    "model": delegation.model,
                    "note": delegation.note,
                    # What produced the result: the model (after which tools), or a tool's result
                    # shown as it is; and whether any tool call returned something.
                    "produced_by": delegation.provenance.line() if delegation.provenance else None,
                    "grounded": delegation.provenance.grounded if delegation.provenance else None,
                },
                indent=2,
                ensure_ascii=False,
            )
        )
    else:
        print(delegation.result)
        tokens = delegation.usage.total
        ended = f"stopped: {delegation.note}" if delegation.stopped_by else "finished"
        produced = f"; produced by {delegation.provenance.line()}" if delegation.provenance else ""
        print(
            f"[{delegation.subagent} {ended}{produced}; {delegation.turns} turns, {tokens:,} tokens, "
            f"{delegation.elapsed_seconds:.1f} s; transcript: contextdesk sessions show "
            f"{delegation.child_session_id}]",
            file=sys.stderr,
        )
    return 1 if delegation.stopped_by == "error" else 0


async def _delegate(workspace: Workspace, name: str, task: str, *, auto_approve: bool) -> Delegation:
    from agent_core.cli.chat_command import ask_approval, subagent_line

    delegation: Delegation | None = None
    events = run_directly(workspace.agent, workspace.store, workspace.chat_services, name, task)
    async for event in events:
        if isinstance(event, Delegation):
            delegation = event
        elif isinstance(event, ApprovalRequest):
            event.decide(ApprovalDecision.ALLOW_ONCE if auto_approve else await ask_approval(event))
        elif isinstance(event, SubagentStarted | SubagentFinished) and event.origin:
            print(f"[{subagent_line(event)}]", file=sys.stderr)  # a sub-agent of the sub-agent
        elif isinstance(event, SubagentProgress) and event.activity and not event.origin:
            print(f"[{name}: {event.activity}]", file=sys.stderr)
    assert delegation is not None
    return delegation
