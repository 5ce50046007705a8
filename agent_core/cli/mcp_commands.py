"""``contextdesk mcp call|login|ping|resources|prompts``: try an agent's MCP servers from the command line."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core.agent import Agent, load_agent
from agent_core.agent.schema import McpServerConfig
from agent_core.agent.server_trust import TrustGate
from agent_core.agent.variables import VariableContext, variables_for
from agent_core.chat.resolved_model import ModelResolver
from agent_core.chat.sampling_answers import ChatSampling
from agent_core.cli import oauth_secret_command
from agent_core.cli.input_prompt import ask_in_terminal
from agent_core.cli.media_files import SavedMedia, save_media
from agent_core.cli.sampling_prompt import terminal_sampling_events
from agent_core.cli.trust_prompt import confirm_servers
from agent_core.context.skill_server import agent_servers
from agent_core.errors import ContextDeskError
from agent_core.providers.pool import ProviderPool
from agent_core.sampling_router import SamplingHandler, SamplingRouter

if TYPE_CHECKING:
    from agent_core.mcp import McpManager, ToolResult

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("mcp", help="try an agent's MCP servers: call a tool, ping")
    commands = parser.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)

    call = commands.add_parser(
        "call",
        help="start one server, run one tool (typing it is the approval: no question), print the result",
    )
    call.add_argument("dir", type=Path, help="the agent folder")
    call.add_argument("server")
    call.add_argument("tool")
    call.add_argument(
        "--args", default="{}", metavar="JSON", help='the arguments, e.g. \'{"timezone": "UTC"}\''
    )
    call.add_argument("--json", action="store_true", help="print the whole result as JSON")
    call.add_argument(
        "--yes",
        action="store_true",
        help="approve the server's sampling requests without asking; a server's form or link is declined, never filled in",
    )
    call.add_argument(
        "--save-dir",
        type=Path,
        default=Path(),
        metavar="DIR",
        help="where images and audio in the result are saved (default: the current folder; "
        "files are named after the tool and never overwritten)",
    )
    call.add_argument("--no-browser", action="store_true", help=_NO_BROWSER_HELP)
    call.set_defaults(handler=run_call)

    login = commands.add_parser("login", help="sign in to a server that uses OAuth, and keep the sign-in")
    login.add_argument("dir", type=Path, help="the agent folder")
    login.add_argument("server")
    login.add_argument("--no-browser", action="store_true", help=_NO_BROWSER_HELP)
    login.set_defaults(handler=run_login)

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

    oauth_secret_command.register(commands)


_NO_BROWSER_HELP = (
    "for a server that asks you to sign in: print the sign-in URL and wait for it to come back to "
    "127.0.0.1, without asking (open it in any browser that reaches this machine)"
)


def _terminal_sampling(
    agent: Agent, tool: str, *, auto_approve: bool
) -> tuple[SamplingRouter, SamplingHandler, ProviderPool]:
    """The server's sampling requests during the call, answered by the agent's chat model once
    the user approves at the terminal (or ``--yes`` did)."""
    providers = ProviderPool(agent)
    sampling = ChatSampling(
        ModelResolver(providers.resolve), agent.config.chat, agent.config.mcp_servers, allowed_servers=set()
    )
    handler = sampling.handler("", tool, terminal_sampling_events(auto_approve=auto_approve))
    return SamplingRouter(), handler, providers


def _variables(agent: Agent) -> VariableContext:
    """Variables as the servers see them; an ``${input:id}`` without a value is asked for here."""
    return variables_for(agent, ask_input=ask_in_terminal)


def _asked_trust(agent: Agent, servers: Mapping[str, McpServerConfig]) -> TrustGate:
    """The trust gate of ``agent``, after asking in the terminal about each server not trusted yet."""
    gate = TrustGate(agent.root)
    confirm_servers(gate, servers)
    return gate


def _check_server(agent: Agent, server: str) -> None:
    if server not in agent_servers(agent):
        known = ", ".join(agent_servers(agent)) or "none"
        raise ContextDeskError(f"the agent has no MCP server named '{server}' (servers: {known})")


def run_call(args: argparse.Namespace) -> int:
    from agent_core.cli.elicitation_prompt import TerminalElicitation
    from agent_core.cli.progress_lines import ProgressPrinter
    from agent_core.cli.sign_in_prompt import TerminalSignIn
    from agent_core.mcp import McpManager, ServerState
    from agent_core.mcp.roots import agent_roots
    from agent_core.tools.progress import listening_to_progress

    agent = load_agent(args.dir)
    _check_server(agent, args.server)
    if args.save_dir.exists() and not args.save_dir.is_dir():
        raise ContextDeskError(
            f"--save-dir {args.save_dir} is a file: give a folder (it is created if missing)"
        )
    try:
        arguments = json.loads(args.args)
    except json.JSONDecodeError as error:
        raise ContextDeskError(
            f"--args is not valid JSON ({error.msg}): quote it, e.g. --args '{{\"a\": 1}}'"
        ) from None
    if not isinstance(arguments, dict):
        raise ContextDeskError("--args must be a JSON object, e.g. --args '{\"a\": 1}'")

    async def call() -> Any:
        servers = {args.server: agent_servers(agent)[args.server]}
        router, handler, providers = _terminal_sampling(agent, args.tool, auto_approve=args.yes)
        try:
            async with McpManager(
                servers,
                references_source=lambda: agent.references,
                skills_source=lambda: agent.skills,
                variables=_variables(agent),
                sampling=router,
                elicitation=TerminalElicitation(assume_yes=args.yes),
                sign_in=TerminalSignIn(assume_yes=args.yes, no_browser=args.no_browser),
                roots=agent_roots(agent.config),
                trust=_asked_trust(agent, servers),
            ) as manager:
                status = manager.status(args.server)
                if status.state is not ServerState.READY and status.reason:
                    raise ContextDeskError(status.reason)
                with (
                    router.handling(args.server, handler),
                    listening_to_progress(ProgressPrinter(f"{args.server}.{args.tool}", sys.stderr)),
                ):
                    return await manager.call_tool(args.server, args.tool, arguments)
        finally:
            await providers.aclose()

    result = asyncio.run(call())
    saved = save_media(result.content, args.save_dir, args.tool)
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
                    "structuredProblem": result.structured_problem,
                    "uiResourceUri": result.ui_resource_uri,
                    "savedFiles": [str(s.path) for s in saved if s.path is not None],
                },
                indent=2,
                ensure_ascii=False,
                default=str,
            )
        )
    else:
        _print_result(result, saved)
        if result.ui_resource_uri is not None:
            from agent_core.cli.app_notes import ui_available

            print(ui_available(result.server, result.tool, result.ui_resource_uri), file=sys.stderr)
    return 1 if result.is_error else 0


def _print_result(result: ToolResult, saved: list[SavedMedia]) -> None:
    """The model's text of the result, then its structured content as pretty JSON, then where
    its images and audio went."""
    from agent_core.mcp._structured import wraps_text

    out = sys.stderr if result.is_error else sys.stdout
    text = "\n".join(p.describe() for p in result.content) if result.content else result.text
    if text:
        print(text, file=out)
    if result.structured is not None and not wraps_text(result.structured, text):
        print("Structured content:", file=out)
        print(json.dumps(result.structured, indent=2, ensure_ascii=False, default=str), file=out)
    if result.structured_problem:
        print(f"The structured content is not valid: {result.structured_problem}", file=sys.stderr)
    for media in saved:
        where = f"saved to {media.path}" if media.path else media.problem
        print(f"{media.summary} {where}", file=out)


def run_login(args: argparse.Namespace) -> int:
    """Start one OAuth server, signing in if it asks; the tokens stay in the keyring for later runs."""
    from agent_core.agent.schema import StreamableHttpServerConfig
    from agent_core.cli.sign_in_prompt import TerminalSignIn
    from agent_core.mcp import McpManager, ServerState

    agent = load_agent(args.dir)
    _check_server(agent, args.server)
    config = agent_servers(agent)[args.server]
    if not isinstance(config, StreamableHttpServerConfig) or config.oauth_settings is None:
        raise ContextDeskError(
            f"MCP server '{args.server}' does not sign in with OAuth, so there is nothing to log in to. "
            "Fix: for a streamable-http server that requires sign-in, set `oauth: true` in agent.yaml."
        )

    async def login() -> tuple[ServerState, str | None, int]:
        servers = {args.server: config}
        async with McpManager(
            servers,
            variables=_variables(agent),
            sign_in=TerminalSignIn(no_browser=args.no_browser),
            trust=_asked_trust(agent, servers),
        ) as manager:
            status = manager.status(args.server)
            return status.state, status.reason, status.tool_count

    state, reason, tool_count = asyncio.run(login())
    if state is not ServerState.READY:
        raise ContextDeskError(reason or f"MCP server '{args.server}' is {state.value}")
    print(f"Signed in to MCP server '{args.server}': it is ready, with {tool_count} tools.")
    return 0


def run_ping(args: argparse.Namespace) -> int:
    from agent_core.mcp import McpManager, McpServerError, ServerState
    from agent_core.mcp.roots import agent_roots

    agent = load_agent(args.dir)
    names = args.servers or list(agent_servers(agent))
    for name in names:
        _check_server(agent, name)

    async def ping() -> int:
        failures = 0
        servers = {name: agent_servers(agent)[name] for name in names}
        async with McpManager(
            servers,
            references_source=lambda: agent.references,
            skills_source=lambda: agent.skills,
            variables=_variables(agent),
            roots=agent_roots(agent.config),
            trust=_asked_trust(agent, servers),
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
    from agent_core.mcp.roots import agent_roots

    agent = load_agent(args.dir)
    names = args.servers or list(agent_servers(agent))
    for name in names:
        _check_server(agent, name)

    async def listing() -> None:
        servers = {name: agent_servers(agent)[name] for name in names}
        async with McpManager(
            servers,
            references_source=lambda: agent.references,
            skills_source=lambda: agent.skills,
            variables=_variables(agent),
            roots=agent_roots(agent.config),
            trust=_asked_trust(agent, servers),
        ) as manager:
            for name in names:
                try:
                    print("\n".join(await lines(manager, name)))
                except McpServerError as error:
                    print(f"{name}: {error}", file=sys.stderr)

    asyncio.run(listing())
    return 0
