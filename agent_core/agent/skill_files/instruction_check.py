"""Text in a skill that tells the model to work against its user: exfiltrate, hide, override.

The rules look for instructions, not for topics, so that a skill about ``curl`` or about uploading
the user's files to S3 raises nothing. A sentence (or a line of code) is flagged when it:

- sends a secret store somewhere: a sending verb or command (send, upload, post, curl, wget...),
  something the user keeps private (``~/.ssh``, ``~/.aws``, a ``.env`` file, the environment as a
  whole, a keychain, the conversation or the system prompt) and a destination (a URL, an email
  address, an IP address, a webhook); or the same with API keys, tokens or passwords, unless it
  is about authenticating (a header, a bearer token);
- reads a private key or a credential store (``~/.ssh/id_*`` but not ``.pub``, ``.aws/credentials``,
  ``.netrc``, ``.git-credentials``, a keychain dump);
- hides what it does from the user (``without the user knowing``, ``do not tell the user``,
  ``hide this from the user``);
- overrides what came before (``ignore all previous instructions``).

A sentence that says not to (``never send keys to...``) is not flagged, nor one about attacks
(``malicious``, ``attacker``, ``detect``), nor a quoted phrase (``"ignore previous instructions"``
is how a skill about prompt injection names what it looks for).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import accumulate

__all__ = ["CODE_SUFFIXES", "Finding", "LineCounter", "find_instructions"]

MAX_FINDINGS_PER_FILE = 5

_SEND = re.compile(
    r"\b(?:send|sends|sending|upload|uploads|uploading|post|posts|posting|transmit|transmits|"
    r"exfiltrate|exfiltrates|forward|forwards|leak|leaks|beacon|submit|paste|e-?mail\s+(?:it|them|"
    r"this|these|the|all|every)|curl|wget|nc|ncat|netcat|scp|sendmail|mailx?|Invoke-WebRequest|"
    r"Invoke-RestMethod|requests\.(?:post|put|get)|httpx\.(?:post|put|get)|fetch\(|urlopen|axios|"
    r"sendBeacon)\b",
    re.IGNORECASE,
)
# What the user keeps private: sending any of it anywhere is exfiltration.
_STORE = re.compile(
    r"(?:~|\$HOME|%USERPROFILE%)/\.(?:ssh|aws|gnupg|kube|docker)\b|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|"
    r"\.aws/credentials|\.netrc\b|\.git-credentials|\.pypirc|\.npmrc|/etc/(?:passwd|shadow)\b|"
    r"(?<![\w-])\.env\b(?!\.example|\.sample|\.template)|\bprintenv\b|\$\(\s*env\b|\benv\s*\||"
    r"\bos\.environ\b(?!\s*(?:\[|\.get|\.setdefault))|\bprocess\.env\b(?!\s*(?:\.|\[))|"
    r"\b(?:all|every|the\s+user'?s)\s+(?:of\s+the\s+)?environment\s+variables\b|\bkeychains?\b|"
    r"\bseed\s+phrase|\bwallet\.dat\b|\bLogin\s+Data\b|\b(?:browser|saved)\s+(?:cookies|passwords)\b|"
    r"\b(?:conversation|chat)\s+history\b|\bsystem\s+prompt\b|\bthe\s+user'?s\s+(?:files|documents|"
    r"messages|data|home)\b|\bhome\s+(?:directory|folder)\b",
    re.IGNORECASE,
)
_CREDENTIAL = re.compile(
    r"\b(?:api[\s_-]?keys?|secrets?|tokens?|passwords?|passwd|credentials?|private\s+keys?|ssh\s+keys?)\b",
    re.IGNORECASE,
)
_AUTHENTICATING = re.compile(
    r"\b(?:authorization|authenticat\w*|bearer|headers?|x-api-key|oauth|login|log\s+in|sign\s+in)\b|"
    r"(?:^|\s)-u\s|--user\b",
    re.IGNORECASE,
)
_DESTINATION = re.compile(
    # Bounded repeats: a long run of word characters must not cost a scan per starting position.
    r"\bhttps?://[^\s)>\]\"'`]{1,2000}|\b[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){0,8}\.[a-z]{2,24}\b|"
    r"\b\d{1,3}(?:\.\d{1,3}){3}\b|\bwebhooks?\b|\bpastebin\b|\brequestbin\b|\bngrok\b|"
    r"\b(?:external|remote|my|our|this)\s+(?:server|endpoint)\b",
    re.IGNORECASE,
)
_READ = re.compile(
    r"\b(?:read|reads|cat|open|copy|print|dump|collect|gather|grab|extract|harvest|steal|"
    r"include|attach|append|embed|encode|contents?\s+of|base64|find-generic-password|find-internet-password|dump-keychain)\b",
    re.IGNORECASE,
)
_KEY_STORE = re.compile(
    r"(?:~|\$HOME)/\.ssh(?:/id_\w+(?!\.pub)\b|/?(?=[\s`'\"]|$))|\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)|"
    r"\.aws/credentials|\.netrc\b|\.git-credentials|/etc/shadow\b|\bdump-keychain\b|"
    r"\bfind-(?:generic|internet)-password\b|\b(?:the\s+user'?s|all)\s+keychains?\b|\bwallet\.dat\b|"
    r"\bseed\s+phrase",
    re.IGNORECASE,
)
_HIDING = re.compile(
    r"\bwithout\s+(?:the\s+user(?:'s)?\s+(?:knowing|knowledge|noticing|awareness|seeing)|"
    r"(?:telling|informing|notifying|alerting)\s+the\s+user)\b|"
    r"\b(?:hide|conceal)\b[^.]{0,60}\bfrom\s+the\s+user\b|"
    r"\b(?:do\s+not|don't|never)\s+(?:tell|inform|notify|alert)\s+the\s+user\b|"
    r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose|admit)\s+(?:this\s+|it\s+|anything\s+)?to\s+the\s+user\b|"
    r"\b(?:do\s+not|don't|never)\s+(?:mention|reveal|disclose)\s+(?:(?:this|these)\s+(?:steps?|actions?|"
    r"commands?|instructions?|requests?|uploads?|calls?)|(?:that|what)\s+you\s+(?:did|ran|sent|read|"
    r"uploaded|are\s+doing|have\s+done))\b",
    re.IGNORECASE,
)
_OVERRIDE = re.compile(
    r"\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?"
    r"(?:previous|prior|above|earlier|preceding|original|system)\s+(?:instructions?|prompts?|rules?|"
    r"messages?|directions?|guidelines?)\b",
    re.IGNORECASE,
)
_SAYING = re.compile(r"\s*[:,]?\s*[\"“'`]")  # "never tell the user 'X'": words to avoid, not secrets
_NEGATED = re.compile(
    r"\b(?:never|not|don't|doesn't|avoid|mustn't|shouldn't|cannot|can't|won't|no)\b", re.IGNORECASE
)
_ABOUT_ATTACKS = re.compile(
    r"\b(?:malicious|attacker\w*|attacks?|theft|harvest\w*|steal\w*|risks?|indicators?|exploit\w*|vulnerab\w*|detect\w*|suspicious|exfiltration|"
    r"injection|phishing|malware|threat\w*|audit\w*)\b",
    re.IGNORECASE,
)
_QUOTED = re.compile(r"\"[^\"]{3,200}\"|“[^”]{3,200}”|'[^'\n]{8,200}'|`[^`]{1,500}`")
# Words one of the rules needs (a secret, hiding, overriding), looked for first in lower case: most
# paragraphs hold none of them, and only those that do are read closely.
_KEYWORDS = (
            ".ssh", "id_rsa", "id_ed25519", "id_ecdsa", "id_dsa", ".aws", ".env", "printenv", "environ",
            "process.env", "environment variable", "keychain", "seed phrase", "wallet", "login data",
            "cookies", "history", "system prompt", "user's", "home director", "home folder", "api key",
            "api_key", "apikey", "secret", "token", "password", "passwd", "credential", "private key",
            "ssh key", "netrc", "pypirc", "npmrc", "/etc/", "$(env", "env |", "find-generic",
            "find-internet", "dump-keychain", "without", "from the user", "the user", "mention", "reveal",
            "disclose", "ignore", "disregard", "forget", "override",
)  # fmt: skip


_WINDOW = 2000  # characters of one sentence judged at once
_OVERLAP = 300  # so an instruction across two windows is whole in one of them
_NUMBERED = re.compile(r"\d+[.)]\s")
_RULE = re.compile(r"^(?:-{3,}|\*{3,}|_{3,})$")
_FENCES = re.compile(r"^\s*(?:```|~~~)", re.MULTILINE)
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*\"(\[])")
CODE_SUFFIXES = (".py", ".sh", ".bash", ".zsh", ".js", ".mjs", ".cjs", ".ts", ".ps1", ".rb", ".pl", ".go")


@dataclass(frozen=True)
class Finding:
    """One instruction that works against the user, where it is and what it does."""

    line: int
    kind: str  # exfiltration, credential-read, hiding, override
    what: str  # what the rule saw, in words
    excerpt: str


def find_instructions(text: str, file_name: str = "SKILL.md") -> list[Finding]:
    """The sentences of ``text`` that tell the model to send data out, read credentials, hide what it
    does or ignore what came before; at most ``MAX_FINDINGS_PER_FILE``, in line order."""
    hits = _keyword_offsets(text)
    if not hits:
        return []
    code_file = file_name.lower().endswith(CODE_SUFFIXES)
    blocks = text.split("\n\n")  # paragraphs; only those holding a keyword are read closely
    starts = list(accumulate((len(block) + 2 for block in blocks[:-1]), initial=0))
    wanted = {bisect_right(starts, offset) - 1 for offset in hits}
    findings: list[Finding] = []
    line = 1
    in_code = code_file
    for index, block in enumerate(blocks):
        if index in wanted:
            # A catalogue of attacks (a security skill's table of patterns) says so near the example.
            nearby = "\n".join(blocks[max(0, index - 1) : index + 2])
            about_attacks = _ABOUT_ATTACKS.search(nearby) is not None
            for first, whole, code in _segments(block, line, code_file=code_file, in_code=in_code):
                for number, segment in _windows(whole, first):
                    lowered = segment.lower()
                    if not any(keyword in lowered for keyword in _KEYWORDS):
                        continue
                    finding = _judge(segment, number, code=code, about_attacks=about_attacks)
                    if finding is not None:
                        findings.append(finding)
                        if len(findings) >= MAX_FINDINGS_PER_FILE:
                            return findings
                        break
        if not code_file and ("```" in block or "~~~" in block):
            in_code = in_code != (len(_FENCES.findall(block)) % 2 == 1)
        line += block.count("\n") + 2
    return findings


def _windows(segment: str, line: int) -> Iterator[tuple[int, str]]:
    """(first line, text) of a sentence, or of overlapping parts of one too long to be a sentence
    (a line of data), so the rules' cost stays proportional to the text."""
    if len(segment) <= _WINDOW:
        yield line, segment
        return
    lines = LineCounter(segment, line)
    for start in range(0, len(segment), _WINDOW - _OVERLAP):
        yield lines.line_at(start), segment[start : start + _WINDOW]


def _keyword_offsets(text: str) -> list[int]:
    """Where the words the rules need occur (plain substring search: many times faster over a large
    file than a regular expression with many alternatives)."""
    lowered = text.lower()
    offsets: list[int] = []
    for keyword in _KEYWORDS:
        found = lowered.find(keyword)
        while found >= 0:
            offsets.append(found)
            found = lowered.find(keyword, found + len(keyword))
    return offsets


def _judge(segment: str, line: int, *, code: bool, about_attacks: bool) -> Finding | None:
    unquoted = _QUOTED.sub(' "" ', segment)  # a quotation kept as an empty one: its place still shows
    if not about_attacks:
        if (send := _SEND.search(segment)) and (destination := _DESTINATION.search(segment)):
            before = segment[: send.start()]
            if not _NEGATED.search(before):
                if store := _STORE.search(segment):
                    what = f"sends {store.group(0)!r} to {_where(destination)!r}"
                    return _finding(line, "exfiltration", what, segment, send.start())
                # In code, a key passed to a URL is how APIs are called; in prose it is an order.
                credential = None if code else _CREDENTIAL.search(segment)
                if credential and not _AUTHENTICATING.search(segment):
                    what = f"sends {credential.group(0)!r} to {_where(destination)!r}"
                    return _finding(line, "exfiltration", what, segment, send.start())
        store = _KEY_STORE.search(segment)
        read = _READ.search(segment) if store else None
        if store and read and not _NEGATED.search(segment[: min(read.start(), store.start())]):
            at = min(read.start(), store.start())
            return _finding(line, "credential-read", f"reads {store.group(0)!r}", segment, at)
    if (hiding := _HIDING.search(unquoted)) and not _SAYING.match(unquoted, hiding.end()):
        what = f"hides what it does from the user ({hiding.group(0)!r})"
        return _finding(line, "hiding", what, unquoted, hiding.start())
    if (override := _OVERRIDE.search(unquoted)) and not about_attacks:
        what = f"overrides earlier instructions ({override.group(0)!r})"
        return _finding(line, "override", what, unquoted, override.start())
    return None


def _where(destination: re.Match[str]) -> str:
    return destination.group(0).rstrip(".,;:!?")


def _finding(line: int, kind: str, what: str, segment: str, at: int) -> Finding:
    """A finding at the line of offset ``at`` in ``segment``, with the words around it."""
    start = max(0, at - 60)
    excerpt = " ".join(segment[start : start + 160].split())
    if start:
        excerpt = "..." + excerpt
    if start + 160 < len(segment):
        excerpt += "..."
    return Finding(line + segment.count("\n", 0, at), kind, what, excerpt)


def _segments(
    text: str, first_line: int, *, code_file: bool, in_code: bool
) -> Iterator[tuple[int, str, bool]]:
    """(first line, text, is code) of each sentence of prose and each line of code (continuations
    joined) in ``text``, which starts at ``first_line`` (and inside a code block when ``in_code``)."""
    paragraph: list[str] = []
    paragraph_line = 0
    pending = ""
    pending_line = 0
    for number, line in enumerate(text.splitlines(), start=first_line):
        if not code_file and _FENCE.match(line):
            yield from _sentences(paragraph, paragraph_line)
            paragraph = []
            in_code = not in_code
            continue
        if in_code:
            if pending:
                pending += " " + line.strip()
            else:
                pending, pending_line = line.strip(), number
            if pending.endswith("\\"):
                pending = pending[:-1]
                continue
            if pending:
                yield pending_line, pending, True
            pending = ""
            continue
        stripped = line.strip()
        rule = _RULE.match(stripped) is not None  # a header's fences are no part of a sentence
        if (
            not stripped
            or rule
            or stripped.startswith(("#", "- ", "* ", "|", ">"))
            or _NUMBERED.match(stripped)
        ):
            yield from _sentences(paragraph, paragraph_line)
            paragraph = []
            if not stripped or rule:
                continue
        if not paragraph:
            paragraph_line = number
        paragraph.append(stripped)
    if pending:
        yield pending_line, pending, True
    yield from _sentences(paragraph, paragraph_line)


def _sentences(paragraph: list[str], first_line: int) -> Iterator[tuple[int, str, bool]]:
    if not paragraph:
        return
    text = "\n".join(paragraph)
    lines = LineCounter(text, first_line)
    offset = 0
    for sentence in _SENTENCE_END.split(text):
        start = text.find(sentence, offset)
        offset = start + len(sentence)
        yield lines.line_at(max(start, 0)), sentence, False  # its line breaks kept


class LineCounter:
    """The line of each offset of ``text``, asked for in increasing order: each line break is
    counted once, so a paragraph of 20,000 lines costs its length, not its length squared (as
    counting from the start for every sentence did)."""

    def __init__(self, text: str, first_line: int) -> None:
        self._text = text
        self._line = first_line
        self._counted_to = 0

    def line_at(self, offset: int) -> int:
        """The line ``offset`` is on; offsets must not go back.

        Raises:
            ValueError: ``offset`` is before one asked for earlier.
        """
        if offset < self._counted_to:
            raise ValueError(f"offset {offset} is before {self._counted_to}: ask in increasing order")
        self._line += self._text.count("\n", self._counted_to, offset)
        self._counted_to = offset
        return self._line
