"""MCP errors, and turning what went wrong with a server into a message that says how to fix it."""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Iterator, Sequence
from pathlib import PurePath
from urllib.parse import urlsplit

import anyio
import httpx2
from mcp.client.auth.exceptions import OAuthFlowError
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT
from pydantic import ValidationError

from agent_core.agent.schema import (
    InternalServerConfig,
    McpServerConfig,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)
from agent_core.agent.secrets import MissingSecretError
from agent_core.errors import ContextDeskError
from agent_core.mcp.oauth_errors import explain_oauth_failure

__all__ = [
    "SERVER_ERRORS",
    "McpServerError",
    "McpServerNotReadyError",
    "UnknownServerError",
    "explain_failure",
    "is_server_failure",
    "missing_command_fix",
    "root_cause",
]

# What to install when a well-known launcher is missing.
_LAUNCHER_FIXES = {
    "npx": "install Node.js 18+ (https://nodejs.org), which provides npx",
    "node": "install Node.js 18+ (https://nodejs.org)",
    "npm": "install Node.js 18+ (https://nodejs.org), which provides npm",
    "uvx": "install uv (https://docs.astral.sh/uv/), which provides uvx",
    "uv": "install uv (https://docs.astral.sh/uv/)",
    "docker": "install Docker and make sure it is running",
    "python": "install Python 3, or give the full path of the interpreter in `command`",
    "python3": "install Python 3, or give the full path of the interpreter in `command`",
    "deno": "install Deno (https://deno.com)",
    "bunx": "install Bun (https://bun.sh)",
}


class McpServerError(ContextDeskError):
    """An MCP server cannot be used; the message says why and how to fix it. ``timed_out_after``:
    the seconds a request waited when it failed because the server did not answer in time."""

    def __init__(self, server: str, message: str, *, timed_out_after: float | None = None) -> None:
        super().__init__(message)
        self.server = server
        self.timed_out_after = timed_out_after


class UnknownServerError(McpServerError):
    """No server of that name is configured."""


class McpServerNotReadyError(McpServerError):
    """The server is not running (starting, failed, disabled or stopped)."""


def missing_command_fix(command: str) -> str:
    """How to get ``command`` when it cannot be found."""
    stem = PurePath(command).name.lower().removesuffix(".exe").removesuffix(".cmd")
    install = _LAUNCHER_FIXES.get(stem)
    if install:
        return f"{install}, or fix `command`"
    return "fix `command` in agent.yaml: give the program's full path, or add its folder to PATH"


def leaf_errors(error: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups, or the error itself."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from leaf_errors(inner)
    else:
        yield error


def root_cause(error: BaseException) -> BaseException:
    """The first real error inside (nested) exception groups: not a cancellation, an interrupt or an exit."""
    leaves = list(leaf_errors(error))
    for leaf in leaves:
        if not isinstance(leaf, KeyboardInterrupt | SystemExit) and type(leaf).__name__ != "CancelledError":
            return leaf
    return leaves[0] if leaves else error


def _chain(error: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _with_log(message: str, log_tail: Sequence[str]) -> str:
    if not log_tail:
        return message
    shown = "\n".join(f"  | {line}" for line in log_tail[-10:])
    return f"{message}\nLast lines it wrote to stderr:\n{shown}"


def explain_failure(
    name: str,
    config: McpServerConfig,
    error: BaseException,
    *,
    log_tail: Sequence[str] = (),
    bad_output: str | None = None,
) -> str:
    """What went wrong when starting or using server ``name``, and how to fix it."""
    cause = root_cause(error)
    where = f"MCP server '{name}'"
    if isinstance(cause, MissingSecretError | McpServerError):
        return str(cause)
    if isinstance(cause, ContextDeskError):
        return f"{where}: {cause}"
    if isinstance(cause, OAuthFlowError):
        return explain_oauth_failure(name, cause)
    if isinstance(config, StdioServerConfig):
        if isinstance(cause, FileNotFoundError):
            return f"{where}: `{config.command}` was not found. Fix: {missing_command_fix(config.command)}."
        if isinstance(cause, PermissionError) or (isinstance(cause, OSError) and cause.errno == errno.EACCES):
            return (
                f"{where}: `{config.command}` cannot be run: permission denied. Fix: make the file that "
                "`command` in agent.yaml names executable (chmod +x) or point `command` at the program that runs it."
            )
        if isinstance(cause, OSError) and cause.errno == errno.ENOEXEC:
            return (
                f"{where}: `{config.command}` is not a program this system can run. "
                "Fix: point `command` at the interpreter (e.g. python3 or node) and put the script in `args`."
            )
    if isinstance(config, SseServerConfig | StreamableHttpServerConfig):
        if isinstance(cause, httpx2.HTTPStatusError):
            status = cause.response.status_code
            if status in (401, 403):
                return (
                    f"{where}: {config.url} refused the credentials (HTTP {status}). "
                    "Fix: check the token in `headers` (e.g. Authorization: env://TOKEN)."
                )
            return f"{where}: {config.url} answered HTTP {status}. Fix: check `url` (the path is often /mcp or /sse)."
        signs_in = isinstance(config, StreamableHttpServerConfig) and config.oauth_settings is not None
        elsewhere = _other_origin(cause, config.url) if signs_in else None
        if elsewhere is not None and isinstance(cause, httpx2.TransportError):
            return (
                f"{where}: cannot reach {elsewhere}, which its sign-in information names as where to sign in "
                f"({type(cause).__name__}). Fix: check that it is up and reachable from here; if that address "
                "is wrong, ask the server's operator."
            )
        if isinstance(cause, httpx2.ConnectError | ConnectionRefusedError):
            if any(isinstance(e, socket.gaierror) for e in _chain(cause)):
                return f"{where}: the host in {config.url} is unknown. Fix: check the host name in `url`."
            return (
                f"{where}: cannot connect to {config.url} (connection refused). "
                "Fix: start the server, or check the host and port in `url`."
            )
        if isinstance(cause, httpx2.TimeoutException):
            return f"{where}: {config.url} did not answer in time. Fix: check that the server is up and reachable."
        if isinstance(cause, httpx2.HTTPError):
            return f"{where}: HTTP error talking to {config.url}: {cause}. Fix: check `url` and the network."
    if isinstance(cause, TimeoutError):
        message = f"{where} did not finish starting within {config.start_timeout_seconds:g} s"
        if bad_output is not None:
            return _with_log(
                f"{message}: it wrote text that is not JSON-RPC to stdout ({bad_output}). Fix: a server must "
                "write only JSON-RPC to stdout and log to stderr; check `command` and `args`, or that this "
                "program is an MCP server at all.",
                log_tail,
            )
        return _with_log(
            f"{message}. Fix: raise `startTimeoutSeconds` if it is just slow (first runs of npx and uvx "
            "download packages), or check `command` and `args` in agent.yaml and what it wrote to stderr for "
            "what it waits for.",
            log_tail,
        )
    if isinstance(cause, MCPError) and cause.code == CONNECTION_CLOSED:
        return closed_message(name, config, log_tail=log_tail, bad_output=bad_output)
    if isinstance(cause, MCPError) and cause.code == REQUEST_TIMEOUT:
        return _with_log(
            f"{where} did not answer in time. Fix: raise `startTimeoutSeconds`/`callTimeoutSeconds`.",
            log_tail,
        )
    if isinstance(cause, ValidationError):
        return _with_log(
            f"{where} sent an invalid answer: {_first_problem(cause)} ({cause.error_count()} problem(s) in all). "
            "Fix: update the server; it may speak an older or newer protocol.",
            log_tail,
        )
    if isinstance(cause, MCPError):
        return _with_log(f"{where} returned an error: {cause}. Fix: check the server's settings.", log_tail)
    return _with_log(f"{where} failed: {type(cause).__name__}: {cause}", log_tail)


def _other_origin(error: BaseException, url: str) -> str | None:
    """Where a failed HTTP request went when that is not the server's own host (its OAuth
    authorization server, found during sign-in), as ``scheme://host:port``."""
    try:
        request = error.request  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx raises RuntimeError when no request is attached
        return None
    own = urlsplit(url)
    target = request.url
    if (target.host, target.port) == (own.hostname, own.port):
        return None
    return f"{target.scheme}://{target.host}" + (f":{target.port}" if target.port else "")


def _first_problem(error: ValidationError) -> str:
    """Where the first problem is and what it is: ``protocolVersion: Input should be a valid string``."""
    problem = error.errors()[0] if error.error_count() else None
    if problem is None:
        return "it does not match the protocol"
    where = ".".join(str(part) for part in problem["loc"])
    return f"{where + ': ' if where else ''}{problem['msg']}"[:300]


def closed_message(
    name: str, config: McpServerConfig, *, log_tail: Sequence[str] = (), bad_output: str | None = None
) -> str:
    """The server's connection ended without ContextDesk asking for it."""
    where = f"MCP server '{name}'"
    if isinstance(config, StdioServerConfig):
        if bad_output is not None:
            message = (
                f"{where} exited after writing text that is not JSON-RPC to stdout ({bad_output}). "
                "Fix: a server must write only JSON-RPC to stdout; check `command` and `args`."
            )
        else:
            message = (
                f"{where} exited unexpectedly. Fix: check its `command` and `args` in agent.yaml "
                "(`contextdesk agent show AGENT_DIR` lists them) and what it wrote to stderr, then restart it."
            )
    elif isinstance(config, InternalServerConfig):
        message = f"{where} (built-in '{config.tool}') stopped unexpectedly. Fix: restart it."
    else:
        message = (
            f"{where} closed the connection to {config.url}. Fix: check that it is running, then restart it."
        )
    return _with_log(message, log_tail)


# Errors that mean "this server failed", as opposed to a bug in ContextDesk.
SERVER_ERRORS = (
    OSError,
    TimeoutError,
    MCPError,
    ValidationError,
    httpx2.HTTPError,
    ContextDeskError,
    OAuthFlowError,  # the server's sign-in failed (oauth_errors says how)
    anyio.BrokenResourceError,
    anyio.ClosedResourceError,
)


def is_server_failure(error: BaseException) -> bool:
    """Whether ``error`` (or every error in its groups) means the server failed, not ContextDesk."""
    leaves = [leaf for leaf in leaf_errors(error) if not isinstance(leaf, asyncio.CancelledError)]
    return bool(leaves) and all(isinstance(leaf, SERVER_ERRORS) for leaf in leaves)
