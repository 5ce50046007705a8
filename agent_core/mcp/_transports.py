"""From a server's settings to an SDK transport: secrets resolved, stderr captured, EOF observed."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import anyio
import httpx2
from mcp import StdioServerParameters, stdio_client
from mcp.client import Transport
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage

from agent_core.agent.schema import SseServerConfig, StdioServerConfig, StreamableHttpServerConfig
from agent_core.agent.secrets import resolve_secret
from agent_core.agent.variables import VariableContext, expand_variables
from agent_core.mcp._library_logs import quiet_library_tracebacks
from agent_core.mcp._logs import StderrCapture
from agent_core.mcp._protocol_guard import InvalidAnswerError, SentRequests, invalid_message, is_chatter
from agent_core.mcp._stdio import posix_stdio_client
from agent_core.mcp.errors import McpServerError
from agent_core.mcp.oauth import SignInHandler, SignInRequiredError, oauth_provider

__all__ = [
    "ObservedTransport",
    "http_transport",
    "resolve_headers",
    "stdio_parameters",
    "stdio_transport",
]

_END_OF_STREAM = (anyio.EndOfStream, StopAsyncIteration, anyio.ClosedResourceError, anyio.BrokenResourceError)
_HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)  # the SDK's defaults: SSE streams stay open

quiet_library_tracebacks()


def resolve_headers(
    server: str, headers: Mapping[str, str], variables: VariableContext | None = None
) -> dict[str, str]:
    """Header values with ``env://VAR`` and ``${...}`` variables resolved.

    Raises:
        MissingSecretError: a variable they name has no value.
    """
    return {
        key: _resolve(value, what=f"MCP server '{server}': header {key}", variables=variables)
        for key, value in headers.items()
    }


def stdio_parameters(
    server: str,
    config: StdioServerConfig,
    environ: Mapping[str, str] | None = None,
    variables: VariableContext | None = None,
) -> StdioServerParameters:
    """The SDK's launch parameters; the child inherits PATH, HOME and the like unless ``env`` sets them.

    ``env``, ``args`` and ``cwd`` may hold ``env://VAR`` (a whole value) and ``${...}`` variables
    (``agent_core.agent.variables``), expanded here, at start, and never written back.

    Raises:
        MissingSecretError: a reference or variable has no value.
        McpServerError: ``cwd`` is not a folder.
    """
    if variables is None:
        variables = VariableContext(environ=environ)
    env = {
        key: _resolve(value, what=f"MCP server '{server}': env {key}", variables=variables)
        for key, value in config.env.items()
    }
    cwd: Path | None = None
    if config.cwd:
        cwd = Path(_resolve(config.cwd, what=f"MCP server '{server}': cwd", variables=variables)).expanduser()
        if not cwd.is_dir():
            raise McpServerError(
                server,
                f"MCP server '{server}': the folder {cwd} in `cwd` does not exist. Fix: create it or fix `cwd`.",
            )
    args = [
        _resolve(arg, what=f"MCP server '{server}': argument {number}", variables=variables)
        for number, arg in enumerate(config.args, start=1)
    ]
    return StdioServerParameters(command=config.command, args=args, env=env or None, cwd=cwd)


def _resolve(value: str, *, what: str, variables: VariableContext | None) -> str:
    """``env://VAR`` (the whole value) and ``${...}`` variables (anywhere in it) replaced."""
    environ = variables.environ if variables is not None else None
    return expand_variables(resolve_secret(value, what=what, environ=environ), where=what, context=variables)


class _ObservedReadStream:
    """A read stream that reports end-of-stream and plain-text lines, ends the stream at an invalid
    answer (``_protocol_guard``), and passes all else on."""

    def __init__(self, inner: Any, observer: ObservedTransport, sent: SentRequests) -> None:
        self._inner = inner
        self._observer = observer
        self._sent = sent

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    def _seen(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        try:
            if not isinstance(item, Exception):
                self._sent.check_answer(item.message)
            elif is_chatter(item):
                self._observer.on_bad(item)
            else:
                raise invalid_message(self._observer.server, item)
        except InvalidAnswerError as error:
            self._observer.on_invalid(error)
            self._observer.on_closed()
            raise _Ended from None
        return item

    async def receive(self) -> SessionMessage | Exception:
        try:
            return self._seen(await self._inner.receive())
        except _END_OF_STREAM:
            self._observer.on_closed()
            raise
        except _Ended:
            raise anyio.EndOfStream from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return self._seen(await self._inner.__anext__())
        except _END_OF_STREAM:
            self._observer.on_closed()
            raise
        except _Ended:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc, tb)
        return result


class _Ended(Exception):
    """The stream ends here: the server sent an invalid answer."""


class _ObservedWriteStream:
    """A write stream that notes the ids of the requests sent."""

    def __init__(self, inner: Any, sent: SentRequests) -> None:
        self._inner = inner
        self._sent = sent

    async def send(self, item: SessionMessage) -> None:
        self._sent.sent(item.message)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> Self:
        await self._inner.__aenter__()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        result: bool | None = await self._inner.__aexit__(exc_type, exc, tb)
        return result


class ObservedTransport:
    """Wraps a transport so the owner learns when the connection ends, carries plain text
    (``on_bad``) or an invalid answer (``on_invalid``, and the connection ends)."""

    def __init__(
        self,
        inner: Transport,
        server: str,
        *,
        on_closed: Callable[[], None],
        on_bad: Callable[[Exception], None],
        on_invalid: Callable[[InvalidAnswerError], None],
    ) -> None:
        self._inner = inner
        self.server = server
        self.on_closed = on_closed
        self.on_bad = on_bad
        self.on_invalid = on_invalid

    async def __aenter__(self) -> Any:
        read_stream, write_stream = await self._inner.__aenter__()
        sent = SentRequests(self.server)
        return _ObservedReadStream(read_stream, self, sent), _ObservedWriteStream(write_stream, sent)

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._inner.__aexit__(exc_type, exc, tb)


class _StdioTransport:
    """The server over stdio, its stderr going to ``capture``: ``_stdio`` on POSIX, the SDK's
    ``stdio_client`` on Windows (a Job Object ends whatever the server started)."""

    def __init__(self, parameters: StdioServerParameters, capture: StderrCapture) -> None:
        self._capture = capture
        if sys.platform == "win32":
            self._context = stdio_client(parameters, errlog=capture.writer)
        else:
            self._context = posix_stdio_client(parameters, capture)

    async def __aenter__(self) -> Any:
        try:
            return await self._context.__aenter__()
        finally:
            # The child has its own copy of the pipe now (or was never started).
            self._capture.close_writer()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._context.__aexit__(exc_type, exc, tb)


def stdio_transport(parameters: StdioServerParameters, capture: StderrCapture) -> Transport:
    return _StdioTransport(parameters, capture)


class _HttpTransport:
    """Streamable HTTP or SSE, with the configured headers on every request."""

    def __init__(
        self,
        url: str,
        headers: dict[str, str],
        *,
        sse: bool,
        timeout: float,
        auth: httpx2.Auth | None = None,
        on_response: Callable[[httpx2.Response], Awaitable[None]] | None = None,
    ) -> None:
        self._url = url
        self._auth = auth
        self._on_response = on_response
        self._headers = headers
        self._sse = sse
        self._timeout = timeout
        self._stack = AsyncExitStack()

    async def __aenter__(self) -> Any:
        async with AsyncExitStack() as stack:
            if self._sse:
                streams = await stack.enter_async_context(
                    sse_client(self._url, headers=self._headers or None, timeout=self._timeout)
                )
            else:
                hooks = {"response": [self._on_response]} if self._on_response is not None else None
                client = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers=self._headers, timeout=_HTTP_TIMEOUT, auth=self._auth, event_hooks=hooks
                    )
                )
                streams = await stack.enter_async_context(
                    streamable_http_client(self._url, http_client=client)
                )
            self._stack = stack.pop_all()
            return streams

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        return await self._stack.__aexit__(exc_type, exc, tb)


def http_transport(
    server: str,
    config: SseServerConfig | StreamableHttpServerConfig,
    variables: VariableContext | None = None,
    *,
    sign_in: SignInHandler | None = None,
    waiting_on_user: Callable[[bool], None] | None = None,
    on_sign_in_error: Callable[[SignInRequiredError], None] | None = None,
    on_response: Callable[[httpx2.Response], Awaitable[None]] | None = None,
) -> Transport:
    """The transport for a remote server; a streamable-HTTP server with ``oauth`` signs in through
    ``sign_in`` (agent_core.mcp.oauth). ``on_response`` sees each HTTP response of a streamable-HTTP
    server (``_scope_refusal``). Blocking (the keyring): call it off the event loop.

    Raises:
        MissingSecretError: a header or the url names a variable that has no value.
        SignInRequiredError: the server uses OAuth and no keyring is available.
    """
    headers = resolve_headers(server, config.headers, variables)
    url = _resolve(config.url, what=f"MCP server '{server}': url", variables=variables)
    auth: httpx2.Auth | None = None
    settings = config.oauth_settings if isinstance(config, StreamableHttpServerConfig) else None
    if settings is not None:
        auth = oauth_provider(
            server, url, settings, sign_in, waiting_on_user=waiting_on_user, on_sign_in_error=on_sign_in_error
        )
    return _HttpTransport(
        url,
        headers,
        sse=config.type == "sse",
        timeout=min(config.start_timeout_seconds, 30.0),
        auth=auth,
        on_response=on_response,
    )
