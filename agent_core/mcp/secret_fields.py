"""Which fields of a server's form ask for a secret, decided once here for every front end.

A field is secret when its schema says so (``format: password``, ``writeOnly: true``) or when its
words name one: password, passphrase, passcode, secret, credential, API key, access token... in
its name, title or description; token, key, PIN in its name or title. Front ends hide what is typed in such a field (a
password box, a terminal read without echo) and say which server asks (``secret_warning``). A
wrongly masked field costs a click on Show; a missed one shows a password on screen, so the words
are taken broadly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

__all__ = [
    "SECRET_FORMATS",
    "SECRET_PAIRS",
    "SECRET_WORDS",
    "SHORT_SECRET_WORDS",
    "is_secret_schema",
    "secret_warning",
]

#: Words that name a secret wherever they appear: the field's name, title or description.
SECRET_WORDS = frozenset(
    {
        "password",
        "passwd",
        "pwd",
        "passphrase",
        "passcode",
        "secret",
        "secrets",
        "credential",
        "credentials",
        "apikey",
        "otp",
    }
)
#: Pairs of words that name one ("API key", "access token", "private key").
SECRET_PAIRS = frozenset(
    {("api", "key"), ("access", "key"), ("private", "key"), ("access", "token"), ("auth", "token")}
)
#: Words that name a secret in a field's name or title only (a description saying "the key of the
#: row" or "a token count" is not asking for one).
SHORT_SECRET_WORDS = frozenset({"token", "key", "pin", "2fa", "mfa", "totp"})
SECRET_FORMATS = frozenset({"password"})
_SECRET_KINDS = ("string", "number", "integer")  # what is typed (a choice or a check box is not)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> list[str]:
    """``apiKey``, ``api_key``, ``API-Key`` and ``api key`` all give ["api", "key"]."""
    return _WORD.findall(_CAMEL.sub(" ", text).lower())


def _names_a_secret(words: list[str], short_words: bool) -> bool:
    if SECRET_WORDS.intersection(words) or SECRET_PAIRS.intersection(pairwise(words)):
        return True
    return short_words and bool(SHORT_SECRET_WORDS.intersection(words))


def is_secret_schema(name: str, prop: Mapping[str, Any]) -> bool:
    """Whether the field ``name`` with the JSON schema ``prop`` asks for a secret."""
    if prop.get("type") not in _SECRET_KINDS or "enum" in prop or "oneOf" in prop:
        return False
    if prop.get("format") in SECRET_FORMATS or prop.get("writeOnly") is True:
        return True
    title, description = (prop.get(key) for key in ("title", "description"))
    named = _words(f"{name} {title if isinstance(title, str) else ''}")
    described = _words(description if isinstance(description, str) else "")
    return _names_a_secret(named, short_words=True) or _names_a_secret(described, short_words=False)


def secret_warning(server: str) -> str:
    """What a front end says above a form that asks for a secret."""
    return f"{server} asks for a secret: only enter it if you trust this server."
