"""Hiding credentials in text that is shown, stored or logged: URL passwords, secret-looking query
parameters, bearer tokens and API keys of well-known shapes. The last line of defence for error
messages, which quote URLs and servers' answers."""

from __future__ import annotations

import logging
import re

__all__ = ["RedactingFilter", "redact_credentials", "redact_url"]

HIDDEN = "***"

_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/\s@]+)@")
_SECRET_PARAM = re.compile(
    r"(?P<name>[?&;](?:[a-z0-9_-]*?(?:key|token|secret|password|passwd|pwd|sig|signature|auth|credential)s?"
    r"[a-z0-9_-]*))=(?P<value>[^&#\s\"']+)",
    re.IGNORECASE,
)
_BEARER = re.compile(r"\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_KEYS = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|"
    r"glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|(?:AKIA|ASIA)[A-Z0-9]{16})"
)


def redact_url(url: str) -> str:
    """``url`` with its password (or whole user part) and secret query values hidden."""
    return redact_credentials(url)


def redact_credentials(text: str) -> str:
    """``text`` with every credential this module recognises replaced by ``***``."""
    text = _USERINFO.sub(lambda m: f"{m['scheme']}{HIDDEN}@", text)
    text = _SECRET_PARAM.sub(lambda m: f"{m['name']}={HIDDEN}", text)
    text = _BEARER.sub(lambda m: f"{m[1]} {HIDDEN}", text)
    return _KEYS.sub(HIDDEN, text)


class RedactingFilter(logging.Filter):
    """Hides credentials in every record a handler writes: libraries log full request URLs
    (httpx at INFO), and a provider's base URL may hold a password or a key."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = redact_credentials(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True
