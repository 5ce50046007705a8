"""``contextdesk mcp set-secret``: keep a remote server's OAuth secret in the system keyring.

The value is typed without echo (or read from a file, or piped in); it never goes to agent.yaml,
the shell history or the output.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from pathlib import Path
from typing import Any

from agent_core.agent import load_agent
from agent_core.agent.schema import StreamableHttpServerConfig
from agent_core.agent.variables import variables_for
from agent_core.cli.input_prompt import ask_in_terminal
from agent_core.errors import ContextDeskError

__all__ = ["register"]

_KINDS = {
    "client-secret": "the OAuth client secret (oauth.clientId's)",
    "private-key": "a PEM private key that signs the client's JWT (client-credentials, private_key_jwt)",
    "idp-id-token": "your identity provider's ID token (cross-app access)",
}


def register(commands: Any) -> None:
    """Adds ``set-secret`` to the ``mcp`` command's actions."""
    secret = commands.add_parser(
        "set-secret",
        help="keep a remote server's OAuth secret (client secret, private key, ID token) in the system keyring",
    )
    secret.add_argument("dir", type=Path, help="the agent folder")
    secret.add_argument("server")
    secret.add_argument(
        "kind", choices=sorted(_KINDS), help="; ".join(f"{kind}: {what}" for kind, what in _KINDS.items())
    )
    secret.add_argument(
        "--from-file",
        type=Path,
        metavar="PATH",
        help="read the value from this file (e.g. a key.pem) instead of typing it",
    )
    secret.add_argument("--clear", action="store_true", help="forget the stored value")
    secret.set_defaults(handler=run_set_secret)


def _value(args: argparse.Namespace) -> str:
    from agent_core.mcp.oauth_storage import MAX_STORED_CHARS

    if args.clear:
        return ""
    if args.from_file is not None:
        try:
            with args.from_file.open(encoding="utf-8") as file:
                text = file.read(MAX_STORED_CHARS + 1)
        except (OSError, UnicodeDecodeError) as error:
            raise ContextDeskError(
                f"cannot read {args.from_file} ({type(error).__name__}): give a readable text file"
            ) from error
    elif sys.stdin.isatty():
        text = getpass.getpass(f"{args.kind} for {args.server} (not shown): ")
    else:
        text = sys.stdin.read(MAX_STORED_CHARS + 1)
    value: str = text.strip() if args.kind != "private-key" else text.strip() + "\n"
    if not value.strip():
        raise ContextDeskError(
            f"no {args.kind} was given: type it, pipe it in or use --from-file (--clear forgets it)"
        )
    if len(value) > MAX_STORED_CHARS:
        raise ContextDeskError(
            f"the {args.kind} is over {MAX_STORED_CHARS:,} characters: check what was given"
        )
    return value


def run_set_secret(args: argparse.Namespace) -> int:
    from agent_core.mcp.oauth import store_secret

    agent = load_agent(args.dir)
    config = agent.config.mcp_servers.get(args.server)
    if not isinstance(config, StreamableHttpServerConfig):
        remote = [
            name for name, c in agent.config.mcp_servers.items() if isinstance(c, StreamableHttpServerConfig)
        ]
        raise ContextDeskError(
            f"the agent has no streamable-http server named '{args.server}' (such servers: "
            f"{', '.join(remote) or 'none'}): OAuth secrets are for those"
        )
    store_secret(
        args.server, config, args.kind, _value(args), variables_for(agent, ask_input=ask_in_terminal)
    )
    done = "forgotten" if args.clear else "stored in the system keyring"
    print(f"{args.server}: {args.kind} {done}.", file=sys.stderr)
    return 0
