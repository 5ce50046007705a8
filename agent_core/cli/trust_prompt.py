"""Trust of an agent's MCP servers in the terminal: ``contextdesk agent trust``, and the question
``contextdesk chat`` asks before it starts a server the user has not trusted yet."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from agent_core.agent.loader import load_agent
from agent_core.agent.schema import McpServerConfig
from agent_core.agent.server_trust import TrustGate, UntrustedServer, fingerprint, launch_text, needs_trust
from agent_core.cli.input_prompt import ask_yes
from agent_core.errors import ContextDeskError
from agent_core.workflows.server_trust import servers_to_trust

__all__ = ["confirm_servers", "register_trust", "run_trust", "trust_written_server"]


def register_trust(commands: Any) -> None:
    """``contextdesk agent trust DIR [SERVER] [--json]``."""
    trust = commands.add_parser(
        "trust",
        help="trust an agent's MCP servers to start, after printing exactly what each runs",
        description="Prints the exact command line (or URL) of each MCP server of the agent in DIR "
        "(agent.yaml's and its workflows' assistants') or of SERVER only, and records that you trust it. A server starts only once trusted; if its "
        "command, arguments, environment, folder or URL change, it must be trusted again. Built-in "
        "servers need no trust.",
    )
    trust.add_argument("dir", type=Path)
    trust.add_argument("server", nargs="?", help="one server's name (default: every server)")
    trust.add_argument("--json", action="store_true", help="print JSON for scripts")
    trust.set_defaults(handler=run_trust)


def run_trust(args: argparse.Namespace) -> int:
    """Raises: ContextDeskError: no server has that name."""
    agent = load_agent(args.dir)
    servers = servers_to_trust(agent)
    if args.server is not None:
        if args.server not in servers:
            known = ", ".join(servers) or "none"
            raise ContextDeskError(
                f"there is no MCP server named '{args.server}' in {agent.root} (servers: {known}): check the name"
            )
        servers = {args.server: servers[args.server]}
    chosen = {name: config for name, config in servers.items() if needs_trust(config)}
    TrustGate(agent.root).trust(chosen)
    if args.json:
        shown = [
            {"name": name, "type": c.type, "launch": launch_text(c), "fingerprint": fingerprint(c)}
            for name, c in chosen.items()
        ]
        print(json.dumps({"agent": str(agent.root), "trusted": shown}, indent=2, ensure_ascii=False))
        return 0
    if not chosen:
        print(f"{agent.root}: no MCP server to trust (built-in servers need none)")
    for name, config in chosen.items():
        print(f"trusted {name}:\n{_indented(launch_text(config))}")
    return 0


def trust_written_server(agent_dir: Path, key: str) -> None:
    """After ``agent set DIR mcpServers.NAME VALUE``: the server the user wrote whole is trusted as
    written (setting one key of it, such as ``args``, trusts nothing: the rest was not typed here)."""
    prefix, _, name = key.partition(".")
    if prefix != "mcpServers" or not name or "." in name:
        return
    agent = load_agent(agent_dir)
    if (config := agent.config.mcp_servers.get(name)) is not None:
        TrustGate(agent.root).trust({name: config})


def confirm_servers(
    gate: TrustGate, servers: Mapping[str, McpServerConfig], *, err: TextIO | None = None
) -> list[UntrustedServer]:
    """Ask about each server of ``servers`` the user has not trusted, showing exactly what it runs
    (y/N, no by default); without a terminal nothing is asked. Returns the servers left untrusted,
    after saying how to trust each."""
    err = err or sys.stderr
    left: list[UntrustedServer] = []
    for server in gate.untrusted(servers):
        print(
            f"contextdesk: the MCP server '{server.name}' of {gate.agent_root} is not trusted yet. It runs:\n"
            f"{_indented(server.launch)}",
            file=err,
        )
        if ask_yes("Trust it and start it? [y/N] ", err):
            gate.trust({server.name: server.config})
            continue
        print(f"contextdesk: {server.name}: {gate.held_reason(server.name)}", file=err)
        left.append(server)
    return left


def _indented(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())
