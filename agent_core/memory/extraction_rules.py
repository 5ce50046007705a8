"""Proposing memories from one user message without a model: a few patterns people use to state
facts about themselves and their work. Offline, deterministic and quick, so the bundled local
model's chats can propose memories too.

Only the user's own statements count: questions, hypotheticals ("if I were…", "suppose…"),
reported speech ("my friend says…") and quoted text are never facts. Every proposal carries the
exact words it came from (its ``quote`` is a substring of the message).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "Proposal",
    "clause_spans",
    "explicit_request",
    "extract_memories",
    "first_person",
    "kind_of",
    "why_not_a_fact",
]

MAX_FACT_CHARS = 300


@dataclass(frozen=True)
class Proposal:
    text: str  # the memory, as a short first-person statement
    kind: str
    quote: str  # exactly as the user wrote it
    importance: int = 3
    explicit: bool = False  # the user asked to remember it


# Clauses: sentences end at . ! ? followed by a space (not "fly.io"), line breaks and semicolons;
# a clause also ends before ", can you…", ", how do I…", ", is that…", ", any…" and "and my/our/I…",
# so a request or question after a fact, or a second fact, is taken apart.
_CLAUSE_END = re.compile(
    r"(?<=[.!?])\s+|\n+|;\s*|,\s+(?=(?:can|could|would|will|please|pls|so can|and can)\b)|"
    r",\s+(?=(?:how|what|which|why|where|any|is (?:that|it|this|there)|should I|do you|does)\b)|"
    r"\s+(?:and|but)\s+(?=(?:my|our|I|I'm|we)\b)",
    re.IGNORECASE,
)
# Fenced code is the user pasting, not speaking: blanked out (offsets kept) before reading.
_CODE_FENCE = re.compile(r"```.*?(?:```|\Z)", re.DOTALL)
_QUESTION_START = re.compile(
    r"^\s*(?:what|who|whom|whose|where|when|why|how|which|is|are|am|was|were|do|does|did|can|could|"
    r"would|should|will|shall|may|might|have|has|had)\b",
    re.IGNORECASE,
)
_NOT_A_FACT = re.compile(
    r"\b(?:if|suppose|supposing|imagine|imagining|hypothetically|pretend|pretending|let's say|lets say|"
    r"what if|in theory|assuming|unless|wish|maybe|perhaps|probably|might|could be|would be|wonder)\b",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:says?|said|thinks?|thought|claims?|claimed|told me|tells me|believes?|according to|joked|jokes?)\b",
    re.IGNORECASE,
)
_EXPLICIT = re.compile(
    r"^\s*(?:please\s+|pls\s+|and\s+|also\s+|btw,?\s+)?(?:remember|note|keep in mind|don't forget|do not forget)"
    r"(?:\s+(?:that|this))?[:,]?\s+(?P<fact>\S.*)$",
    re.IGNORECASE,
)
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("person", re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\s+is\s+my\s+\w+", re.IGNORECASE)),
    (
        "person",
        re.compile(
            r"\b[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?\s+is\s+my\s+(?:new\s+)?(?:manager|boss|sister|brother|wife|husband|"
            r"partner|mother|mom|mum|father|dad|son|daughter|colleague|coworker|friend|teammate|cofounder|"
            r"co-founder|doctor|dentist|landlord|client|mentor|advisor|supervisor|cat|dog)\b"
        ),
    ),
    (
        "fact",
        re.compile(
            r"\b(?:my|our)\s+(?!bad\b|pleasure\b|god\b|goodness\b|guess\b|question\b)[\w'-]+(?:\s+[\w'-]+){0,3}?\s+(?:is|are|was|were|has|have|lives?|works?|goes|studies|runs?|uses?)\s+\S",
            re.IGNORECASE,
        ),
    ),
    ("preference", re.compile(r"\bI(?:'d|\s+would)?\s+(?:really\s+)?(?:prefer|rather)\b", re.IGNORECASE)),
    (
        "preference",
        re.compile(
            r"\bI\s+(?:really\s+)?(?:don't\s+|do not\s+)?(?:like|love|hate|dislike|enjoy|can't stand)\s+\S",
            re.IGNORECASE,
        ),
    ),
    ("fact", re.compile(r"\bI(?:'m|\s+am)\s+(?:allergic|vegetarian|vegan|based|a|an|the)\b", re.IGNORECASE)),
    (
        "project",
        re.compile(
            r"\bI(?:'m|\s+am)?\s+(?:work(?:ing)?|currently\s+working)\s+(?:on|at|for|with)\s+\S",
            re.IGNORECASE,
        ),
    ),
    ("fact", re.compile(r"\bI\s+(?:live|grew up)\s+in\s+\S", re.IGNORECASE)),
    (
        "fact",
        re.compile(
            r"\bI\s+(?:use|always use|mostly use|usually use|never use|don't use)\s+\S", re.IGNORECASE
        ),
    ),
    (
        "project",
        re.compile(
            r"\bwe(?:'re|\s+are|'ve|\s+have)?\s+(?:now\s+)?(?:moved|switched|migrated|moving|switching|migrating|use|using|"
            r"deploy|deploying|run|running|host|hosting)\s+\S",
            re.IGNORECASE,
        ),
    ),
)
_KIND_HINTS = (
    (
        "preference",
        re.compile(r"\b(?:prefer|rather|like|love|hate|dislike|enjoy|favou?rite)\b", re.IGNORECASE),
    ),
    (
        "person",
        re.compile(
            r"\b(?:manager|boss|sister|brother|wife|husband|partner|mother|father|son|daughter|colleague|friend)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "project",
        re.compile(
            r"\b(?:project|repo|service|database|deploy|stack|api|app|server|cluster|codebase|team)\b",
            re.IGNORECASE,
        ),
    ),
    (
        "event",
        re.compile(
            r"\b(?:deadline|meeting|appointment|birthday|launch|due|on (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b",
            re.IGNORECASE,
        ),
    ),
)


def explicit_request(message: str) -> Proposal | None:
    """The fact of a message that starts by asking to remember something ("remember that my cat
    is called Miso"), or None."""
    text = message.strip()
    match = _EXPLICIT.match(text)
    if match is None:
        return None
    fact = match["fact"].strip().rstrip(".!").strip()
    if not fact or fact.endswith("?") or len(fact) > MAX_FACT_CHARS:
        return None
    start = message.index(match["fact"].strip())
    quote = message[start : start + len(fact)]
    return Proposal(first_person(fact), kind_of(fact), quote, importance=4, explicit=True)


def extract_memories(message: str) -> list[Proposal]:
    """Facts the user states about themselves or their work in ``message``, one per sentence."""
    explicit = explicit_request(message)
    if explicit is not None:
        return [explicit]
    if '"' in message or "“" in message:
        return []  # quoted text is not the user speaking
    spoken = _CODE_FENCE.sub(lambda code: " " * len(code.group()), message)
    proposals: list[Proposal] = []
    for start_at, sentence in clause_spans(spoken):
        if why_not_a_fact(sentence) is not None:
            continue
        for kind, pattern in _PATTERNS:
            found = pattern.search(sentence)
            if found is None:
                continue
            start = start_at + found.start()
            end = start_at + len(sentence.rstrip().rstrip(".!,").rstrip())
            quote = message[start:end].strip()
            if len(quote.split()) >= 3 and len(quote) <= MAX_FACT_CHARS:
                hinted = kind_of(quote)
                proposals.append(Proposal(first_person(quote), hinted if hinted != "fact" else kind, quote))
            break
    return proposals


def why_not_a_fact(clause: str) -> str | None:
    """Why ``clause`` (one clause of a message) states no fact of the user's: "a question", "a
    hypothetical" or "someone else's words"; None when it may state one."""
    stripped = clause.strip()
    if stripped.endswith("?") or _QUESTION_START.match(stripped):
        return "a question"
    if _NOT_A_FACT.search(stripped):
        return "a hypothetical"
    if _REPORTED.search(stripped):
        return "someone else's words"
    return None


def clause_spans(message: str) -> list[tuple[int, str]]:
    """(offset, text) of each clause of ``message``: sentences, lines, and the parts a request
    or a second fact starts."""
    out: list[tuple[int, str]] = []
    start = 0
    for boundary in _CLAUSE_END.finditer(message):
        out.append((start, message[start : boundary.start()]))
        start = boundary.end()
    out.append((start, message[start:]))
    return [(offset, text) for offset, text in out if text.strip()]


def kind_of(text: str) -> str:
    """The kind of memory ``text`` reads as (preference, person, project, event), else "fact"."""
    for kind, pattern in _KIND_HINTS:
        if pattern.search(text):
            return kind
    return "fact"


def first_person(fact: str) -> str:
    """The fact as a sentence: first letter upper case, the user's own words otherwise."""
    fact = " ".join(fact.split())
    if not fact or "@" in fact.split(" ", 1)[0]:
        return fact  # an e-mail address keeps its case
    return fact[0].upper() + fact[1:]
