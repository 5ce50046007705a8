"""Passwords and other credentials said in words, whatever their shape: "the admin login for the
router is admin / hunter2", "mein Passwort ist Sommer2024", "my AWS secret access key wJalr…".

A word that names a secret (password, passcode, PIN, passphrase, API key, token, credentials,
login, door code… in several languages, any casing) followed by a value: after "is", ":", "=",
"was changed to" and the like, any value counts for a password-like word (not "in", "stored"…:
"the password is in 1Password" holds none); a value right after the word, or a looser word like
"key" or "token", counts only when it looks made up (letters with digits or symbols, mixed case
inside, four digits or more, a long random string) or is a "user / password" pair. Besides:
a made-up value before the word ("hunter2 is my password"), passwords in URLs
(``scheme://user:pass@host``), ``NAME_PASSWORD=value`` assignments, ``Authorization:`` headers,
and long random strings (mixed case and digits, high entropy) anywhere.
"""

from __future__ import annotations

import math
import re
from collections import Counter

__all__ = ["credential_in"]

_STRONG = (
    r"pass(?:word|wd|code|phrase|key)s?|pwd|pw|pin(?:\s*(?:code|number))?|mot\s+de\s+passe|passwort|"
    r"kennwort|contrase(?:ñ|n)a|senha|wachtwoord|l(?:ö|o)senord|has(?:ł|l)o|salasana|passord|adgangskode|"
    r"heslo|jelsz(?:ó|o)|(?:ş|s)ifre|пароль|密码|パスワード|"
    r"(?:secret|private|access|api|auth|signing|encryption|master|recovery|license|licence|product|"
    r"activation|wi-?fi|wlan|wpa2?|network|router)[\s_-]*keys?|client[\s_-]*secret|"
    r"(?:seed|recovery|mnemonic|backup)\s+(?:phrase|words)|"
    r"(?:backup|recovery|security|door|alarm|safe|gate|garage|entry|access|lock|verification|2fa|otp|"
    r"one[\s-]time|unlock)\s+codes?|(?:safe|lock)\s+combination|"
    r"(?:auth|access|api|bearer|refresh|session|personal\s+access|deploy|bot)\s+tokens?|pass(?=\s*[:=])|"
    r"cl(?:é|e)\s+(?:api|secr(?:è|e)te|priv(?:é|e)e)|clave\s+(?:api|secreta|privada)|chiave\s+(?:api|segreta)|"
    r"api[\s-]?schl(?:ü|ue)ssel"
)
_WEAK = r"keys?|tokens?|secrets?|credentials?|logins?|accounts?|auth|codes?"
# "code" after these words is not a secret: "my zip code is 10115", "the error code is 404".
_PUBLIC_CODES = re.compile(
    r"(?:zip|postal|post|area|country|source|error|status|exit|return|promo|promotion|discount|coupon|"
    r"voucher|dress|qr|bar|language|sort|product|tax|airport|colou?r|html|python|unicode|morse|"
    r"tracking|booking|reference|iata|icao|swift|bic|routing|zip\+4)\s*$",
    re.IGNORECASE,
)
_KEYWORD = re.compile(rf"(?<![\w-])(?:(?P<strong>{_STRONG})|(?P<weak>{_WEAK}))(?![\w-])", re.IGNORECASE)
_NUMBERS = re.compile(r"pin|code|combination", re.IGNORECASE)
_PAIR_WORDS = re.compile(r"login|credential|account|user|sign", re.IGNORECASE)

# "is", ":", "=" and their kind, in the languages above.
_SEPARATORS = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "=",
        ":",
        "->",
        "—",
        "–",
        "'s",
        "’s",
        "ist",
        "lautet",
        "heißt",
        "heisst",
        "sind",
        "war",
        "est",
        "sont",
        "es",
        "son",
        "é",
        "è",
        "är",
        "er",
        "je",
        "jest",
        "equals",
    ]
)
_SKIPPED_AFTER = frozenset(
    ["now", "still", "just", "currently", "simply", "literally", "set", "changed", "reset", "updated", "to"]
)
_PREPOSITIONS = frozenset(["for", "of", "to", "on", "at", "in", "from", "with"])
# Words that can follow "password is" without being one.
_NOT_VALUES = frozenset(
    [
        "in",
        "on",
        "at",
        "the",
        "a",
        "an",
        "my",
        "your",
        "our",
        "their",
        "its",
        "his",
        "her",
        "this",
        "that",
        "these",
        "those",
        "stored",
        "kept",
        "saved",
        "written",
        "same",
        "not",
        "never",
        "required",
        "expired",
        "changed",
        "reset",
        "too",
        "very",
        "inside",
        "under",
        "managed",
        "handled",
        "hidden",
        "easy",
        "hard",
        "weak",
        "strong",
        "long",
        "short",
        "also",
        "what",
        "where",
        "here",
        "there",
        "below",
        "above",
        "attached",
        "unknown",
        "missing",
        "empty",
        "blank",
        "none",
        "null",
        "set",
        "something",
        "somewhere",
        "different",
        "secure",
        "safe",
        "wrong",
        "important",
        "needed",
        "used",
        "shared",
        "encrypted",
        "rotated",
        "protected",
        "private",
        "secret",
        "sensitive",
        "valid",
        "invalid",
        "case-sensitive",
        "how",
        "why",
        "when",
        "which",
        "who",
        "and",
        "or",
        "but",
        "if",
        "so",
        "because",
        "since",
        "as",
        "than",
        "then",
        "by",
        "via",
        "with",
        "without",
        "for",
        "of",
        "from",
        "into",
    ]
)
# ...and words that can end the sentence without being one ("the password is correct").
_NOT_ALONE = frozenset(
    ["correct", "right", "fine", "ok", "okay", "good", "bad", "new", "old", "temporary", "default", "fixed"]
)
_CLAUSE_END = re.compile(r"[.;!?](?:\s|$)|\n|,\s+(?:and|but|so)\s")
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+[\w.-]*$", re.IGNORECASE)
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}$")
_EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(?:\.[\w-]+)+$")
_PAIR = re.compile(r"^(?P<user>[^\s/:]+)\s*(?:/|:)\s*(?P<secret>\S+)")
_URL_PASSWORD = re.compile(r"\b[a-z][a-z0-9+.-]{0,30}://[^\s/:@]{1,200}:[^\s/@]{1,200}@", re.IGNORECASE)
_ASSIGNMENT = re.compile(
    r"\b[A-Za-z0-9_]*(?:PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIALS?)"
    r"[A-Za-z0-9_]*\s*[=:]\s*[\"']?[^\s\"']{6,}",
    re.IGNORECASE,
)
# The value before the word: "hunter2 is my password", "use 'Tr0ub4dor' as the wifi password".
_VALUE_FIRST = re.compile(
    r"(?<!\S)(?P<value>\S{1,200})\s+(?:is|was|as)\s+(?:my|the|our|your|a|an|his|her|their)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:password|passwd|passcode|passphrase|pin|pwd)\b(?!\s*(?:manager|policy|rules?|reset|hint|change))",
    re.IGNORECASE,
)
_AUTHORIZATION = re.compile(r"\bauthorization\s*:\s*(?:basic|bearer|token|digest)\s+\S{8,}", re.IGNORECASE)
_RANDOM = re.compile(r"(?<![\w/+=.:@-])[A-Za-z0-9+/=_-]{32,}(?![\w/+=.:@-])")
_TOKENISH = re.compile(r"[A-Za-z0-9+/=_.-]{16,}")
_QUOTES = "\"'`“‘«"
_STRIP = "\"'`“”‘’«»()[]{}<>,.;"


def credential_in(text: str) -> str | None:
    """What kind of credential ``text`` states ("a password", "a secret key"...), or None."""
    if _URL_PASSWORD.search(text):
        return "a password in a URL"
    if _ASSIGNMENT.search(text) or _AUTHORIZATION.search(text):
        return "a secret"
    for match in _VALUE_FIRST.finditer(text):
        value = match.group("value")
        if value[:1] in _QUOTES or _looks_made_up(value.strip(_STRIP)):
            return "a password"
    for match in _KEYWORD.finditer(text):
        strong = match.group("strong") is not None
        if match.group(0).casefold().startswith("code") and _PUBLIC_CODES.search(
            text[max(0, match.start() - 40) : match.start()]
        ):
            continue
        if _states_value(text[match.end() : match.end() + 200], strong, match.group(0)):
            return "a password" if strong and _is_password_word(match.group(0)) else "a secret"
    for token in _RANDOM.findall(text):
        if _random_looking(token, length=32, bits=4.0):
            return "a secret key"
    return None


def _is_password_word(word: str) -> bool:
    return not re.search(r"key|token|secret|code|phrase|words|combination", word, re.IGNORECASE)


def _states_value(rest: str, strong: bool, keyword: str) -> bool:
    """Whether ``rest`` (what follows the keyword) gives the secret's value."""
    end = _CLAUSE_END.search(rest)
    clause = (rest[: end.start()] if end else rest).lstrip()
    if clause[:1] in (":", "=") and not clause.startswith("://"):
        return _value(clause[1:], strong, keyword, explicit=True)
    words = clause.split()
    for position, word in enumerate(words[:6]):
        if word.casefold() in _SEPARATORS:
            gap, value = words[:position], words[position + 1 :]
        elif word[-1] in ":=":
            gap, value = words[: position + 1], words[position + 1 :]
        else:
            continue
        explicit = not gap or gap[0].casefold() in _PREPOSITIONS
        return _value(" ".join(value), strong, keyword, explicit=explicit)
    return _value(clause, strong, keyword, explicit=False)


def _value(value: str, strong: bool, keyword: str, *, explicit: bool) -> bool:
    """Whether ``value`` (the text after a separator, or right after the keyword) is a secret."""
    words = value.split()
    while len(words) > 1 and words[0].casefold() in _SKIPPED_AFTER:
        words = words[1:]
    if not words:
        return False
    joined = " ".join(words)
    pair = _PAIR.match(joined)
    if pair and (strong or _PAIR_WORDS.search(keyword)) and not _DATE.match(pair.group(0)):
        user, secret = pair.group("user"), pair.group("secret").strip(_STRIP)
        if secret and secret.casefold() not in _NOT_VALUES and not user.isdigit():
            return True
    if strong and explicit and words[0][:1] in _QUOTES and len(joined.strip(_STRIP)) >= 3:
        return True  # a quoted value: "my passphrase is 'the quick brown fox'"
    first = words[0].strip(_STRIP)
    if (
        _NUMBERS.search(keyword)
        and sum(c.isdigit() for c in first) >= 4
        and not any(c.isalpha() for c in first)
    ):
        return True  # a PIN, a code or a combination: 4821, 12-34-56
    if len(words) == 1 and first.casefold() in _NOT_ALONE:
        return False
    if not first or first.casefold() in _NOT_VALUES or _EMAIL.match(first) or first[0] in "/~":
        return False
    if _looks_made_up(first):
        return True
    if _NUMBERS.search(keyword):
        return False  # a PIN or a code is digits (or made up): "the pin is bent" is not one
    return strong and explicit and len(first) >= 3 and not _VERSION.match(first) and not _DATE.match(first)


def _looks_made_up(word: str) -> bool:
    """Letters with digits or symbols, mixed case inside, 4+ digits, or a long random string."""
    if _VERSION.match(word) or _DATE.match(word) or _EMAIL.match(word):
        return False
    letters = sum(c.isalpha() for c in word)
    digits = sum(c.isdigit() for c in word)
    symbols = sum(c in "!#$%^&*+=?~|@_\\" for c in word)
    if digits >= 4 and letters == 0:
        return True  # 4821, 1234-5678, 1379# (dates and versions are out above)
    if letters and digits and len(word) >= 4:
        return True
    if letters and symbols and len(word) >= 5:
        return True
    if len(word) >= 6 and any(c.isupper() for c in word[1:]) and any(c.islower() for c in word):
        return True
    return bool(_TOKENISH.fullmatch(word)) and _random_looking(word, length=16, bits=3.5)


def _random_looking(token: str, *, length: int, bits: float) -> bool:
    if len(token) < length:
        return False
    kinds = sum(
        (any(c.islower() for c in token), any(c.isupper() for c in token), any(c.isdigit() for c in token))
    )
    if kinds < (3 if length >= 32 else 2):
        return False
    counts = Counter(token)
    entropy = -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())
    return entropy >= bits
