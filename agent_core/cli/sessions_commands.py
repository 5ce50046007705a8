"""``contextdesk sessions list|show|export|search|repair``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from agent_core.atomic import atomic_write_text
from agent_core.errors import ContextDeskError
from agent_core.memory.store import MemoryStore
from agent_core.paths import user_dirs
from agent_core.store.chats import ChatStore, StoredMessage, StoredSession
from agent_core.store.export import describe_context, export_json, export_markdown
from agent_core.store.salvage import repair_database

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("sessions", help="list, show, export and search saved chats")
    commands = parser.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)

    listing = commands.add_parser("list", help="saved chats, most recent first")
    listing.add_argument("--json", action="store_true")
    listing.set_defaults(handler=run_list)

    show = commands.add_parser("show", help="a chat's messages with the context each reply used")
    show.add_argument("id")
    show.set_defaults(handler=run_show)

    export = commands.add_parser("export", help="write a chat as Markdown or JSON")
    export.add_argument("id")
    export.add_argument("--format", choices=("md", "json"), default="md")
    export.add_argument("-o", "--output", type=Path, help="file to write (default: standard output)")
    export.set_defaults(handler=run_export)

    search = commands.add_parser("search", help="full-text search over all messages")
    search.add_argument("text")
    search.set_defaults(handler=run_search)

    repair = commands.add_parser(
        "repair",
        help="copy what a damaged chat database still holds into a new one (the old file is kept)",
    )
    repair.set_defaults(handler=run_repair)


def _session(store: ChatStore, session_id: str) -> StoredSession:
    """A chat by its id or the start of it (a sub-agent's chat only by its whole id)."""
    session = store.session(session_id)
    if session is None:
        matches = [s for s in store.sessions() if s.id.startswith(session_id)]
        if len(matches) == 1:
            return matches[0]
        if store.damage is not None:
            raise ContextDeskError(f"the saved chat {session_id} cannot be read: {store.damage}")
        raise ContextDeskError(f"no saved chat has the id {session_id}: see `contextdesk sessions list`")
    return session


def _damage_notice(store: ChatStore) -> int:
    """Exit code 1 with a note on stderr when a read skipped a damaged part of the database."""
    if store.damage is None:
        return 0
    print(f"contextdesk: only what could be read is shown: {store.damage}", file=sys.stderr)
    return 1


def run_list(args: argparse.Namespace) -> int:
    store = ChatStore()
    sessions = store.sessions()
    if args.json:
        print(
            json.dumps(
                [
                    {"id": s.id, "title": s.title, "agent": s.agent_path, "updated": s.updated_at}
                    for s in sessions
                ],
                indent=2,
            )
        )
        return _damage_notice(store)
    if not sessions and store.damage is None:
        print("No saved chats yet. Start one with `contextdesk chat`.")
    for session in sessions:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(session.updated_at))
        print(f"{session.id}  {when}  {session.title or '(untitled)'}")
    return _damage_notice(store)


def run_show(args: argparse.Namespace) -> int:
    store = ChatStore()
    session = _session(store, args.id)
    _show_chat(store, session, "")
    for child, _messages in descendants(store, session.id):
        link = child.parent
        print(f"\n=== sub-agent {link.subagent if link else ''}: {child.title}  ({child.id}) ===")
        _show_chat(store, child, "  ")
    return _damage_notice(store)


def descendants(store: ChatStore, session_id: str) -> list[tuple[StoredSession, list[StoredMessage]]]:
    """The sub-agents' chats a chat started, theirs after each, with their messages."""
    out: list[tuple[StoredSession, list[StoredMessage]]] = []
    for child in store.children(session_id):
        out.append((child, store.messages(child.id)))
        out += descendants(store, child.id)
    return out


def _show_chat(store: ChatStore, session: StoredSession, indent: str) -> None:
    if not indent:
        print(f"{session.title or '(untitled)'}  ({session.id})")
    messages = store.messages(session.id)
    texts = _memory_texts(store, messages)
    for message in messages:
        status = "" if message.status == "complete" else f" [{message.status}]"
        print(f"\n{indent}{message.role}{status}> {message.content}")
        for call in message.tool_calls:
            print(
                f"{indent}  tool {call.server}.{call.tool} -> {'error: ' if call.is_error else ''}{call.result[:200]}"
            )
        if message.request_context is not None and message.role == "assistant":
            lines = describe_context(message.request_context, texts)
            print(f"{indent}  " + f"\n{indent}  ".join(line for line in lines if line))


def _memory_texts(store: ChatStore, messages: list[StoredMessage]) -> dict[str, str]:
    """The words of the memories these replies recalled, from the same database."""
    ids = list(
        dict.fromkeys(
            item.ref.name
            for m in messages
            if m.request_context is not None
            for item in m.request_context.of_type("memory")
        )
    )
    if not ids:
        return {}
    memories = MemoryStore(store.path)
    try:
        return memories.texts(ids)
    finally:
        memories.close()


def run_export(args: argparse.Namespace) -> int:
    store = ChatStore()
    session = _session(store, args.id)
    messages = store.messages(session.id)
    texts = _memory_texts(store, messages)
    export = export_json if args.format == "json" else export_markdown
    text = export(session, messages, texts, descendants(store, session.id))
    if args.output:
        atomic_write_text(args.output, text)
        print(f"Wrote {args.output}", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return _damage_notice(store)


def run_search(args: argparse.Namespace) -> int:
    hits = ChatStore().search(args.text)
    if not hits:
        print("No message matches.")
    for hit in hits:
        print(f"{hit.session_id[:12]}  {hit.session_title or '(untitled)'}  {hit.role}: {hit.snippet}")
    return 0


def run_repair(args: argparse.Namespace) -> int:
    path = user_dirs().database
    print(f"Repairing {path}...", file=sys.stderr)
    print(repair_database(path).summary())
    return 0
