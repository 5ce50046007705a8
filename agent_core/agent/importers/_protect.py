"""One env or header value from another app's config, with any literal secret moved out.

A whole secret becomes ``env://VAR``; a secret inside a longer value (``Bearer ...``, a token in a
URL or in text) becomes ``${VAR}`` there, which is expanded when the server starts. Every move is
reported with the variable to set. References and templates (``${VAR}``, ``${input:id}``) are kept
as written: they hold no secret.
"""

from __future__ import annotations

import re

from agent_core.agent.importers._arg_secrets import secret_url
from agent_core.agent.importers._common import ImportReport, secret_value
from agent_core.agent.importers._secret_detection import KNOWN_TOKEN, is_reference, is_secret
from agent_core.agent.secrets import ENV_SCHEME

__all__ = ["protect_value"]

# "Bearer <token>", "Basic <base64>", "token <pat>" (GitHub), "Bot <token>" (Discord).
_AUTH_SCHEME = re.compile(r"^(Bearer|Basic|Token|Bot)(\s+)(\S+)$", re.IGNORECASE)
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def protect_value(
    key: str, value: str, variable: str, report: ImportReport, *, where: str, server: str, copy_secrets: bool
) -> str:
    """``value`` to write into agent.yaml (see the module docstring)."""
    if copy_secrets or is_reference(value):
        return value
    if _URL.match(value):  # DATABASE_URL=postgres://user:password@host/db
        return secret_url(server, value, report, copy_secrets=False)
    if scheme := _AUTH_SCHEME.match(value):
        word, space, credential = scheme.groups()
        if not is_reference(credential):
            return f"{word}{space}{_embedded(credential, variable, report, where)}"
        return value
    if is_secret(key, value):
        return secret_value(value, variable, report, where, False)
    if KNOWN_TOKEN.search(value):  # a token inside other text
        return KNOWN_TOKEN.sub(lambda match: _embedded(match.group(0), variable, report, where), value)
    return value


def _embedded(secret: str, variable: str, report: ImportReport, where: str) -> str:
    kept = secret_value(secret, variable, report, where, False)
    return "${" + kept.removeprefix(ENV_SCHEME) + "}"
