"""Secrets and sensitive personal data that are never saved as memories automatically.

A manual save of text matching one is allowed after a warning naming what was found. The list
(docs/memory.md repeats it): API keys and tokens of well-known shapes, bearer tokens, private-key
blocks, JSON web tokens, passwords, PINs, keys and other credentials said in words whatever their
shape (``_credentials.py``), payment card numbers (Luhn-checked),
IBANs, US social security numbers. E-mail addresses and names are not on it: "dana@kestrel.io is
my manager" is the kind of fact memories are for.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_core.memory._credentials import credential_in

__all__ = ["SensitiveMatch", "find_sensitive"]


@dataclass(frozen=True)
class SensitiveMatch:
    what: str  # "an API key", "a card number"...

    def __str__(self) -> str:
        return self.what


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an API key", re.compile(r"\b(?:sk|pk|rk)-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}")),
    ("a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})")),
    ("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}")),
    ("a Slack token", re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}")),
    ("an AWS access key", re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b")),
    ("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_-]{30,}")),
    ("a bearer token", re.compile(r"\bbearer\s+[A-Za-z0-9._~+/-]{16,}=*", re.IGNORECASE)),
    ("a JSON web token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("a US social security number", re.compile(r"\b(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}\b")),
    ("an IBAN", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){3,7}(?: ?[A-Z0-9]{1,3})?\b")),
)
_CARD = re.compile(r"\b(?:\d[ -]?){12,18}\d\b")


def find_sensitive(text: str) -> list[SensitiveMatch]:
    """What sensitive data ``text`` holds, one match per kind, in the order of the list above."""
    found = [SensitiveMatch(what) for what, pattern in _PATTERNS if pattern.search(text)]
    if any(_luhn_valid(re.sub(r"\D", "", m.group())) for m in _CARD.finditer(text)):
        found.append(SensitiveMatch("a payment card number"))
    credential = None if found else credential_in(text)
    if credential is not None:
        found.append(SensitiveMatch(credential))
    return found


def _luhn_valid(digits: str) -> bool:
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0
