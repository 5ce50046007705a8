"""Starting an agent's tool servers in a terminal command, said as it happens.

Servers start in parallel and a command waits for them all; one that never answers holds it for
its whole ``startTimeoutSeconds`` (30 s by default). Said nothing meanwhile, a terminal looks hung.
So while they start, a line says which are still starting and for how long, and each failure is
printed when it happens, not after the slowest server gave up.
"""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

from agent_core.mcp.types import ServerState, ServerStatus
from agent_core.workspace import Workspace

__all__ = ["start_tool_servers"]

#: Seconds before the first "still starting" line, and between the next ones.
FIRST_NOTICE_SECONDS = 2.0
NEXT_NOTICE_SECONDS = 10.0


async def start_tool_servers(
    workspace: Workspace,
    *,
    stream: TextIO | None = None,
    first_notice: float = FIRST_NOTICE_SECONDS,
    next_notice: float = NEXT_NOTICE_SECONDS,
) -> list[ServerStatus]:
    """Start the agent's servers (:meth:`Workspace.start_tools`), printing to ``stream`` (stderr)
    the servers still starting while they keep the command waiting, and each failure once."""
    out = stream or sys.stderr
    starting = asyncio.ensure_future(workspace.start_tools())
    told: set[str] = set()
    waited, interval = 0.0, first_notice
    while True:
        try:
            statuses = await asyncio.wait_for(asyncio.shield(starting), timeout=interval)
        except TimeoutError:
            waited += interval
            interval = next_notice
            current = workspace.mcp.statuses() if workspace.mcp is not None else []
            _tell_failures(current, told, out)
            waiting = [status.name for status in current if status.state is ServerState.STARTING]
            if waiting:
                print(
                    f"[tools: waiting for {', '.join(waiting)} to start ({waited:.0f} s so far; a "
                    "server gives up after its startTimeoutSeconds in agent.yaml)]",
                    file=out,
                    flush=True,
                )
            continue
        _tell_failures(statuses, told, out)
        return statuses


def _tell_failures(statuses: list[ServerStatus], told: set[str], out: TextIO) -> None:
    for status in statuses:
        if status.state is ServerState.FAILED and status.name not in told:
            told.add(status.name)
            print(f"[tools: {status.name} failed: {status.reason}]", file=out, flush=True)
