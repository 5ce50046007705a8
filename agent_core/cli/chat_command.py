"""``contextdesk chat``: one-shot or interactive chat in the terminal."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from contextlib import aclosing
from pathlib import Path
from typing import Any, TextIO

from agent_core.budget.overflow_advice import OverflowFixes
from agent_core.chat.attached_updates import subscribe
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ContextBuilt,
    MemoriesWritten,
    ReplyDelta,
    ReplyFinished,
    RetryScheduled,
    SamplingAnswered,
    SubagentFinished,
    SubagentStarted,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    WorkflowProgress,
)
from agent_core.chat.session import ChatSession
from agent_core.cli.app_notes import ui_available
from agent_core.cli.limit_prompt import confirm_model
from agent_core.cli.progress_lines import progress_line
from agent_core.cli.sampling_prompt import ask_sampling, sampling_line
from agent_core.cli.server_start import start_tool_servers
from agent_core.cli.trust_prompt import confirm_servers
from agent_core.context.items import ItemRef
from agent_core.context.unbacked_claims import unbacked_claim
from agent_core.errors import ContextDeskError
from agent_core.store.export import describe_context
from agent_core.workflows.server_trust import servers_to_trust
from agent_core.workspace import Workspace

__all__ = ["TERMINAL_OVERFLOW_FIXES", "register"]

#: What to take out of a chat whose request cannot fit, in the terminal's own commands.
TERMINAL_OVERFLOW_FIXES = OverflowFixes(
    rules_and_references=(
        "take some out of this chat with /drop rule:NAME or /drop ref:NAME, or shorten them (an always-on "
        "rule or reference: set its include to agent in its file's header)"
    ),
    skills=(
        "if skill '{name}' is always on, keep it out of new chats with `contextdesk skill set {name} "
        "--include agent`; in an interactive chat, /drop skill:{name} takes it out of this one"
    ),
)

HELP = """Commands:
  /context        what the last reply used (items, scores, tokens per part, what was trimmed)
  /compact        summarize older turns into a "conversation so far" note
  /sessions       saved chats, newest first
  /resume ID      continue a saved chat
  /resources      resources the MCP servers offer
  /attach S URI   attach resource URI of server S to this chat as a reference
  /prompts        prompts the MCP servers offer
  /prompt S NAME [key=value ...]   show server S's prompt NAME and offer to send it
  /remember TEXT  save TEXT as a long-term memory of this agent (see `contextdesk memory`)
  /run NAME {JSON}  run the agent's workflow NAME with that input (see `contextdesk workflow`)
  /add ITEM       add rule:NAME, ref:NAME, skill:NAME or tool:SERVER.NAME to this chat (selection
                  learns the last message needed it)
  /drop ITEM      take it out of this chat (selection learns the last message did not need it)
  /new            start a new chat
  /exit           leave (Ctrl-D works too)"""


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "chat",
        help="chat with an agent in the terminal",
        description="With a MESSAGE, answers it and exits; without, starts an interactive chat.",
    )
    parser.add_argument("message", nargs="?", help="the message to answer (omit for an interactive chat)")
    parser.add_argument("--agent", type=Path, help="agent folder (default: your default agent)")
    parser.add_argument("--model", help="provider:model for this chat, e.g. openai:gpt-4o-mini")
    parser.add_argument("--session", help="continue the saved chat with this id")
    parser.add_argument(
        "--yes",
        action="store_true",
        help="approve every tool call and tool servers' sampling requests without asking (for scripts); a server's form or link is declined, never filled in",
    )
    parser.set_defaults(handler=run_chat)


def run_chat(args: argparse.Namespace) -> int:
    return asyncio.run(_chat(args))


async def _chat(args: argparse.Namespace) -> int:
    # Only where MCP can run: the form prompt imports the MCP package, an optional extra.
    elicitation = _terminal_elicitation(args.yes)
    workspace = Workspace.open(
        args.agent,
        elicitation=elicitation,
        sign_in=_terminal_sign_in(args.yes),
        overflow_fixes=TERMINAL_OVERFLOW_FIXES,
    )
    show_agent_problems(workspace)
    try:
        confirm_servers(workspace.trust, servers_to_trust(workspace.agent))  # asks in a terminal
        await start_tool_servers(workspace)
        session = workspace.open_chat(args.session) if args.session else workspace.new_chat()
        workspace.store.acquire_lease(session.id)  # refused now if another program writes to it
        if args.model:
            session.override_settings(chat={"model": args.model})
        if args.message is not None:
            return 0 if await answer(session, args.message, auto_approve=args.yes) else 1
        return await _interactive(workspace, session, auto_approve=args.yes)
    finally:
        await workspace.aclose()


def _terminal_elicitation(assume_yes: bool) -> Any:
    try:
        from agent_core.cli.elicitation_prompt import TerminalElicitation
    except ImportError:
        return None
    return TerminalElicitation(assume_yes=assume_yes)


def _terminal_sign_in(assume_yes: bool) -> Any:
    try:
        from agent_core.cli.sign_in_prompt import TerminalSignIn
    except ImportError:
        return None
    return TerminalSignIn(assume_yes=assume_yes)


def show_agent_problems(workspace: Workspace) -> None:
    """Every problem of the agent's files, one line each on stderr, before the chat starts."""
    agent = workspace.agent
    for problem in agent.problems:
        print(f"contextdesk: {problem.describe(agent.root)}", file=sys.stderr)
    if agent.problems:
        print(
            f"contextdesk: {len(agent.problems)} problem(s) in {agent.root}; "
            f"`contextdesk agent check {agent.root}` lists them again",
            file=sys.stderr,
        )


async def answer(session: ChatSession, text: str, *, auto_approve: bool, out: TextIO | None = None) -> bool:
    """Stream the reply to ``text``; returns False when it ended in an error."""
    out = out or sys.stdout
    ok = True
    async with aclosing(session.send(text)) as events:
        async for event in events:
            if isinstance(event, MemoriesWritten):
                await _show_memories(session, event, accept=auto_approve)
                continue
            ok = await _show(event, out, auto_approve=auto_approve) and ok
    return ok


async def _show_memories(session: ChatSession, event: MemoriesWritten, *, accept: bool) -> None:
    """Saved and proposed memories, one line each on stderr; with ``--yes`` proposals are accepted
    (the user said yes to every question)."""
    if accept:
        for outcome in event.outcomes:
            if outcome.memory is not None and outcome.memory.status == "proposed":
                await session.decide_memory(outcome.memory.id, accept=True)
                print(f"[memory saved {outcome.memory.id}: {outcome.memory.text}]", file=sys.stderr)
        event = MemoriesWritten(
            tuple(o for o in event.outcomes if o.memory is None or o.memory.status != "proposed"), event.notes
        )
    for line in memory_notices(event, session.agent.root):
        print(f"[{line}]", file=sys.stderr)


def memory_notices(event: MemoriesWritten, agent_root: Path) -> list[str]:
    """One line per memory a message wrote or proposed, and per one not saved."""
    lines = []
    for outcome in event.outcomes:
        memory = outcome.memory
        if memory is None:
            continue
        if memory.status == "proposed":
            replaces = f", replacing “{outcome.other.text}”" if outcome.other else ""
            lines.append(
                f"Memory proposed: “{memory.text}”{replaces}. Accept it with "
                f"`contextdesk memory accept --agent {agent_root} {memory.id}`."
            )
        elif outcome.action == "merged":
            lines.append(f"Already remembered: “{memory.text}”.")
        else:
            lines.append(f"Remembered: “{memory.text}”.")
    return [*lines, *event.notes]


async def _show(event: ChatEvent, out: TextIO, *, auto_approve: bool) -> bool:
    """Render one event; False when it reports a failed reply."""
    if isinstance(event, ReplyDelta):
        out.write(event.text)
        out.flush()
    elif isinstance(event, ContextBuilt) and event.context.selection.status in (
        "failed",
        "model_loading",
    ):
        print(f"[context: no agent items, {event.context.selection.detail}]", file=sys.stderr)
    elif isinstance(event, RetryScheduled):
        print(f"\n[{event.error} - retrying in {event.delay:.0f} s]", file=sys.stderr)
    elif isinstance(event, ApprovalRequest):
        event.decide(ApprovalDecision.ALLOW_ONCE if auto_approve else await ask_approval(event))
    elif isinstance(event, SamplingAnswered):
        print(f"[{sampling_line(event.record)}]", file=sys.stderr)
    elif isinstance(event, SubagentStarted | SubagentFinished):
        print(f"\n[{subagent_line(event)}]", file=sys.stderr)
    elif isinstance(event, WorkflowProgress) and event.status != "started":
        item = f" ({json.dumps(event.item, ensure_ascii=False)[:60]})" if event.item is not None else ""
        ended = f": {event.error}" if event.error else ""
        print(f"[workflow {event.workflow}: {event.state_id}{item} {event.status}{ended}]", file=sys.stderr)
    elif isinstance(event, ToolCallStarted):
        print(
            f"\n→ {event.server}.{event.tool}({json.dumps(dict(event.arguments), ensure_ascii=False)})",
            file=out,
        )
    elif isinstance(event, ToolCallProgress):
        print(progress_line("progress", event.progress), file=sys.stderr)
    elif isinstance(event, ToolCallFinished):
        record = event.record
        label = "error" if record.is_error else "result"
        elapsed = "" if record.elapsed_seconds is None else f" in {record.elapsed_seconds:.2f} s"
        print(f"← {label}{elapsed}: {_shorten(record.result)}", file=out)
        if record.ui_resource_uri is not None:
            print(ui_available(record.server, record.tool, record.ui_resource_uri), file=out)
    elif isinstance(event, ReplyFinished):
        out.write("\n")
        if event.message.status != "complete":
            print(f"contextdesk: {event.message.error or event.message.content}", file=sys.stderr)
            return False
        context = event.message.request_context
        if context is not None and (claim := unbacked_claim(event.message.content, context.provenance)):
            print(f"[{claim}]", file=sys.stderr)
    return True


def subagent_line(event: SubagentStarted | SubagentFinished) -> str:
    """One line on a sub-agent starting or ending, for the terminal."""
    if isinstance(event, SubagentStarted):
        path = f"{event.origin} › {event.subagent}" if event.origin else event.subagent
        return f"sub-agent {path} started ({event.context_mode}): {' '.join(event.task.split())[:120]}"
    d = event.delegation
    tokens = d.usage.total
    ended = f"stopped: {d.note}" if d.stopped_by else "finished" + (f" ({d.note})" if d.note else "")
    return (
        f"sub-agent {d.subagent} {ended}: {d.turns} turns, {tokens:,} tokens, {d.elapsed_seconds:.1f} s; "
        f"transcript: contextdesk sessions show {d.child_session_id}"
    )


async def ask_approval(request: ApprovalRequest) -> ApprovalDecision:
    """Ask at the terminal; a sub-agent's or a workflow's request says which asks."""
    if request.sampling is not None:
        return await ask_sampling(request)
    who = f"{request.asker} asks: allow" if request.asker else "Allow"
    caution = f"\n  ! {request.caution}" if request.caution else ""
    # A tool asked about before every call (a skill's script) is never allowed for the chat.
    choices = "[o]nce / [d]eny" if request.every_call else "[o]nce / for this [c]hat / [d]eny"
    prompt = f"\n{who} {request.action}?{caution}\n{choices}: "
    while True:
        try:
            reply = (await asyncio.to_thread(input, prompt)).strip().lower()
        except EOFError:
            return ApprovalDecision.DENY
        if reply in ("o", "once", "y", "yes"):
            return ApprovalDecision.ALLOW_ONCE
        if reply in ("c", "chat") and not request.every_call:
            return ApprovalDecision.ALLOW_FOR_CHAT
        if reply in ("d", "deny", "n", "no"):
            return ApprovalDecision.DENY


async def _interactive(workspace: Workspace, session: ChatSession, *, auto_approve: bool) -> int:
    print(f"Chatting with {workspace.agent.name} ({session.chat_settings.model}). /help for commands.")
    workspace.selector.start_loading()
    while True:
        try:
            text = await asyncio.to_thread(input, "\nyou> ")
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        text = text.strip()
        if not text:
            continue
        if text.startswith("/"):
            command, _, argument = text.partition(" ")
            if command in ("/exit", "/quit"):
                return 0
            if command == "/help":
                print(HELP)
            elif command == "/context":
                context = session.last_request_context()
                print("\n".join(describe_context(context)) if context else "No reply yet in this chat.")
            elif command == "/sessions":
                for saved in workspace.store.sessions()[:20]:
                    print(f"{saved.id}  {saved.title or '(untitled)'}")
            elif command == "/resume":
                try:
                    resumed = workspace.open_chat(argument.strip())
                    workspace.store.acquire_lease(resumed.id)  # refused if another program writes to it
                except ContextDeskError as error:
                    print(f"contextdesk: {error}", file=sys.stderr)
                    continue
                if resumed.id != session.id:
                    workspace.store.release_lease(session.id)
                session = resumed
                for message in session.history()[-6:]:
                    print(f"{message.role}> {message.content}")
            elif command == "/compact":
                try:
                    model = session.settings.chat.model
                    # Nothing to compact is said at once, with no word about the model first.
                    if session.has_turns_to_compact() and not await confirm_model(
                        workspace.providers.resolve, model, "compaction", yes=auto_approve
                    ):
                        continue
                    summary = await session.compact()
                except ContextDeskError as error:
                    print(f"contextdesk: {error}", file=sys.stderr)
                    continue
                print(f"Conversation so far:\n{summary.content}" if summary else "Too little to compact yet.")
            elif command in ("/resources", "/attach", "/prompts", "/prompt"):
                text_to_send = await _mcp_command(workspace, session, command, argument.split())
                if text_to_send:
                    print("assistant> ", end="", flush=True)
                    await answer(session, text_to_send, auto_approve=auto_approve)
            elif command == "/remember":
                try:
                    outcome = await session.remember(argument)
                except ContextDeskError as error:
                    print(f"contextdesk: {error}", file=sys.stderr)
                    continue
                for warning in outcome.warnings:
                    print(f"Warning: {warning}; saved because you typed it.", file=sys.stderr)
                remembered = outcome.memory
                print(
                    f"Remembered ({outcome.action}) {remembered.id}: {remembered.text}"
                    if remembered
                    else outcome.reason
                )
            elif command == "/run":
                try:
                    ok = await answer(session, text, auto_approve=auto_approve)
                except ContextDeskError as error:
                    print(f"contextdesk: {error}", file=sys.stderr)
                    continue
                if ok:
                    print(session.history()[-1].content)
            elif command in ("/add", "/drop"):
                ref = item_ref(argument.strip())
                if ref is None:
                    print(f"Usage: {command} rule:NAME | ref:NAME | skill:NAME | tool:SERVER.NAME")
                    continue
                if command == "/add":
                    session.add_item(ref, learn=True)
                    print(f"Added {ref.label()} to this chat.")
                else:
                    session.remove_item(ref, learn=True)
                    print(f"Took {ref.label()} out of this chat.")
            elif command == "/new":
                workspace.store.release_lease(session.id)
                session = workspace.new_chat()
                print("New chat.")
            else:
                print(f"Unknown command {command}. {HELP}")
            continue
        print("assistant> ", end="", flush=True)
        try:
            await answer(session, text, auto_approve=auto_approve)
        except KeyboardInterrupt:
            session.cancel()


def item_ref(text: str) -> ItemRef | None:
    """``rule:NAME``, ``ref:NAME`` / ``reference:NAME``, ``skill:NAME`` or ``tool:SERVER.NAME`` as an item."""
    kind, _, name = text.partition(":")
    if not name:
        return None
    if kind == "rule":
        return ItemRef("rule", name)
    if kind in ("ref", "reference"):
        return ItemRef("reference", name)
    if kind == "skill":
        return ItemRef("skill", name)
    if kind == "tool" and "." in name:
        server, _, tool = name.partition(".")
        return ItemRef("tool", tool, server)
    return None


def _shorten(text: str, limit: int = 300) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


async def _mcp_command(
    workspace: Workspace, session: ChatSession, command: str, words: list[str]
) -> str | None:
    """Resources and prompts of the agent's MCP servers; returns a prompt's text to send, if chosen."""
    from agent_core.mcp import McpServerError

    manager = workspace.mcp
    if manager is None:
        print("This agent has no MCP servers.")
        return None
    try:
        if command == "/resources":
            for resource in await manager.list_resources():
                print(f"{resource.server}  {resource.uri}  {resource.name}")
        elif command == "/prompts":
            for prompt in await manager.list_prompts():
                print(f"{prompt.server}  {prompt.name}  {prompt.description}")
        elif command == "/attach":
            if len(words) != 2:
                print("Usage: /attach SERVER URI (see /resources)")
                return None
            seen = await subscribe(manager, words[0], words[1])  # first: no update falls between
            content = await manager.read_resource(words[0], words[1])
            session.attach_resource(words[0], words[1], content.text, seen_version=seen)
            print(f"Attached {words[1]} ({len(content.text):,} characters) to this chat as a reference.")
        elif command == "/prompt":
            if len(words) < 2:
                print("Usage: /prompt SERVER NAME [key=value ...] (see /prompts)")
                return None
            arguments = dict(word.split("=", 1) for word in words[2:] if "=" in word)
            text = (await manager.get_prompt(words[0], words[1], arguments)).text
            print(f"--- prompt {words[1]} ---\n{text}\n---")
            reply = (await asyncio.to_thread(input, "Send it? [y/N] ")).strip().lower()
            return text if reply in ("y", "yes") else None
    except (McpServerError, EOFError) as error:
        print(f"contextdesk: {error}", file=sys.stderr)
    return None
