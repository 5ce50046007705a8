"""Compaction: older turns become a "conversation so far" note written by the model itself."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import summarize_tool_result
from agent_core.providers.base import ChatMessage, ChatRequest, GenerationSettings, Provider
from agent_core.store.records import StoredMessage

__all__ = ["COMPACTION_INSTRUCTIONS", "CompactionPlan", "plan_compaction", "summarize_conversation"]

COMPACTION_INSTRUCTIONS = """You are compacting a long conversation so it can continue within a limited context window.
Write a note that replaces the conversation below, for your own later use. Keep:
- the user's intent and goals;
- decisions made and why;
- open questions and unfinished tasks;
- facts that matter later: names, numbers, file paths, commands, results of tool calls.
Use short headed lists (Intent, Decisions, Open questions, Facts). Do not invent anything.
Write only the note."""


@dataclass(frozen=True)
class CompactionPlan:
    to_summarize: tuple[StoredMessage, ...]
    covers_until: int  # id of the last message the summary stands for


def plan_compaction(messages: Sequence[StoredMessage], keep_recent_turns: int) -> CompactionPlan | None:
    """Which messages a compaction would summarize: everything before the last
    ``keep_recent_turns`` user messages, after the previous summary. None when nothing would."""
    user_ids = [m.id for m in messages if m.role == "user"]
    if len(user_ids) <= keep_recent_turns:
        return None
    boundary = user_ids[-keep_recent_turns]
    older = tuple(m for m in messages if m.id < boundary and m.role in ("user", "assistant"))
    if not older:
        return None
    return CompactionPlan(to_summarize=older, covers_until=boundary - 1)


def as_transcript(messages: Sequence[StoredMessage]) -> list[str]:
    """Messages as plain lines for the summarizer; tool results as one-line summaries."""
    lines: list[str] = []
    for message in messages:
        if message.content.strip():
            lines.append(f"{message.role.upper()}: {message.content.strip()}")
        for call in message.tool_calls:
            result = ChatMessage(
                "tool", call.result, tool_name=f"{call.server}.{call.tool}", is_error=call.is_error
            )
            lines.append("TOOL " + summarize_tool_result(result, str(dict(call.arguments))))
    return lines


async def summarize_conversation(
    provider: Provider,
    model_id: str,
    messages: Sequence[StoredMessage],
    previous_summary: str | None,
    counter: TokenCounter,
    budget: int,
    max_output_tokens: int,
) -> str:
    """The model's note for ``messages`` (folding in ``previous_summary``), made in as many passes
    as the window needs: each pass summarizes what fits plus the note so far.

    Raises:
        ProviderError: the model call failed (the chat is left as it was).
    """
    lines = as_transcript(messages)
    note = previous_summary or ""
    room = max(256, budget - counter.count(COMPACTION_INSTRUCTIONS) - max_output_tokens - 64)
    while lines:
        batch: list[str] = []
        used = counter.count(note)
        while lines and (not batch or used + counter.count(lines[0]) <= room):
            line = lines.pop(0)
            batch.append(line[: room * 3] if not batch and counter.count(line) > room else line)
            used += counter.count(batch[-1])
        earlier = f"Note so far:\n{note}\n\n" if note else ""
        request = ChatRequest(
            messages=[
                ChatMessage("system", COMPACTION_INSTRUCTIONS),
                ChatMessage("user", f"{earlier}Conversation:\n" + "\n".join(batch)),
            ],
            settings=GenerationSettings(
                model=model_id, max_output_tokens=max_output_tokens, temperature=0.2, top_p=0.9
            ),
        )
        note = (await provider.complete(request)).text.strip() or note
    return note
