"""``contextdesk select``: what selection would choose for a message, with scores and near-misses.

Only the argument parser lives here. The embedding model starts loading before the rest of the
command is imported (``select_run``: pydantic, the agent schema), so the two overlap: a second
start on a cached agent answers in well under a second.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

__all__ = ["register", "run_select"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "select",
        help="show which agent-mode items would be selected for a message",
        description="Runs the same selection a chat runs for a new message: agent-mode rules, references "
        "and tools, ranked against MESSAGE, with scores and the near-misses left out. On a large agent "
        "whose bodies are not indexed yet, items are judged on their name, description and examples "
        "(the output says which); `contextdesk index --agent DIR` indexes them whole.",
    )
    parser.add_argument("message", nargs="?", help="the user message (omit with --batch)")
    parser.add_argument("--agent", type=Path, required=True, help="agent folder")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--no-learned",
        action="store_true",
        help="ignore what selection learned from your corrections (`contextdesk agent learned`)",
    )
    parser.add_argument("--top-k", type=int, help="chunk matches considered (default: the agent's)")
    parser.add_argument("--top-n", type=int, help="items selected below includeScore")
    parser.add_argument("--include-score", type=float, help="items at or above are always selected")
    parser.add_argument("--strategy", choices=("hybrid", "anchor"), help="ranking strategy")
    parser.add_argument("--min-score", type=float, help="score floor (hybrid)")
    parser.add_argument("--previous", help="the user's previous message, for short follow-ups")
    parser.add_argument(
        "--tools",
        type=Path,
        help="JSON file listing tools ([{server, name, description, inputSchema}]) instead of starting the "
        "agent's MCP servers; include modes come from the agent's mcpServers settings, or 'agent' for "
        "servers it does not configure",
    )
    parser.add_argument("--no-tools", action="store_true", help="leave tools out (do not start MCP servers)")
    parser.add_argument("--no-memory", action="store_true", help="leave long-term memories out")
    parser.add_argument(
        "--server-timeout", type=float, default=20.0, help="seconds to wait for each MCP server (default 20)"
    )
    parser.add_argument(
        "--batch",
        type=Path,
        help='JSON-lines file of {"id": ..., "message": ..., "previous"?: ...}; one JSON line out each',
    )
    parser.set_defaults(handler=run_select)


def run_select(args: argparse.Namespace) -> int:
    from agent_core.context.embedding_model import configured_indexer
    from agent_core.paths import user_dirs

    indexer = configured_indexer(user_dirs().embeddings_cache)
    indexer.start_loading()
    from agent_core.cli import select_run
    from agent_core.context.selection import ContextSelector

    # The command exits once it has answered: a large agent's bodies are left to `contextdesk index`.
    selector = ContextSelector(indexer, model_wait_seconds=120.0, bodies_in_background=False)
    return select_run.run_select(args, selector)
