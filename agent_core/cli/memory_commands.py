"""``contextdesk memory add|import|list|show|history|forget|restore|accept|reject|edit|pin|unpin|export|delete-all``."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from agent_core.errors import ContextDeskError

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "memory",
        help="see, add, correct and forget long-term memories",
        description="Long-term memories of an agent: facts about you and your work that outlive a chat. "
        "They are kept in ContextDesk's database (never in the agent folder) and recalled per message.",
    )
    commands = parser.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    def command(name: str, help_text: str, handler: Any, *, with_id: bool = False) -> argparse.ArgumentParser:
        sub: argparse.ArgumentParser = commands.add_parser(name, help=help_text)
        sub.add_argument("--agent", type=Path, required=True, help="agent folder")
        sub.add_argument("--json", action="store_true", help="print JSON")
        if with_id:
            sub.add_argument("id", help="the memory's id (see `memory list`)")
        sub.set_defaults(handler=handler)
        return sub

    add = command("add", "save a memory (duplicates merge; a conflicting one supersedes the old)", run_add)
    add.add_argument("--scope", choices=("agent", "global"), help="default: the agent's memory.defaultScope")
    add.add_argument(
        "--kind", default="fact", help="fact, preference, person, project, event... (default fact)"
    )
    add.add_argument("--importance", type=int, default=3, help="1-5 (default 3)")
    add.add_argument("--tier", choices=("pinned", "long", "short"), default="long")
    add.add_argument("--expires", help="YYYY-MM-DD: not recalled after this day")
    add.add_argument(
        "--keep-both",
        action="store_true",
        help="keep a conflicting older memory active instead of superseding it",
    )
    add.add_argument("text", help="the memory, in your words")

    imp = command("import", "add memories from a JSON-lines file", run_import)
    imp.add_argument(
        "file", type=Path, help="JSONL: one {id, text, kind?, importance?, scope?, created_at?, ...} a line"
    )

    listing = command("list", "the agent's memories (active and proposed; --all for every status)", run_list)
    listing.add_argument(
        "--all", action="store_true", help="also superseded, expired, rejected and forgotten"
    )
    listing.add_argument("--status", action="append", help="only this status (repeatable)")
    listing.add_argument("--search", default="", help="only memories containing this text")

    command("show", "one memory in full", run_show, with_id=True)
    command("history", "every change to a memory", run_history, with_id=True)
    command("forget", "stop recalling a memory (restorable until purged)", run_forget, with_id=True)
    command(
        "restore",
        "make a forgotten, expired, rejected or superseded memory active again",
        run_restore,
        with_id=True,
    )
    command("accept", "accept a proposed memory", run_accept, with_id=True)
    command("reject", "reject a proposed memory", run_reject, with_id=True)
    command("pin", "recall a memory in every request", run_pin, with_id=True)
    command("unpin", "recall a pinned memory only when it matches", run_unpin, with_id=True)
    edit = command(
        "edit", "new words or details for a memory (the history keeps the old ones)", run_edit, with_id=True
    )
    edit.add_argument("text", nargs="?", help="the new words (omit to change only details)")
    edit.add_argument("--kind")
    edit.add_argument("--importance", type=int)
    edit.add_argument("--scope", choices=("agent", "global"))
    edit.add_argument("--expires", help="YYYY-MM-DD")

    export = command("export", "write the memories as JSON lines (re-importable)", run_export)
    export.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    export.add_argument("--active", action="store_true", help="only active memories")

    delete = command("delete-all", "delete this agent's memories for good (global ones stay)", run_delete_all)
    delete.add_argument("--yes", action="store_true", help="required: confirms the deletion")


@contextmanager
def _book(args: argparse.Namespace) -> Iterator[Any]:
    from agent_core.memory.opening import open_memory_book

    with open_memory_book(args.agent) as book:
        yield book


def _print(args: argparse.Namespace, data: Any, text: str) -> None:
    print(
        json.dumps(data, ensure_ascii=False, indent=None if isinstance(data, dict) else 2)
        if args.json
        else text
    )


def _line(memory: Any) -> dict[str, object]:
    from agent_core.memory.jsonl import memory_line

    return memory_line(memory)


def _short(memory: Any) -> str:
    flags = "" if memory.status == "active" else f" [{memory.status}]"
    pinned = " (pinned)" if memory.tier == "pinned" else ""
    return f"{memory.id}  {memory.kind:<11} {memory.scope:<6} imp {memory.importance}{pinned}{flags}  {memory.text}"


def run_add(args: argparse.Namespace) -> int:
    from agent_core.memory.book import MemoryDraft
    from agent_core.memory.jsonl import parse_time
    from agent_core.memory.records import Provenance

    try:
        expires = parse_time(args.expires) if args.expires else None
    except ValueError as error:
        raise ContextDeskError(f"--expires: {error}") from None
    with _book(args) as book:
        draft = MemoryDraft(
            text=args.text,
            kind=args.kind,
            scope=args.scope or book.config.default_scope,
            tier=args.tier,
            importance=args.importance,
            expires_at=expires,
            provenance=Provenance(speaker="user", quote=args.text),
        )
        outcome = book.add(draft, "user", on_conflict="keep_both" if args.keep_both else "supersede")
    for warning in outcome.warnings:
        print(f"Warning: {warning}; it is saved because you typed it. Forget it with "
              f"`contextdesk memory forget --agent {args.agent} {outcome.memory.id if outcome.memory else ''}`.",
              file=sys.stderr)  # fmt: skip
    memory = outcome.memory
    data = {
        "action": outcome.action,
        "memory": _line(memory) if memory else None,
        "other": _line(outcome.other) if outcome.other else None,
        "reason": outcome.reason,
        "warnings": list(outcome.warnings),
    }
    text = {
        "added": f"Saved {memory.id if memory else ''}: {args.text}",
        "merged": f"Already known as {memory.id if memory else ''} ({outcome.reason}): counted once more, nothing added.",
        "superseded": f"Saved {memory.id if memory else ''}; it supersedes {outcome.other.id if outcome.other else ''} "
        f"({outcome.other.text if outcome.other else ''!r}, {outcome.reason}), which is kept but no longer recalled. "
        f"Undo with `contextdesk memory restore --agent {args.agent} {outcome.other.id if outcome.other else ''}`.",
    }.get(outcome.action, f"{outcome.action}: {outcome.reason}")
    _print(args, data, text)
    return 0


def run_import(args: argparse.Namespace) -> int:
    from agent_core.cli.memory_import import run_import as run

    return run(args)


def _warn_about_pins(book: Any) -> None:
    from agent_core.memory.recall import pins_over_budget_warning

    warning = pins_over_budget_warning(book.find(statuses=("active",)), book.config.max_tokens)
    if warning:
        print(f"Warning: {warning}", file=sys.stderr)


def run_list(args: argparse.Namespace) -> int:
    statuses = None if args.all else tuple(args.status or ("active", "proposed"))
    with _book(args) as book:
        memories = book.find(statuses=statuses, text=args.search)
        _warn_about_pins(book)
    if args.json:
        print(json.dumps([_line(m) for m in memories], ensure_ascii=False, indent=2))
    else:
        print(
            "\n".join(_short(m) for m in memories)
            if memories
            else "No memories yet: add one with `contextdesk memory add`."
        )
    return 0


def run_show(args: argparse.Namespace) -> int:
    with _book(args) as book:
        memory = book.get(args.id)
    line = _line(memory)
    _print(args, line, "\n".join(f"{key}: {value}" for key, value in line.items()))
    return 0


def run_history(args: argparse.Namespace) -> int:
    from datetime import UTC, datetime

    with _book(args) as book:
        events = book.history(args.id)
    data = [
        {"event": e.event, "actor": e.actor, "at": datetime.fromtimestamp(e.at, UTC).isoformat(), "old_text": e.old_text,
         "new_text": e.new_text, "detail": e.detail}
        for e in events
    ]  # fmt: skip
    text = "\n".join(
        f"{d['at'][:19]}  {d['event']:<10} by {d['actor']:<9} "
        + (
            f"{d['old_text']!r} → {d['new_text']!r} "
            if d["old_text"]
            else f"{d['new_text']!r} "
            if d["new_text"]
            else ""
        )
        + str(d["detail"])
        for d in data
    )
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        print(text)
    return 0


def _verb(args: argparse.Namespace, method: str, done: str, **kwargs: Any) -> int:
    with _book(args) as book:
        memory = getattr(book, method)(args.id, **kwargs)
        if method in ("pin", "restore", "accept"):
            _warn_about_pins(book)
    _print(args, _line(memory), f"{done} {memory.id}: {memory.text}")
    return 0


def run_forget(args: argparse.Namespace) -> int:
    return _verb(args, "forget", "Forgotten (restore with `memory restore`)")


def run_restore(args: argparse.Namespace) -> int:
    return _verb(args, "restore", "Restored")


def run_accept(args: argparse.Namespace) -> int:
    return _verb(args, "accept", "Accepted")


def run_reject(args: argparse.Namespace) -> int:
    return _verb(args, "reject", "Rejected")


def run_pin(args: argparse.Namespace) -> int:
    return _verb(args, "pin", "Pinned")


def run_unpin(args: argparse.Namespace) -> int:
    return _verb(args, "pin", "Unpinned", pinned=False)


def run_edit(args: argparse.Namespace) -> int:
    from agent_core.memory.jsonl import parse_time

    try:
        expires = parse_time(args.expires) if args.expires else None
    except ValueError as error:
        raise ContextDeskError(f"--expires: {error}") from None
    details = {"kind": args.kind, "importance": args.importance, "scope": args.scope, "expires_at": expires}
    if args.text is None and all(value is None for value in details.values()):
        raise ContextDeskError(
            "Give the new words, or at least one of --kind, --importance, --scope, --expires."
        )
    with _book(args) as book:
        memory = book.edit(args.id, args.text) if args.text is not None else book.get(args.id)
        if any(value is not None for value in details.values()):
            memory = book.set_details(args.id, **details)
    _print(args, _line(memory), f"Edited {memory.id}: {memory.text}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from agent_core.atomic import atomic_write_text
    from agent_core.memory.jsonl import memory_line

    with _book(args) as book:
        memories = book.find(statuses=("active",) if args.active else None)
    successor_of = {m.superseded_by: m.id for m in memories if m.superseded_by}
    ordered = sorted(memories, key=lambda m: (m.created_at, m.id))
    body = "".join(
        json.dumps(memory_line(m, successor_of.get(m.id)), ensure_ascii=False) + "\n" for m in ordered
    )
    if args.output:
        atomic_write_text(args.output, body)
        print(f"Wrote {len(ordered)} memories to {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(body)
    return 0


def run_delete_all(args: argparse.Namespace) -> int:
    if not args.yes:
        raise ContextDeskError("This deletes every memory of the agent for good: add --yes to confirm "
                               "(export them first with `contextdesk memory export`).")  # fmt: skip
    with _book(args) as book:
        count = book.delete_all()
    _print(args, {"deleted": count}, f"Deleted {count} memories.")
    return 0
