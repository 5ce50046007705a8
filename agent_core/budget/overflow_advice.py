"""What to tell the user when a request cannot fit: what takes the room, and what they can do.

The advice names the part that is actually largest, so it never says "remove items from the chat"
to a chat that has none: a long system prompt, the chat's own rules and references, tool
definitions, the message itself and this reply's tool results each have their own fix.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_core.context.items import ManifestPart

__all__ = ["largest_share", "overflow_advice"]

# Parts counted together under one name: a hundred small rules outweigh one tool.
_GROUPS = {
    "system_prompt": "the system prompt",
    "rule": "the chat's rules and references",
    "reference": "the chat's rules and references",
    "skill": "the chat's skills",
    "summary": "the summary of the conversation so far",
    "tool": "the tool definitions",
    "selected_rule": "the items selected for this message",
    "selected_reference": "the items selected for this message",
    "skill_catalogue": "the items selected for this message",
    "selected_skill": "the items selected for this message",
    "memory": "the items selected for this message",
    "message": "the message",
    "current_turns": "this reply's tool calls and results",
    "framing": "the message framing",
}

_FIXES = {
    "the system prompt": "shorten the agent's system prompt",
    "the chat's rules and references": (
        "remove some of the chat's rules and references in the Context panel, or shorten them "
        "(always-on ones are set in the agent)"
    ),
    "the chat's skills": "remove some of the chat's skills in the Context panel",
    "the summary of the conversation so far": "start a new chat",
    "the tool definitions": "turn off the tools or servers this chat does not need",
    "the items selected for this message": "lower selection.topN",
    "the message": "shorten the message (paste only the part your question is about)",
    "this reply's tool calls and results": "ask for less in one message",
}


def largest_share(parts: Sequence[ManifestPart]) -> tuple[str, str]:
    """The group that costs most (its name), and its cost in words with its largest part named."""
    groups: dict[str, list[ManifestPart]] = {}
    for part in parts:
        groups.setdefault(_GROUPS.get(part.kind, part.kind.replace("_", " ")), []).append(part)
    name, members = max(groups.items(), key=lambda group: sum(part.tokens for part in group[1]))
    total = sum(part.tokens for part in members)
    named = [part for part in members if part.name]
    if len(named) <= 1:
        only = f" ({named[0].name!r})" if named else ""
        return name, f"{name}{only}, {total:,} tokens"
    biggest = max(named, key=lambda part: part.tokens)
    return (
        name,
        f"{name}: {len(named)} of them, {total:,} tokens (the largest {biggest.name!r}, {biggest.tokens:,})",
    )


def _file_reader(parts: Sequence[ManifestPart]) -> str:
    """The tool server whose ``read_file`` this request sends (the default agent's workspace), or ""."""
    # Only something the user can do is advised: the desktop has no way to attach a local file,
    # but a tool that reads files (cut to fit, or searched) can take a long text from one.
    readers = [part.name for part in parts if part.kind == "tool" and part.name.endswith("__read_file")]
    return readers[0].split("__", 1)[0] if readers else ""


def overflow_advice(parts: Sequence[ManifestPart]) -> str:
    """ "The largest part is …: <fix>, or choose a model with a larger window"."""
    name, cost = largest_share(parts)
    fix = _FIXES.get(name)
    reader = _file_reader(parts)
    if name == "the message" and reader:
        fix = f"{fix}, or save the long text as a file in the folder the {reader!r} tool server reads, and ask about it"
    fixes = f"{fix}, or choose a model with a larger window" if fix else "choose a model with a larger window"
    return f"The largest part is {cost}: {fixes}"
