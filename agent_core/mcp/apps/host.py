"""The host side of one rendered MCP App view: the JSON-RPC messages a view sends, answered as
the MCP Apps spec (2026-01-26) says, and what the host sends it.

The front end renders the view (sandboxed, under the CSP of its ``AppView``) and passes each
message the view posts to :meth:`AppHost.handle`; whatever the host has for the view goes to the
``send`` callback it gave. Nothing a view sends raises out of here: a malformed or unknown message
gets a JSON-RPC error (notifications get nothing). A view reaches only its own server's tools
(those whose visibility includes ``app``), through the chat's own call path and approvals (the
``AppBackend``); what it posts for the conversation is shown to the user and recorded, never sent
to the model by itself.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol
from urllib.parse import urlsplit

from agent_core import __version__
from agent_core.context.items import AppExchange, AppExchangeKind
from agent_core.errors import ContextDeskError
from agent_core.mcp.apps.errors import AppCallDenied
from agent_core.mcp.apps.events import (
    AppContextUpdated,
    AppEvent,
    AppLinkRequested,
    AppLogged,
    AppMessageRequested,
    AppSizeChanged,
    AppTeardownRequested,
    HostContext,
)
from agent_core.mcp.apps.jsonrpc import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    REFUSED,
    BadMessage,
    Incoming,
    error_answer,
    parse_message,
    resource_result,
    result_answer,
    tool_result,
)
from agent_core.mcp.apps.limits import AppLimits, RateWindow
from agent_core.mcp.apps.view import AppView
from agent_core.mcp.types import ResourceContent, ToolInfo
from agent_core.store.records import ToolCallRecord
from agent_core.tools.runtime import ToolOutcome

__all__ = ["PROTOCOL_VERSION", "AppBackend", "AppHost"]

logger = logging.getLogger(__name__)

PROTOCOL_VERSION = "2026-01-26"  # the MCP Apps spec this host follows


class AppBackend(Protocol):
    """What a view's requests reach: its own server, through the chat (see ``apps_in_chat``)."""

    def tools(self) -> Sequence[ToolInfo]:
        """The tools of the view's server, those only views may call too."""
        ...

    async def call_tool(self, call_id: str, tool: ToolInfo, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Run ``tool`` as the chat runs the model's calls (asking the user when its policy says).

        Raises:
            AppCallDenied: the user denied the call.
        """
        ...

    async def read_resource(self, uri: str) -> ResourceContent:
        """Raises: McpServerError: the server cannot read ``uri``."""
        ...

    def record(self, exchange: AppExchange) -> None:
        """Keep what the view posted in the RequestContext of the reply that made the call."""
        ...


class _InvalidParams(Exception):
    """The params of a request are not what its method takes; the message says what is wrong."""


Handler = Callable[[Incoming], Awaitable[Mapping[str, Any]]]


class AppHost:
    """One rendered view of the tool call ``call_id`` (its ``arguments``; the result comes with
    :meth:`deliver_result`). Use it from the event loop's thread."""

    def __init__(
        self,
        view: AppView,
        backend: AppBackend,
        *,
        call_id: str,
        arguments: Mapping[str, Any],
        send: Callable[[dict[str, Any]], None],
        on_event: Callable[[AppEvent], None],
        context: HostContext | None = None,
        granted_permissions: frozenset[str] = frozenset(),
        limits: AppLimits | None = None,
    ) -> None:
        """``send`` delivers one message to the view; ``on_event`` tells the front end what the
        view asks for the user (messages, context, size, links); ``granted_permissions``: the
        view's asked-for permissions (``view.permissions``) the front end lets it have."""
        self.view = view
        self.call_id = call_id
        self._backend = backend
        self._arguments = dict(arguments)
        self._send = send
        self._on_event = on_event
        self._context = context or HostContext()
        self._granted = granted_permissions & view.permissions
        self.limits = limits or AppLimits()
        self._calls = RateWindow(self.limits.max_calls_per_minute)
        self._posts = RateWindow(self.limits.max_posts_per_minute)
        self._in_flight = 0
        self._call_count = 0
        self.initialized = False
        self.closed = False
        self._result: dict[str, Any] | None = None  # the tool-result, once known
        self._cancelled: str | None = None
        self._delivered = False
        self._teardown: asyncio.Future[None] | None = None
        self._requests: dict[str, Handler] = {
            "ui/initialize": self._initialize,
            "ping": self._ping,
            "tools/call": self._tools_call,
            "resources/read": self._resources_read,
            "ui/message": self._message,
            "ui/update-model-context": self._update_model_context,
            "ui/open-link": self._open_link,
            "ui/request-display-mode": self._display_mode,
        }
        self._notifications: dict[str, Callable[[Incoming], None]] = {
            "ui/notifications/initialized": self._initialized,
            "ui/notifications/size-changed": self._size_changed,
            "notifications/message": self._log,
            "ui/notifications/request-teardown": self._teardown_requested,
        }

    # --- from the view ------------------------------------------------------------------------

    async def handle(self, message: Mapping[str, Any] | str) -> dict[str, Any] | None:
        """Answer one message from the view (a dict, or its JSON text): a request's response, or
        None for a notification or a response. Never raises for what the view sent."""
        try:
            incoming = parse_message(message, self.limits.max_message_chars)
        except BadMessage as bad:
            logger.info("MCP App %s sent a bad message: %s", self.view.resource_uri, bad)
            return bad.answer
        if incoming.is_response:
            self._answered(incoming)
            return None
        if incoming.id is None:
            notify = self._notifications.get(incoming.method)
            if notify is not None and not self.closed:
                try:
                    notify(incoming)
                except _InvalidParams as error:
                    logger.info("MCP App %s: %s", self.view.resource_uri, error)
            return None
        return await self._request(incoming, incoming.id)

    async def _request(self, incoming: Incoming, request_id: str | int) -> dict[str, Any]:
        if self.closed:
            return error_answer(request_id, REFUSED, "The view was closed.")
        handler = self._requests.get(incoming.method)
        if handler is None:
            return error_answer(request_id, METHOD_NOT_FOUND, f"The host does not offer {incoming.method}.")
        try:
            return result_answer(request_id, await handler(incoming))
        except _InvalidParams as error:
            return error_answer(request_id, INVALID_PARAMS, str(error))
        except ContextDeskError as error:  # refused, denied, or the server's failure
            return error_answer(request_id, REFUSED, str(error))
        except Exception as error:
            logger.exception("MCP App %s: %s failed", self.view.resource_uri, incoming.method)
            return error_answer(request_id, -32603, f"The host failed on {incoming.method}: {error}")

    async def _initialize(self, incoming: Incoming) -> Mapping[str, Any]:
        csp = self.view.ui.csp
        tool = self.view.tool
        tool_json: dict[str, Any] = {
            "name": tool.name,
            "description": tool.description,
            "inputSchema": dict(tool.input_schema),
        }
        if tool.title:
            tool_json["title"] = tool.title
        if tool.ui is not None:
            ui: dict[str, Any] = {"visibility": sorted(tool.ui.visibility)}
            if tool.ui.resource_uri:
                ui["resourceUri"] = tool.ui.resource_uri
            tool_json["_meta"] = {"ui": ui}
        return {
            "protocolVersion": PROTOCOL_VERSION,
            "hostInfo": {"name": "ContextDesk", "version": __version__},
            "hostCapabilities": {
                "openLinks": {},
                "serverTools": {},
                "serverResources": {},
                "logging": {},
                "sandbox": {
                    "permissions": {name: {} for name in sorted(self._granted)},
                    "csp": {
                        "connectDomains": list(csp.connect),
                        "resourceDomains": list(csp.resource),
                        "frameDomains": list(csp.frame),
                        "baseUriDomains": list(csp.base_uri),
                    },
                },
            },
            "hostContext": {**self._context.as_json(), "toolInfo": {"id": self.call_id, "tool": tool_json}},
        }

    async def _ping(self, incoming: Incoming) -> Mapping[str, Any]:
        return {}

    def _initialized(self, incoming: Incoming) -> None:
        if self.initialized:
            return
        self.initialized = True
        self.send_notification("ui/notifications/tool-input", {"arguments": self._arguments})
        self._deliver_outcome()

    async def _tools_call(self, incoming: Incoming) -> Mapping[str, Any]:
        name = incoming.params.get("name")
        arguments = incoming.params.get("arguments", {})
        if not isinstance(name, str) or not name:
            raise _InvalidParams("tools/call needs the tool's name (params.name).")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise _InvalidParams("The arguments of tools/call must be an object.")
        server = self.view.server
        tool = next((t for t in self._backend.tools() if t.name == name), None)
        if tool is None:
            raise AppCallDenied(server, f"MCP server '{server}' offers no tool '{name}' to this view.")
        if tool.ui is not None and not tool.ui.for_app:
            raise AppCallDenied(
                server,
                f"The tool '{name}' is for the model only (its visibility has no \"app\"): a view may not call it.",
            )
        async with self._limited_call():
            self._call_count += 1
            outcome = await self._backend.call_tool(f"{self.call_id}.app{self._call_count}", tool, arguments)
        return tool_result(outcome)

    async def _resources_read(self, incoming: Incoming) -> Mapping[str, Any]:
        uri = incoming.params.get("uri")
        if not isinstance(uri, str) or not uri:
            raise _InvalidParams("resources/read needs the resource's URI (params.uri).")
        async with self._limited_call():
            content = await self._backend.read_resource(uri)
        size = sum(len(p.text or "") + len(p.blob or "") for p in content.parts)
        if size > self.limits.max_result_chars:
            raise AppCallDenied(
                self.view.server, f"The resource {uri} is over {self.limits.max_result_chars:,} characters."
            )
        return resource_result(content)

    async def _message(self, incoming: Incoming) -> Mapping[str, Any]:
        text = _texts(incoming.params.get("content"))
        if not text:
            raise _InvalidParams("ui/message needs text content (params.content).")
        kept = self._post("message", text)
        self._on_event(AppMessageRequested(self.call_id, kept))
        return {}

    async def _update_model_context(self, incoming: Incoming) -> Mapping[str, Any]:
        text = _texts(incoming.params.get("content"))
        structured = incoming.params.get("structuredContent")
        if isinstance(structured, Mapping):
            as_json = json.dumps(structured, ensure_ascii=False, default=str)
            text = f"{text}\n{as_json}" if text else as_json
        kept = self._post("model_context", text)
        self._on_event(AppContextUpdated(self.call_id, kept))
        return {}

    async def _open_link(self, incoming: Incoming) -> Mapping[str, Any]:
        url = incoming.params.get("url")
        parts = urlsplit(url) if isinstance(url, str) and len(url) <= 4096 else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.netloc:
            raise _InvalidParams("ui/open-link takes an http or https URL (params.url).")
        assert isinstance(url, str)
        self._on_event(AppLinkRequested(self.call_id, url))
        return {}

    async def _display_mode(self, incoming: Incoming) -> Mapping[str, Any]:
        return {"mode": "inline"}  # the only mode ContextDesk shows views in

    def _size_changed(self, incoming: Incoming) -> None:
        width = _dimension(incoming.params.get("width"), self.limits.max_width)
        height = _dimension(incoming.params.get("height"), self.limits.max_height)
        if width is not None or height is not None:
            self._on_event(AppSizeChanged(self.call_id, width, height))

    def _log(self, incoming: Incoming) -> None:
        level = incoming.params.get("level")
        data = incoming.params.get("data")
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False, default=str)
        self._on_event(AppLogged(self.call_id, str(level)[:20] if level else "info", text[:2000]))

    def _teardown_requested(self, incoming: Incoming) -> None:
        self._on_event(AppTeardownRequested(self.call_id))

    def _answered(self, incoming: Incoming) -> None:
        if self._teardown is not None and incoming.id == self._teardown_id and not self._teardown.done():
            self._teardown.set_result(None)

    # --- to the view --------------------------------------------------------------------------

    def deliver_result(self, outcome: ToolOutcome | ToolCallRecord) -> None:
        """The tool call's result (``ui/notifications/tool-result``), sent once the view is
        initialized (at once if it is)."""
        if self._result is None and self._cancelled is None:
            self._result = tool_result(outcome)
            self._deliver_outcome()

    def deliver_cancelled(self, reason: str) -> None:
        """The tool call did not finish (``ui/notifications/tool-cancelled``)."""
        if self._result is None and self._cancelled is None:
            self._cancelled = reason
            self._deliver_outcome()

    def set_context(self, context: HostContext) -> None:
        """A new host context (theme, size...): the view is told what changed."""
        before, after = self._context.as_json(), context.as_json()
        self._context = context
        changed = {key: value for key, value in after.items() if before.get(key) != value}
        if changed and self.initialized and not self.closed:
            self.send_notification("ui/notifications/host-context-changed", changed)

    def send_notification(self, method: str, params: Mapping[str, Any]) -> None:
        if not self.closed:
            self._send({"jsonrpc": "2.0", "method": method, "params": dict(params)})

    async def close(self, reason: str = "The chat was closed.") -> None:
        """Tear the view down: an initialized view is asked first (``ui/resource-teardown``) and
        waited for at most ``limits.teardown_wait_seconds``. Afterwards every request is refused."""
        if self.closed:
            return
        if self._teardown is not None:  # closing already: wait as that close does
            await asyncio.wait([self._teardown], timeout=self.limits.teardown_wait_seconds)
            self.closed = True
            return
        if self.initialized:
            self._teardown = asyncio.get_running_loop().create_future()
            self._send(
                {
                    "jsonrpc": "2.0",
                    "id": self._teardown_id,
                    "method": "ui/resource-teardown",
                    "params": {"reason": reason},
                }
            )
            try:
                await asyncio.wait_for(asyncio.shield(self._teardown), self.limits.teardown_wait_seconds)
            except TimeoutError:
                logger.info("MCP App %s did not answer its teardown in time", self.view.resource_uri)
        self.closed = True

    @property
    def _teardown_id(self) -> str:
        return f"contextdesk-teardown-{self.call_id}"

    # --- helpers ------------------------------------------------------------------------------

    def _deliver_outcome(self) -> None:
        if not self.initialized or self._delivered:
            return
        if self._result is not None:
            self._delivered = True
            self.send_notification("ui/notifications/tool-result", self._result)
        elif self._cancelled is not None:
            self._delivered = True
            self.send_notification("ui/notifications/tool-cancelled", {"reason": self._cancelled})

    def _limited_call(self) -> _CallSlot:
        server = self.view.server
        if self._in_flight >= self.limits.max_calls_in_flight:
            raise AppCallDenied(
                server,
                f"This view already has {self.limits.max_calls_in_flight} calls running: wait for one.",
            )
        if not self._calls.take():
            raise AppCallDenied(
                server,
                f"This view made over {self.limits.max_calls_per_minute} calls in a minute: wait a little.",
            )
        return _CallSlot(self)

    def _post(self, kind: AppExchangeKind, text: str) -> str:
        """``text`` bounded, recorded for the reply; refused when the view posts too often."""
        if not self._posts.take():
            raise AppCallDenied(
                self.view.server,
                f"This view posted over {self.limits.max_posts_per_minute} times in a minute.",
            )
        limit = self.limits.max_recorded_text_chars
        kept = text if len(text) <= limit else text[:limit] + f"\n[cut at {limit:,} characters]"
        self._backend.record(AppExchange(self.call_id, self.view.server, self.view.tool.name, kind, kept))
        return kept


class _CallSlot:
    """One of the view's calls running (counted while it does)."""

    def __init__(self, host: AppHost) -> None:
        self._host = host

    async def __aenter__(self) -> None:
        self._host._in_flight += 1

    async def __aexit__(self, *exc: object) -> None:
        self._host._in_flight -= 1


def _texts(content: object) -> str:
    """The text of a content block or a list of them (other kinds left out)."""
    blocks = content if isinstance(content, list) else [content]
    texts = [
        block["text"]
        for block in blocks[:100]
        if isinstance(block, Mapping) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    return "\n".join(texts)


def _dimension(value: object, limit: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value or value < 0:
        return None
    return int(min(value, limit))
