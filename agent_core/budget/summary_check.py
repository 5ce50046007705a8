"""A compaction summary is checked before it replaces anything: the model's output is untrusted,
and a small local model sometimes answers with an empty code fence or a line of markup. When
it fails, a deterministic summary taken from the turns themselves stands in, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent_core.budget.compaction import as_transcript
from agent_core.store.records import StoredMessage

__all__ = ["FILE_NAME", "SummaryVerdict", "check_summary", "extractive_summary", "named_things"]

#: Words a summary needs once markup is removed (a one-line note of a short chat passes).
MIN_SUMMARY_WORDS = 3
#: Of the named things in the covered turns (files, numbers, names, quoted terms), at least this
#: share must be in the summary, when there are at least ``MIN_NAMED`` of them.
MIN_NAMED_SHARE = 0.25
MIN_NAMED = 4
#: The longest line an extractive summary keeps of one message.
EXTRACT_LINE_CHARS = 200

_MARKUP = re.compile(r"```[\w-]*|~~~[\w-]*|[#*_>`|~=-]+")
_WORDLIKE = re.compile(r"\w")
_WORD = re.compile(r"[^\W\d_]{2,}")
#: A file name or path in prose ("notes/plan.md"); the fact extraction finds names with it too.
FILE_NAME = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.[A-Za-z][\w]{0,5}\b")
_NUMBER = re.compile(r"(?<![\w.])\d[\d,.:/-]*\d|\b\d{2,}\b")
_QUOTED = re.compile(r"[`\"“']([^`\"”'\n]{3,60})[`\"”']")
# A capitalised word that does not start a sentence: a name of a person, product or place.
_NAME = re.compile(r"(?<=[a-z,;:] )[A-Z][a-zA-Z0-9]{2,}")


@dataclass(frozen=True)
class SummaryVerdict:
    ok: bool
    reason: str = ""  # why it was refused, in words for the user


def named_things(lines: Sequence[str]) -> set[str]:
    """The specific things a faithful summary keeps: file names, numbers, quoted terms, names."""
    text = "\n".join(lines)
    found = {m.group(0) for m in FILE_NAME.finditer(text)}
    found |= {m.group(0) for m in _NUMBER.finditer(text)}
    found |= {m.group(1).strip() for m in _QUOTED.finditer(text)}
    found |= {m.group(0) for m in _NAME.finditer(text)}
    return {thing for thing in found if len(thing) >= 2}


def check_summary(summary: str, covered: Sequence[StoredMessage]) -> SummaryVerdict:
    """Whether ``summary`` can stand for ``covered``: not empty, not just markup, and keeping a
    fair share of the specific things the turns named."""
    plain = _MARKUP.sub(" ", summary)
    if len(_WORD.findall(plain)) < MIN_SUMMARY_WORDS:
        what = (
            "empty" if not summary.strip() else "only markup" if not _WORDLIKE.search(plain) else "too short"
        )
        return SummaryVerdict(False, f"the model's summary was {what}")
    things = named_things(as_transcript(covered))
    if len(things) >= MIN_NAMED:
        lowered = summary.lower()
        kept = [thing for thing in things if thing.lower() in lowered]
        if len(kept) < MIN_NAMED_SHARE * len(things):
            return SummaryVerdict(
                False,
                f"the model's summary kept {len(kept)} of the {len(things)} names, numbers and files "
                "the turns mention",
            )
    return SummaryVerdict(True)


def extractive_summary(covered: Sequence[StoredMessage], previous: str | None, reason: str) -> str:
    """A summary made from the turns themselves: the first line of each message and a line for
    each tool call, after the previous summary if there was one. Deterministic, nothing invented."""
    lines = [f"Conversation so far (taken from the messages, because {reason}):"]
    if previous and previous.strip():
        lines.append(f"- earlier: {_first_line(previous)}")
    for line in as_transcript(covered):
        role, _, text = line.partition(": ") if not line.startswith("TOOL ") else ("tool", "", line[5:])
        lines.append(f"- {role.lower()}: {_first_line(text)}")
    return "\n".join(lines)


def _first_line(text: str) -> str:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return first if len(first) <= EXTRACT_LINE_CHARS else first[: EXTRACT_LINE_CHARS - 1] + "…"
