"""Whether a value in another app's config is a secret: decided by the value and its key together.

A key name alone misleads both ways: ``DEFAULT_MINIMUM_TOKENS: "6000"`` is a number and
``GOOGLE_APPLICATION_CREDENTIALS: /home/x/creds.json`` is a path, while ``ghp_...`` is a GitHub
token under any key. So:

- a value in a well-known token shape (``sk-``, ``ghp_``, ``xoxb-``, ``AKIA``...) is a secret anywhere;
- a number, a boolean, a path, an e-mail address or a URL (whose own password is handled apart)
  never is;
- under a key that names a secret outright (``..._TOKEN``, ``..._SECRET``, ``PASSWORD``,
  ``API_KEY``) any other value is;
- under a key that only may (``..._KEY``, ``AUTH...``, ``CREDENTIAL...``) only a token-like value is:
  long, without spaces, with letters and digits mixed or high entropy.
"""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = ["KNOWN_TOKEN", "is_reference", "is_secret"]

# Well-known token shapes: GitHub, OpenAI/Anthropic (sk-...), Slack, AWS key ids, GitLab, Google,
# Hugging Face, npm, Stripe.
KNOWN_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}"
    r"|xox[abpr]-[A-Za-z0-9-]{10,}|xapp-[A-Za-z0-9-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|glpat-[A-Za-z0-9_-]{20,}"
    r"|AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{36}|[sr]k_live_[A-Za-z0-9]{20,})"
)
# Keys that say "this is a secret" (TOKEN but not TOKENS, which counts them).
_STRONG_KEY = re.compile(
    r"(?:TOKEN(?!S)|SECRET|PASSWORD|PASSWD|PASSPHRASE|API[-_]?KEY|ACCESS[-_]?KEY|PRIVATE[-_]?KEY|\bPAT\b)",
    re.IGNORECASE,
)
# Keys that may hold one (KEYBOARD, AUTHOR and AUTH_TYPE too, so the value decides).
_WEAK_KEY = re.compile(r"(?:KEY|AUTH|CREDENTIAL|COOKIE|SESSION)", re.IGNORECASE)
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:[._]\d+)*|\d*\.\d+)(?:[eE][+-]?\d+)?$")
_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "none", "bearer", "basic", "oauth", "oauth2"}
_PATH = re.compile(r"^(?:~|\.{1,2})?[/\\]|^[A-Za-z]:[/\\]|^\\\\")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_EMAIL = re.compile(r"^[^@\s/:]+@[^@\s/:]+\.[A-Za-z]{2,}$")


def is_reference(value: str) -> bool:
    """An ``env://`` / ``keyring://`` reference or a ``${...}`` template: no secret in the file."""
    return value.startswith(("env://", "keyring://")) or "${" in value or not value


def is_secret(key: str, value: str) -> bool:
    """Whether ``value``, found under ``key``, is a literal secret (see the module's rules)."""
    value = value.strip()
    if is_reference(value):
        return False
    if KNOWN_TOKEN.fullmatch(value):
        return True
    if _is_plain(value):
        return False
    if _STRONG_KEY.search(key):
        return True
    return bool(_WEAK_KEY.search(key)) and _token_like(value)


def _is_plain(value: str) -> bool:
    """A value no one keeps a secret in: a number, a flag word, a path, a URL, an e-mail address."""
    return bool(
        _NUMBER.match(value)
        or value.lower() in _WORDS
        or _PATH.match(value)
        or _URL.match(value)
        or _EMAIL.match(value)
    )


def _token_like(value: str) -> bool:
    if len(value) < 16 or any(char.isspace() for char in value):
        return False
    mixed = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
    return mixed or _entropy(value) >= 3.5


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character: about 4-6 for random keys, below 3.5 for most words."""
    counts = Counter(value)
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())
