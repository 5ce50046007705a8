"""Each app's spelling of a server block, rewritten in the spelling ``convert_server`` reads.

The common spelling is the ``mcpServers`` one (``command``, ``args``, ``env``, ``cwd``, ``url``,
``headers``, ``type``, ``disabled``), plus ``timeout`` in seconds. What one app spells its own way:

- Windsurf: ``serverUrl`` for ``url``.
- Gemini CLI: ``httpUrl`` (streamable HTTP; its ``url`` is SSE), ``timeout`` in milliseconds,
  ``trust`` (run tools without asking), ``$VAR`` as well as ``${VAR}``.
- Zed: ``command`` may be ``{path, args, env}``; ``enabled``; ``source: extension`` servers are
  installed by Zed and have no command in the file.
- Goose: ``cmd``, ``envs``, ``env_keys`` (variables Goose takes from its own secret store),
  ``uri``, ``type: streamable_http``, ``enabled``, ``timeout`` in seconds; built-in extensions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agent_core.agent.importers._mcp_sources import Dialect
from agent_core.agent.secrets import ENV_SCHEME

__all__ = ["DialectProblem", "common_block"]

# Gemini expands a bare $VAR in env and headers; ContextDesk spells it ${VAR}.
_BARE_VARIABLE = re.compile(r"(?<![$\w])\$([A-Za-z_][A-Za-z0-9_]*)")
_EXTENSION_PATH = "${extensionPath}"
# Goose extensions that run inside Goose itself: nothing to start from another app.
_GOOSE_BUILT_IN = frozenset({"builtin", "platform", "frontend", "inline_python"})
# Keys an app writes about itself, with no effect on how the server runs: dropped quietly.
_BOOKKEEPING = frozenset({"name", "bundled", "source", "description", "extensionName"})


class DialectProblem(Exception):
    """A block that names a server the importer cannot start (the message says why)."""


def common_block(block: Mapping[str, Any], dialect: Dialect, folder: str | None = None) -> dict[str, Any]:
    """``block`` in the common spelling; keys with no counterpart are passed through as they are.

    ``folder`` is the folder of the file, for Gemini's ``${extensionPath}``.

    Raises:
        DialectProblem: the block describes a server built into the other app.
    """
    out = dict(block)
    if "serverUrl" in out and "url" not in out:  # Windsurf
        out["url"] = out.pop("serverUrl")
    if dialect == "gemini":
        _gemini(out, folder)
    elif dialect == "zed":
        _zed(out)
    elif dialect == "goose":
        _goose(out)
    if dialect in ("zed", "goose"):
        for key in _BOOKKEEPING & set(out):
            del out[key]
    return out


def _gemini(out: dict[str, Any], folder: str | None) -> None:
    if "httpUrl" in out:
        out["url"] = out.pop("httpUrl")
        out.setdefault("type", "streamable-http")
    elif "url" in out:
        out.setdefault("type", "sse")  # Gemini's `url` is always an SSE endpoint
    timeout = out.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool):
        out["timeout"] = timeout / 1000
    for key in ("env", "headers"):
        values = out.get(key)
        if isinstance(values, Mapping):
            out[key] = {
                k: _BARE_VARIABLE.sub(r"${\1}", v) if isinstance(v, str) else v for k, v in values.items()
            }
    if folder is not None:  # an extension's own files: known now, and no secret
        if isinstance(out.get("args"), list):
            out["args"] = [
                a.replace(_EXTENSION_PATH, folder) if isinstance(a, str) else a for a in out["args"]
            ]
        if isinstance(out.get("cwd"), str):
            out["cwd"] = out["cwd"].replace(_EXTENSION_PATH, folder)


def _zed(out: dict[str, Any]) -> None:
    command = out.get("command")
    if isinstance(command, Mapping):  # Zed before 0.190: {"command": {"path", "args", "env"}}
        out["command"] = command.get("path")
        for key in ("args", "env"):
            if key in command:
                out[key] = command[key]
    if out.get("source") == "extension" and not out.get("command"):
        raise DialectProblem(
            "installed as a Zed extension, so its command is not in the file: "
            "add it by hand with the command the extension's page gives"
        )
    if out.pop("enabled", True) is False:
        out["disabled"] = True
    if out.get("settings") in ({}, None):
        out.pop("settings", None)


def _goose(out: dict[str, Any]) -> None:
    kind = str(out.get("type", ""))
    if kind in _GOOSE_BUILT_IN:
        raise DialectProblem(f"a Goose '{kind}' extension runs inside Goose; ContextDesk has no counterpart")
    if kind == "streamable_http":
        out["type"] = "streamable-http"
    if "cmd" in out:
        out["command"] = out.pop("cmd")
    if "uri" in out:
        out["url"] = out.pop("uri")
    env = dict(out.pop("envs", None) or {})
    for variable in out.pop("env_keys", None) or []:
        # Goose keeps these in its secret store; here they come from the environment.
        env.setdefault(str(variable), f"{ENV_SCHEME}{variable}")
    if env:
        out["env"] = env
    if out.pop("enabled", True) is False:
        out["disabled"] = True
    if not out.get("available_tools"):
        out.pop("available_tools", None)
