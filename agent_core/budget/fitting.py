"""Fitting a request into the model's window, and recording what it cost and what was cut.

Order of operations (docs/context-management.md):
1. Tool rounds older than the last ``keep_tool_rounds`` keep their calls, but each result becomes a
   one-line summary of what the call did and returned; the full trace stays in the saved chat.
2. A single tool result longer than ``max_tool_result_tokens`` is cut, with a marker saying so.
3. The fixed part is counted: system message (system prompt, the chat's rules and references, the
   conversation summary), tool schemas, the new message with its selected items, and this reply's
   turns. If it alone does not fit in ``window - reply reserve``, the request is refused with
   what takes the room and how to make it fit (``overflow_advice``). Before that, the caller
   (``dropping.fit_dropping``) leaves out the items selected for this message, lowest-scored first.
4. History is kept newest first, whole turns at a time (a user message with its replies, tool
   calls and results), while it fits; a turn too long for the window on its own is left out and
   named, and older turns are still kept. It never starts with an orphan tool result or an
   assistant turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace

from agent_core.budget.counting import TokenCounter
from agent_core.budget.overflow_advice import DEFAULT_OVERFLOW_FIXES, OverflowFixes, overflow_advice
from agent_core.budget.windows import WindowSize
from agent_core.context.items import ContextManifest, ManifestPart, PartKind, TrimAction
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ChatMessage, ToolSpec

__all__ = [
    "Block",
    "ContextOverflowError",
    "Draft",
    "Limits",
    "fit_history",
    "fit_request",
    "summarize_tool_result",
]

SUMMARY_PREFIX = "[earlier result, summarized] "
CUT_MARKER = "\n[… cut by ContextDesk to fit the context window: {shown} of {total} characters shown; the full result is in the saved chat …]"


class ContextOverflowError(ContextDeskError):
    """The parts that cannot be trimmed do not fit in the model's window; ``excess`` is by how
    many tokens."""

    def __init__(self, message: str, excess: int = 0) -> None:
        super().__init__(message)
        self.excess = excess


@dataclass(frozen=True)
class Block:
    """A piece of a message with its own line in the manifest."""

    kind: PartKind
    text: str
    name: str = ""
    detail: str = ""


@dataclass(frozen=True)
class Draft:
    """A request before fitting: messages still whole."""

    system: Sequence[Block]  # joined with blank lines into the system message
    history: Sequence[ChatMessage]
    user: Sequence[Block]  # joined with blank lines into the new user message
    turns: Sequence[ChatMessage]  # this reply's earlier model turns and tool results
    tools: Sequence[ToolSpec]


@dataclass(frozen=True)
class Limits:
    window: WindowSize
    reply_reserve: int
    keep_tool_rounds: int = 2
    max_tool_result_tokens: int = 4000
    fixes: OverflowFixes = DEFAULT_OVERFLOW_FIXES  # how the front end words taking items out of a chat

    @property
    def budget(self) -> int:
        return self.window.tokens - self.reply_reserve


def fit_request(
    draft: Draft, counter: TokenCounter, limits: Limits
) -> tuple[tuple[ChatMessage, ...], ContextManifest]:
    """The messages to send and their manifest.

    Raises:
        ContextOverflowError: the system message, tools, new message and current turns alone
            exceed the window minus the reply reserve.
    """
    trimmed: list[TrimAction] = []
    history, turns = _condense_tool_rounds(
        list(draft.history), list(draft.turns), limits.keep_tool_rounds, counter, trimmed
    )
    history = [_cut_long_result(m, limits.max_tool_result_tokens, counter, trimmed) for m in history]
    turns = [_cut_long_result(m, limits.max_tool_result_tokens, counter, trimmed) for m in turns]

    system = ChatMessage("system", _join(draft.system), cache_breakpoint=True)
    user = ChatMessage("user", _join(draft.user))
    system_parts = _block_parts(draft.system, system, counter)
    parts: list[ManifestPart] = [*system_parts]
    parts += [ManifestPart("tool", counter.tool(spec), spec.name) for spec in draft.tools]
    parts += _block_parts(draft.user, user, counter)
    turns = _shrink_turn_results(turns, limits.budget - sum(part.tokens for part in parts), counter, trimmed)
    if turns:
        parts.append(ManifestPart("current_turns", counter.messages(turns), detail=f"{len(turns)} messages"))
    fixed = sum(part.tokens for part in parts)
    if fixed > limits.budget:
        raise ContextOverflowError(
            f"this request needs {fixed:,} tokens before any history, but the model's window leaves "
            f"{limits.budget:,} ({limits.window.tokens:,} minus {limits.reply_reserve:,} for the reply). "
            + overflow_advice(parts, limits.fixes),
            fixed - limits.budget,
        )

    kept, left_out = _newest_history_that_fits(history, limits.budget - fixed, counter)
    trimmed += left_out
    if kept:
        parts.insert(
            len(system_parts),
            ManifestPart("history", counter.messages(kept), detail=f"{len(kept)} messages"),
        )
    messages = (system, *kept, user, *turns)
    manifest = ContextManifest(
        window=limits.window.tokens,
        window_source=limits.window.source,
        reply_reserve=limits.reply_reserve,
        counter=counter.name,
        exact=counter.exact,
        parts=tuple(parts),
        trimmed=tuple(trimmed),
    )
    return messages, manifest


def summarize_tool_result(message: ChatMessage, call_arguments: str = "") -> str:
    """One line saying what the call did and what came back (not a generic placeholder)."""
    flat = " ".join(message.content[:400].split())
    lines = message.content.count("\n") + 1 if message.content else 0
    outcome = "failed" if message.is_error else "returned"
    head = flat[:160] + ("…" if len(message.content) > len(flat[:160]) + 40 or len(flat) > 160 else "")
    call = f"{message.tool_name or 'tool'}({call_arguments})"
    return f"{SUMMARY_PREFIX}{call} {outcome} {lines} lines, {len(message.content)} characters: {head}"


def _join(blocks: Sequence[Block]) -> str:
    return "\n\n".join(block.text for block in blocks if block.text)


def _block_parts(blocks: Sequence[Block], message: ChatMessage, counter: TokenCounter) -> list[ManifestPart]:
    parts = [ManifestPart(b.kind, counter.count(b.text), b.name, b.detail) for b in blocks if b.text]
    framing = counter.message(message) - sum(part.tokens for part in parts)
    # Separators and role markers: counted so the parts add up to exactly what is sent.
    return [*parts, ManifestPart("framing", framing, detail=f"{message.role} message")]


def _condense_tool_rounds(
    history: list[ChatMessage],
    turns: list[ChatMessage],
    keep: int,
    counter: TokenCounter,
    trimmed: list[TrimAction],
) -> tuple[list[ChatMessage], list[ChatMessage]]:
    combined = history + turns
    rounds = [i for i, m in enumerate(combined) if m.role == "assistant" and m.tool_calls]
    old_rounds = set(rounds[: max(0, len(rounds) - keep)])
    if not old_rounds:
        return history, turns
    arguments: dict[str, str] = {}
    condensed: list[ChatMessage] = []
    count = saved = 0
    for index, message in enumerate(combined):
        if index in old_rounds:
            for call in message.tool_calls:
                arguments[call.id] = _short_arguments(call.arguments)
            if len(message.content) > 200:
                message = replace(message, content=message.content[:200].rstrip() + "…")
        elif (
            message.role == "tool"
            and message.tool_call_id in arguments
            and not message.content.startswith(SUMMARY_PREFIX)
        ):
            summary = summarize_tool_result(message, arguments[message.tool_call_id])
            shorter_by = counter.count(message.content) - counter.count(summary)
            # A short result stays as it is (its summary would be no shorter), unless it has
            # images: summarizing is what keeps an older round's images out of the request.
            if shorter_by > 0 or message.images:
                saved += max(shorter_by, 0)
                count += 1
                message = replace(message, content=summary)
        condensed.append(message)
    if count:
        results = f"{count} result{'s' if count > 1 else ''}"
        of_rounds = f"{len(old_rounds)} older tool round{'s' if len(old_rounds) > 1 else ''}"
        trimmed.append(TrimAction("tool_result_summarized", f"{results} of {of_rounds} summarized", saved))
    return condensed[: len(history)], condensed[len(history) :]


def _short_arguments(arguments: object) -> str:
    text = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    text = text[1:-1] if text.startswith("{") else text
    return text if len(text) <= 80 else text[:79] + "…"


def _cut_long_result(
    message: ChatMessage, max_tokens: int, counter: TokenCounter, trimmed: list[TrimAction]
) -> ChatMessage:
    if message.role != "tool" or counter.count(message.content) <= max_tokens:
        return message
    total = len(message.content)
    keep = total
    # Shrink by the measured ratio until it fits (two or three rounds at most).
    while keep > 0 and counter.count(message.content[:keep]) > max_tokens:
        keep = int(keep * max_tokens / counter.count(message.content[:keep]) * 0.95)
    text = message.content[:keep] + CUT_MARKER.format(shown=f"{keep:,}", total=f"{total:,}")
    trimmed.append(
        TrimAction(
            "tool_result_cut",
            f"result of {message.tool_name or 'a tool'} cut to {max_tokens:,} tokens",
            counter.count(message.content) - counter.count(text),
        )
    )
    return replace(message, content=text)


def _shrink_turn_results(
    turns: list[ChatMessage], room: int, counter: TokenCounter, trimmed: list[TrimAction]
) -> list[ChatMessage]:
    """This reply's tool results cut further when together they would not leave the window room."""
    if counter.messages(turns) <= room:
        return turns
    results = [m for m in turns if m.role == "tool"]
    if not results:
        return turns
    others = counter.messages([m for m in turns if m.role != "tool"])
    overhead = (
        counter.message(ChatMessage("tool", "")) + counter.count(CUT_MARKER.format(shown="0", total="0")) + 8
    )
    share = max(32, (room - others) // len(results) - overhead)
    return [_cut_long_result(m, share, counter, trimmed) if m.role == "tool" else m for m in turns]


def fit_history(
    history: Sequence[ChatMessage], room: int, counter: TokenCounter, limits: Limits
) -> tuple[list[ChatMessage], list[TrimAction]]:
    """``history`` as a request with no tool turns of its own would send it in ``room`` tokens
    (steps 1, 2 and 4 of the module's order), and what was summarized, cut or left out: the next
    request's estimate uses it so it trims as the request will."""
    trimmed: list[TrimAction] = []
    condensed, _turns = _condense_tool_rounds(list(history), [], limits.keep_tool_rounds, counter, trimmed)
    condensed = [_cut_long_result(m, limits.max_tool_result_tokens, counter, trimmed) for m in condensed]
    kept, left_out = _newest_history_that_fits(condensed, room, counter)
    return kept, trimmed + left_out


def _newest_history_that_fits(
    history: list[ChatMessage], room: int, counter: TokenCounter
) -> tuple[list[ChatMessage], list[TrimAction]]:
    """The newest whole turns that fit in ``room``, and what was left out.

    A turn too long for ``room`` on its own (a pasted text the window never had room for) is left
    out and named, and older turns are still kept: one huge message must not hide the whole
    conversation. The first turn that would fit alone but not in what is left ends the history,
    so what is kept has no gap but those named.
    """
    kept: list[list[ChatMessage]] = []
    trimmed: list[TrimAction] = []
    used = too_long = too_long_tokens = 0
    for number, turn in reversed(_turns(history)):
        cost = counter.messages(turn)
        if cost > room:
            trimmed.append(
                TrimAction(
                    "history_dropped",
                    f"{_describe(number, turn, cost)} left out: too long for the window",
                    cost,
                )
            )
            too_long += len(turn)
            too_long_tokens += cost
            continue
        if used + cost > room:
            break
        kept.append(turn)
        used += cost
    kept.reverse()
    flat = [message for turn in kept for message in turn]
    dropped = len(history) - len(flat) - too_long
    if dropped:
        saved = counter.messages(history) - used - too_long_tokens
        trimmed.append(
            TrimAction("history_dropped", f"{dropped} older messages left out to fit the window", saved)
        )
    return flat, trimmed


def _describe(number: int, turn: list[ChatMessage], cost: int) -> str:
    """``message #12 ("Please review this log…", 9,500 tokens)``: which it was, numbered from the
    first message of the history sent."""
    flat = " ".join(turn[0].content[:200].split())
    snippet = flat if len(flat) <= 60 else flat[:60].rsplit(" ", 1)[0] + "…"
    if len(turn) == 1:
        return f'message #{number} ("{snippet}", {cost:,} tokens)'
    last = number + len(turn) - 1
    return f'messages #{number}–#{last} (the question "{snippet}" and its reply, {cost:,} tokens)'


def _turns(history: list[ChatMessage]) -> list[tuple[int, list[ChatMessage]]]:
    """Each user message with what followed it up to the next (replies, tool calls and their
    results), numbered by its place in ``history`` from 1, so a kept question always keeps its
    answer. Messages before the first user message are never sent: a history must open with the
    user speaking. A tool result whose call is not just before it (never saved) is never sent."""
    turns: list[tuple[int, list[ChatMessage]]] = []
    for number, message in enumerate(history, 1):
        if message.role == "user":
            turns.append((number, [message]))
        elif not turns:
            continue
        elif message.role != "tool" or _in_round(turns[-1][1]):
            turns[-1][1].append(message)
    return turns


def _in_round(turn: list[ChatMessage]) -> bool:
    """Whether a tool result may follow ``turn``'s last message: it ends in a tool call or its results."""
    for message in reversed(turn):
        if message.role == "assistant":
            return True
        if message.role != "tool":
            return False
    return False
