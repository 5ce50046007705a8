"""``contextdesk index``: embed every tier of an agent's agent-mode items now, so that selection
judges each of them whole.

A large agent's first selection embeds only names, descriptions and examples and judges items on
them (docs/selection.md, "Indexing in tiers"); this command embeds the bodies too. The vectors go
to the content-addressed embedding cache the app and ``contextdesk select`` share, a slice at a
time: a run cut short keeps every slice it finished, and the next run embeds only the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["register", "run_index"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "index",
        help="embed an agent's agent-mode items whole, so selection never judges one on its description",
        description="Embeds the name, description, examples and body of every agent-mode rule, reference "
        "and skill of the agent into the embedding cache the app and `contextdesk select` share. Until "
        "then, a large agent's selections judge items on their description only. Tools are left out: "
        "listing them means starting the agent's MCP servers, and a tool has no body to wait for (a "
        "selection embeds its one or two chunks at once). Progress goes to stderr. A run cut short "
        "keeps what it embedded and the next one goes on from there; a run with nothing new embeds "
        "nothing.",
    )
    parser.add_argument("--agent", type=Path, required=True, help="agent folder")
    parser.add_argument(
        "--strategy",
        choices=("hybrid", "anchor"),
        help="the ranking strategy to index for (default: the agent's selection.strategy)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(handler=run_index)


def run_index(args: argparse.Namespace) -> int:
    """``contextdesk index``; the embedding model loads while the agent is read.

    Raises:
        ContextDeskError: the agent folder cannot be read, or the model cannot load or embed.
    """
    from agent_core.context.embedding_model import configured_indexer
    from agent_core.paths import user_dirs

    indexer = configured_indexer(user_dirs().embeddings_cache)
    indexer.start_loading()
    from agent_core.agent import load_agent
    from agent_core.cli.progress_lines import indexing_progress
    from agent_core.context.session_context import agent_candidates
    from agent_core.errors import ContextDeskError
    from indexer import IndexerError

    try:
        agent = load_agent(args.agent)
        documents = [candidate.document for candidate in agent_candidates(agent, (), ())]
        strategy = args.strategy or agent.config.selection.strategy
        indexer.progress = indexing_progress(sys.stderr)
        started = time.perf_counter()
        try:
            timings = indexer.index(documents, strategy)
        except IndexerError as error:
            raise ContextDeskError(f"indexing {agent.root} stopped: {error}") from error
        seconds = round(time.perf_counter() - started, 1)
    finally:
        indexer.close()
    report = {
        "items": len(documents),
        "chunks": timings.chunks,
        "embedded": timings.embedded,
        "from_cache": timings.chunks - timings.embedded,
        "seconds": seconds,
    }
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(
            f"Indexed {report['items']:,} agent-mode items of {agent.root}: {report['chunks']:,} chunks, "
            f"{report['embedded']:,} newly embedded, {report['from_cache']:,} from the cache ({seconds} s)"
        )
    return 0
