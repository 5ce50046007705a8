"""``contextdesk agent learned DIR``: what selection learned from your corrections, and forgetting it."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from agent_core.agent.loader import load_agent
from agent_core.context.learned import LearnedSelections, ref_of_key
from agent_core.errors import ContextDeskError
from agent_core.paths import user_dirs

__all__ = ["add_parser"]


def add_parser(commands: Any) -> None:
    learned = commands.add_parser(
        "learned",
        help="what selection learned from the items you added and removed in chats",
        description="An agent-mode item you add to a chat right after a message was needed and missed; "
        "one you remove from a reply was not needed. A later message much like that one gets (or does "
        "not get) the item. This lists those corrections; --clear forgets them.",
    )
    learned.add_argument("dir", type=Path, help="the agent folder")
    learned.add_argument(
        "--clear",
        nargs="?",
        const="",
        metavar="ITEM",
        help="forget every correction, or only those of ITEM (rule:NAME, reference:NAME, tool:SERVER/NAME)",
    )
    learned.add_argument("--json", action="store_true", help="print JSON")
    learned.set_defaults(handler=run_learned)


def run_learned(args: argparse.Namespace) -> int:
    agent = load_agent(args.dir)
    store = LearnedSelections(user_dirs().database)
    try:
        if args.clear is not None:
            ref = None
            if args.clear:
                ref = ref_of_key(args.clear)
                if ref is None:
                    raise ContextDeskError(
                        f"{args.clear!r} is not an item: write rule:NAME, reference:NAME or tool:SERVER/NAME"
                    )
            forgotten = store.clear(str(agent.root), ref)
            what = f" of {args.clear}" if args.clear else ""
            print(f"Forgot {forgotten} correction(s){what}; selection is as it was before them.")
            return 0
        corrections = store.corrections(str(agent.root))
    finally:
        store.close()
    if args.json:
        print(
            json.dumps(
                [
                    {
                        "item": c.ref.key,
                        "message": c.message,
                        "needed": c.added,
                        "session_id": c.session_id or None,
                        "at": c.created_at,
                    }
                    for c in corrections
                ],
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    if not corrections:
        print(
            "Nothing learned yet. Add an item to a chat right after a message that needed it (or remove "
            "one a reply did not need), and selection remembers it for messages like that one."
        )
        return 0
    for c in corrections:
        day = time.strftime("%Y-%m-%d", time.localtime(c.created_at))
        verb = "needed" if c.added else "not needed"
        message = " ".join(c.message.split())
        print(f"{day}  {c.ref.key:<40} {verb:<11} “{message[:80]}{'…' if len(message) > 80 else ''}”")
    print(f"\n{len(corrections)} correction(s); `contextdesk agent learned {args.dir} --clear` forgets them.")
    return 0
