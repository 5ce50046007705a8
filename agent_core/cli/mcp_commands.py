"""``contextdesk mcp call|ping|resources|prompts``: try an agent's MCP servers from the command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core.agent import Agent, load_agent
from agent_core.agent.variables import VariableContext, variables_for
from agent_core.cli.input_prompt import ask_in_terminal
from agent_core.errors import ContextDeskError

if TYPE_CHECKING:
    from agent_core.mcp import McpManager

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("mcp", help="try an agent's MCP servers: call a tool, ping")
    commands = parser.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)

    call = commands.add_parser("call", help="start one server, run one tool, print the result")
    call.add_argument("dir", type=Path, help="the agent folder")
    call.add_argument("server")
    call.add_argument("tool")
    call.add_argument(
        "--args", default="{}", metavar="JSON", help='the arguments, e.g. \'{"timezone": "UTC"}\''
    )
    call.add_argument("--json", action="store_true", help="print the whole result as JSON")
    call.set_defaults(handler=run_call)

    ping = commands.add_parser("ping", help="start servers (all by default) and time a round trip to each")
    ping.add_argument("dir", type=Path, help="the agent folder")
    ping.add_argument("servers", nargs="*", metavar="SERVER")
    ping.set_defaults(handler=run_ping)

    resources = commands.add_parser("resources", help="list the resources the servers offer")
    resources.add_argument("dir", type=Path, help="the agent folder")
    resources.add_argument("servers", nargs="*", metavar="SERVER")
    resources.set_defaults(handler=run_resources)

    prompts = commands.add_parser("prompts", help="list the prompts the servers offer")
    prompts.add_argument("dir", type=Path, help="the agent folder")
    prompts.add_argument("servers", nargs="*", metavar="SERVER")
    prompts.set_defaults(handler=run_prompts)


def _variables(agent: Agent) -> VariableContext:
    """Variables as the servers see them; an ``${input:id}`` without a value is asked for here."""
    return variables_for(agent, ask_input=ask_in_terminal)


def _check_server(agent: Agent, server: str) -> None:
    if server not in agent.config.mcp_servers:
        known = ", ".join(agent.config.mcp_servers) or "none"
        raise ContextDeskError(f"the agent has no MCP server named '{server}' (servers: {known})")


def run_call(args: argparse.Namespace) -> int:
    from agent_core.cli.progress_lines import ProgressPrinter
    from agent_core.mcp import McpManager, ServerState
    from agent_core.tool_progress import listening_to_progress

    agent = load_agent(args.dir)
    _check_server(agent, args.server)
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as error:
        raise ContextDeskError(
            f"--args is not valid JSON ({error.msg}): quote it, e.g. --args '{{\"a\": 1}}'"
        ) from None
    if not isinstance(arguments, dict):
        raise ContextDeskError("--args must be a JSON object, e.g. --args '{\"a\": 1}'")

    async def call() -> Any:
        servers = {args.server: agent.config.mcp_servers[args.server]}
        async with McpManager(
            servers, references_source=lambda: agent.references, variables=_variables(agent)
        ) as manager:
            status = manager.status(args.server)
            if status.state is not ServerState.READY and status.reason:
                raise ContextDeskError(status.reason)
            with listening_to_progress(ProgressPrinter(f"{args.server}.{args.tool}", sys.stderr)):
                return await manager.call_tool(args.server, args.tool, arguments)

    result = asyncio.run(call())
    if args.json:
        print(
            json.dumps(
                {
                    "server": result.server,
                    "tool": result.tool,
                    "isError": result.is_error,
                    "elapsedSeconds": round(result.elapsed_seconds, 3),
                    "text": result.text,
                    "structured": result.structured,
                },
                indent=2,
                ensure_ascii=False,
                default=str,
            )
        )
    else:
        print(result.text, file=sys.stderr if result.is_error else sys.stdout)
    return 1 if result.is_error else 0


def run_ping(args: argparse.Namespace) -> int:
    from agent_core.mcp import McpManager, McpServerError, ServerState

    agent = load_agent(args.dir)
    names = args.servers or list(agent.config.mcp_servers)
    for name in names:
        _check_server(agent, name)

    async def ping() -> int:
        failures = 0
        servers = {name: agent.config.mcp_servers[name] for name in names}
        async with McpManager(
            servers, references_source=lambda: agent.references, variables=_variables(agent)
        ) as manager:
            for status in manager.statuses():
                if status.state is not ServerState.READY:
                    failures += status.state is not ServerState.DISABLED
                    print(
                        f"{status.name}: {status.state.value}"
                        + (f": {status.reason}" if status.reason else "")
                    )
                    continue
                try:
                    seconds = await manager.ping(status.name)
                except McpServerError as error:
                    failures += 1
                    print(f"{status.name}: {error}")
                    continue
                identity = " ".join(p for p in (status.server_name, status.server_version) if p)
                print(
                    f"{status.name}: ready ({identity}), {status.tool_count} tools, ping {seconds * 1000:.1f} ms"
                )
        return failures

    return 1 if asyncio.run(ping()) else 0


def run_resources(args: argparse.Namespace) -> int:
    async def lines(manager: McpManager, server: str) -> list[str]:
        return [
            f"{server}  {r.uri}  {r.name}" + (f"  {r.description}" if r.description else "")
            for r in await manager.list_resources(server)
        ]

    return _list_per_server(args, lines)


def run_prompts(args: argparse.Namespace) -> int:
    async def lines(manager: McpManager, server: str) -> list[str]:
        out = []
        for prompt in await manager.list_prompts(server):
            arguments = " ".join(f"{a.name}{'' if a.required else '?'}=..." for a in prompt.arguments)
            out.append(f"{server}  {prompt.name} {arguments}  {prompt.description}".rstrip())
        return out

    return _list_per_server(args, lines)


def _list_per_server(
    args: argparse.Namespace, lines: Callable[[McpManager, str], Awaitable[list[str]]]
) -> int:
    """Start the named servers (all by default) and print what ``lines`` says of each."""
    from agent_core.mcp import McpManager, McpServerError

    agent = load_agent(args.dir)
    names = args.servers or list(agent.config.mcp_servers)
    for name in names:
        _check_server(agent, name)

    async def listing() -> None:
        servers = {name: agent.config.mcp_servers[name] for name in names}
        async with McpManager(
            servers, references_source=lambda: agent.references, variables=_variables(agent)
        ) as manager:
            for name in names:
                try:
                    print("\n".join(await lines(manager, name)))
                except McpServerError as error:
                    print(f"{name}: {error}", file=sys.stderr)

    asyncio.run(listing())
    return 0
