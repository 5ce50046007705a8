"""What to tell the user when a request cannot fit: what takes the room, and what they can do.

The advice names the part that is actually largest, so it never says "remove items from the chat"
to a chat that has none: a long system prompt, the chat's own rules and references, tool
definitions, the message itself and this reply's tool results each have their own fix. Taking
items out of a chat is done differently in each front end, so those fixes are worded by the front
end (``OverflowFixes``, handed to ``Workspace``); the core's own words name only the agent's files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.context.items import ManifestPart

__all__ = ["DEFAULT_OVERFLOW_FIXES", "OverflowFixes", "largest_share", "overflow_advice"]

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


@dataclass(frozen=True)
class OverflowFixes:
    """How a front end words the fixes that are done in it: taking the chat's rules, references
    and skills out. ``{name}`` is replaced by the name of the largest of them. The defaults name
    only what every front end has: the agent's files."""

    rules_and_references: str = (
        "take some of the chat's rules and references out of it, or shorten them (always-on ones "
        "are set in the agent)"
    )
    skills: str = (
        "take skill '{name}' out of the chat; if it is always on, set skills.{name}.include to agent "
        "in agent.yaml"
    )

    def fix_for(self, group: str, name: str) -> str | None:
        """The fix for ``group`` (as ``largest_share`` names it), or None when it is not a chat's items."""
        wording = {
            "the chat's rules and references": self.rules_and_references,
            "the chat's skills": self.skills,
        }
        found = wording.get(group)
        return None if found is None else found.replace("{name}", name)


#: For a front end that words none of its own (a workflow run, a sub-agent from the command line).
DEFAULT_OVERFLOW_FIXES = OverflowFixes()

_FIXES = {
    "the system prompt": "shorten the agent's system prompt",
    "the summary of the conversation so far": "start a new chat",
    "the tool definitions": "turn off the tools or servers this chat does not need",
    "the items selected for this message": "lower selection.topN",
    "the message": "shorten the message (paste only the part your question is about)",
    "this reply's tool calls and results": "ask for less in one message",
}


def largest_share(parts: Sequence[ManifestPart]) -> tuple[str, str, str]:
    """The group that costs most (its name), its cost in words with its largest part named, and
    that part's name ('' when its parts have none)."""
    groups: dict[str, list[ManifestPart]] = {}
    for part in parts:
        groups.setdefault(_GROUPS.get(part.kind, part.kind.replace("_", " ")), []).append(part)
    name, members = max(groups.items(), key=lambda group: sum(part.tokens for part in group[1]))
    total = sum(part.tokens for part in members)
    named = [part for part in members if part.name]
    if len(named) <= 1:
        only = f" ({named[0].name!r})" if named else ""
        return name, f"{name}{only}, {total:,} tokens", named[0].name if named else ""
    biggest = max(named, key=lambda part: part.tokens)
    return (
        name,
        f"{name}: {len(named)} of them, {total:,} tokens (the largest {biggest.name!r}, {biggest.tokens:,})",
        biggest.name,
    )


def _file_reader(parts: Sequence[ManifestPart]) -> str:
    """The tool server whose ``read_file`` this request sends (the default agent's workspace), or ""."""
    # Only something the user can do is advised: the desktop has no way to attach a local file,
    # but a tool that reads files (cut to fit, or searched) can take a long text from one.
    readers = [part.name for part in parts if part.kind == "tool" and part.name.endswith("__read_file")]
    return readers[0].split("__", 1)[0] if readers else ""


def overflow_advice(parts: Sequence[ManifestPart], fixes: OverflowFixes = DEFAULT_OVERFLOW_FIXES) -> str:
    """ "The largest part is …: <fix>, or choose a model with a larger window", the fixes done in a
    front end worded by ``fixes``."""
    name, cost, largest = largest_share(parts)
    fix = fixes.fix_for(name, largest) or _FIXES.get(name)
    reader = _file_reader(parts)
    if name == "the message" and reader:
        fix = f"{fix}, or save the long text as a file in the folder the {reader!r} tool server reads, and ask about it"
    advice = (
        f"{fix}, or choose a model with a larger window" if fix else "choose a model with a larger window"
    )
    return f"The largest part is {cost}: {advice}"
