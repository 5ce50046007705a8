"""Secrets hidden in an MCP server's command-line arguments and URL, moved out on import.

Other apps' configs often carry a key in ``args`` (``--token ghp_...``, ``--api-key=sk-...``) or
in a URL (``https://user:pw@host``, ``?api_key=...``). Each such value becomes a reference to an
environment variable named after the server and the flag (``github`` + ``--token`` ->
``GITHUB_TOKEN``): ``env://VAR`` for a whole argument, ``${VAR}`` inside a longer one or a URL.
Both are resolved when the server starts. ``--copy-secrets`` keeps the literal values.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import SplitResult, urlsplit, urlunsplit

from agent_core.agent.importers._common import ImportReport, env_variable_for, secret_value
from agent_core.agent.importers._secret_detection import KNOWN_TOKEN
from agent_core.agent.secrets import ENV_SCHEME

__all__ = ["secret_args", "secret_url"]

# --token, --api-key, --apikey, --password, --secret, --client-secret, --access-token, --pat ...
_SECRET_FLAG = re.compile(
    r"^--?(?:[A-Za-z0-9]+[-_])*(?:token|api[-_]?key|apikey|key|password|passwd|pass|pwd|secret|pat|auth)$",
    re.IGNORECASE,
)
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SECRET_PARAMS = {
    "key",
    "apikey",
    "api_key",
    "api-key",
    "token",
    "access_token",
    "auth_token",
    "secret",
    "client_secret",
    "password",
    "pass",
    "pwd",
}


class _Names:
    """Variable names for one server, each used once."""

    def __init__(self, server: str) -> None:
        self._server = server
        self._taken: set[str] = set()

    def new(self, what: str) -> str:
        base = env_variable_for(self._server, what)
        name, counter = base, 2
        while name in self._taken:
            name, counter = f"{base}_{counter}", counter + 1
        self._taken.add(name)
        return name


def _flag_stem(flag: str) -> str:
    return flag.lstrip("-")


def _embedded(value: str, variable: str, report: ImportReport, where: str, copy_secrets: bool) -> str:
    """``value`` as it should appear inside a longer string: ``${VAR}`` or, when copying, itself."""
    kept = secret_value(value, variable, report, where, copy_secrets)
    return "${" + kept.removeprefix(ENV_SCHEME) + "}" if kept.startswith(ENV_SCHEME) else kept


def _is_reference(value: str) -> bool:
    return value.startswith(ENV_SCHEME) or ("${" in value and "}" in value) or not value


def secret_args(server: str, args: Sequence[str], report: ImportReport, *, copy_secrets: bool) -> list[str]:
    """``args`` with secret values replaced by variable references (each move reported)."""
    names = _Names(server)
    where = f"MCP server '{server}' args"
    out: list[str] = []
    follows_flag: str | None = None
    for arg in args:
        if follows_flag is not None and not arg.startswith("-") and not _is_reference(arg):
            variable = names.new(_flag_stem(follows_flag))
            out.append(secret_value(arg, variable, report, f"{where}: {follows_flag}", copy_secrets))
            follows_flag = None
            continue
        follows_flag = arg if _SECRET_FLAG.match(arg) else None
        flag, equals, value = arg.partition("=")
        if equals and _SECRET_FLAG.match(flag) and not _is_reference(value):
            variable = names.new(_flag_stem(flag))
            out.append(f"{flag}={_embedded(value, variable, report, f'{where}: {flag}', copy_secrets)}")
            continue
        if KNOWN_TOKEN.search(arg) and not copy_secrets:
            if KNOWN_TOKEN.fullmatch(arg):
                arg = secret_value(arg, names.new("TOKEN"), report, f"{where}: a token", copy_secrets)
            else:
                arg = KNOWN_TOKEN.sub(
                    lambda match: _embedded(
                        match.group(0), names.new("TOKEN"), report, f"{where}: a token", copy_secrets
                    ),
                    arg,
                )
        elif _URL.match(arg):  # https://..., postgresql://user:pw@host/db, redis://...
            arg = secret_url(server, arg, report, copy_secrets=copy_secrets, names=names)
        out.append(arg)
    return out


def secret_url(
    server: str, url: str, report: ImportReport, *, copy_secrets: bool, names: _Names | None = None
) -> str:
    """``url`` with the password in its user part and secret query values as ``${VAR}`` (reported)."""
    if copy_secrets:
        return url
    names = names or _Names(server)
    where = f"MCP server '{server}' url"
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    userinfo, at, host = netloc.rpartition("@")
    if at:
        user, colon, password = userinfo.partition(":")
        if colon and not _is_reference(password):
            variable = names.new("PASSWORD")
            netloc = f"{user}:{_embedded(password, variable, report, f'{where}: password', False)}@{host}"
        elif not colon and KNOWN_TOKEN.fullmatch(user):
            netloc = f"{_embedded(user, names.new('TOKEN'), report, f'{where}: user token', False)}@{host}"
    query = (
        "&".join(_secret_param(pair, names, report, where) for pair in parts.query.split("&"))
        if parts.query
        else ""
    )
    return urlunsplit(SplitResult(parts.scheme, netloc, parts.path, query, parts.fragment))


def _secret_param(pair: str, names: _Names, report: ImportReport, where: str) -> str:
    key, equals, value = pair.partition("=")
    if equals and key.lower() in _SECRET_PARAMS and not _is_reference(value):
        variable = names.new(key)
        return f"{key}={_embedded(value, variable, report, f'{where}: {key}', False)}"
    if equals and KNOWN_TOKEN.fullmatch(value):
        return f"{key}={_embedded(value, names.new(key), report, f'{where}: {key}', False)}"
    return pair
