"""Facts a compaction can keep without a model: names, numbers, dates, decisions and open tasks,
found by rules in the turns themselves, each citing the message it came from.

Used when the chat's model is too small to summarize faithfully (the bundled SmolLM2 restated its
own garbled reply as a code block). Every fact is a span of its message's text, and a fact is
kept only if it is found again in that message once case and spacing are normalised, so the
summary holds nothing the conversation did not say.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from agent_core.budget.summary_check import FILE_NAME
from agent_core.store.records import StoredMessage

__all__ = ["Fact", "FactKind", "extract_facts", "found_in"]

FactKind = Literal["decision", "task", "date", "number", "name"]

#: A decision or task sentence is kept up to this many characters (a prefix is still verbatim).
MAX_SENTENCE_CHARS = 200

# A full stop inside a word (0.9.2, CHANGELOG.md) does not end a sentence.
_SENTENCE = re.compile(r"(?:[^.!?\n]|[.!?](?=[^\s.!?]))+[.!?]*")
_DECISION = re.compile(
    r"\b(?:decided|decision|we(?:'ll| will) (?:go with|use|keep|ship)|let's (?:go with|use|keep)|"
    r"going with|agreed|settled on|chose|chosen|picked|final(?:ly)?:|owns|is responsible for|assigned to)",
    re.IGNORECASE,
)
_TASK = re.compile(
    # "TODO" as written in notes (not "todo", a common word in Spanish and Portuguese)
    r"(?-i:\bTODO\b)|\b(?:to-do|to ?do:|need(?:s)? to|still have to|remember to|don't forget|next step|"
    r"follow up|open question|action item|has to|must|should|(?:can|could) you|please)\b",
    re.IGNORECASE,
)
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December|"
    "Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"
)
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}/\d{{1,2}}/\d{{2,4}}\b|"
    rf"\b(?:{_MONTHS})\.? \d{{1,2}}(?:st|nd|rd|th)?(?:,? \d{{4}})?\b|\b\d{{1,2}} (?:{_MONTHS})(?: \d{{4}})?\b|"
    r"\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
)
_NUMBER = re.compile(
    r"(?:[$€£]\s?)?\b\d[\d,]*(?:\.\d+)*\b"
    r"(?:\s?(?:%|percent|euros?|dollars?|USD|EUR|GBP|ms|s|seconds|minutes|hours|days|weeks|MB|GB|KB|"
    r"tokens|items|users|people|replicas|seats|pages|lines|files))?(?![\w.]*\w)"
)
# A capitalised word that does not start a sentence: a person, product or place.
_NAME = re.compile(r"(?<=[a-z0-9,;:] )[A-Z][a-zA-Z0-9]{2,}(?: [A-Z][a-zA-Z0-9]{2,})*")
_SPACE = re.compile(r"\s+")
_CALENDAR_WORD = re.compile(rf"(?:{_MONTHS}|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)")


@dataclass(frozen=True)
class Fact:
    kind: FactKind
    text: str  # a span of the message's text
    message_id: int
    role: str


def extract_facts(messages: Sequence[StoredMessage]) -> list[Fact]:
    """The facts of ``messages`` in order, each once (the first message that states it), all
    checked against the message they cite."""
    facts: list[Fact] = []
    seen: set[tuple[FactKind, str]] = set()
    for message in messages:
        if message.role not in ("user", "assistant") or not message.content.strip():
            continue
        for kind, text in _facts_of(message.content):
            key = (kind, _normal(text))
            if key in seen or not found_in(text, message):
                continue
            seen.add(key)
            facts.append(Fact(kind, text, message.id, message.role))
    return facts


def found_in(text: str, message: StoredMessage) -> bool:
    """Whether ``text`` is in ``message``'s content, ignoring case and spacing."""
    wanted = _normal(text)
    return bool(wanted) and wanted in _normal(message.content)


def _facts_of(content: str) -> Iterable[tuple[FactKind, str]]:
    prose = _without_code(content)
    for match in _SENTENCE.finditer(prose):
        sentence = match.group(0).strip()
        if len(sentence) < 8:
            continue
        if _DECISION.search(sentence):
            yield "decision", _clip(sentence)
        elif _TASK.search(sentence):
            yield "task", _clip(sentence)
    dates = [m.group(0) for m in _DATE.finditer(prose)]
    yield from (("date", date) for date in dates)
    for match in _NUMBER.finditer(prose):
        number = match.group(0).strip()
        digits = "".join(ch for ch in number if ch.isdigit())
        inside_a_date = any(number in date for date in dates)
        # A lone single digit ("3 options", a list item) carries little; years and amounts do.
        if not inside_a_date and (len(digits) >= 2 or number != digits):
            yield "number", number
    yield from (("name", m.group(0)) for m in FILE_NAME.finditer(prose))
    for match in _NAME.finditer(prose):
        if not _CALENDAR_WORD.fullmatch(match.group(0).split(" ")[0]):
            yield "name", match.group(0)


def _without_code(content: str) -> str:
    """The message without fenced code blocks: code is not facts, and a small model's garbled
    reply is often a code block."""
    kept: list[str] = []
    fenced = False
    for line in content.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            kept.append("")
            continue
        kept.append("" if fenced else line)
    return "\n".join(kept)


def _clip(sentence: str) -> str:
    if len(sentence) <= MAX_SENTENCE_CHARS:
        return sentence
    return sentence[:MAX_SENTENCE_CHARS].rsplit(" ", 1)[0]


def _normal(text: str) -> str:
    return _SPACE.sub(" ", text).strip().casefold()
