"""The MCP library's own log records about what a server did: one line, never a traceback.

The SDK logs a server's bad output with its traceback (a stray line on stdout gives a pydantic
dump at ERROR). What the server did already reaches its status and log (``ServerConnection``),
so here: the record of an unparseable line is dropped, and any other record carrying a traceback
becomes one line naming the error; with --verbose (debug logging) those stay as they were. The
HTTP transports' debug records quoting whole messages (which may carry a password typed in a
form) keep only their first words, with --verbose too.
"""

from __future__ import annotations

import logging

__all__ = ["LIBRARY_LOGGERS", "quiet_library_tracebacks"]

#: The SDK's loggers that report what a server sent or did.
LIBRARY_LOGGERS = (
    "mcp.client.stdio",
    "mcp.shared.jsonrpc_dispatcher",
    "mcp.client.session",
    "mcp.client.sse",
    "mcp.client.streamable_http",
    "mcp.client.auth.oauth2",
)
_UNPARSEABLE = "Failed to parse JSONRPC message from server"
#: The OAuth client's record of its own failure: the server's status says what went wrong and how
#: to fix it (``oauth_errors``), so without --verbose this record adds nothing but the server's page.
_OAUTH_FLOW_ERROR = "OAuth flow error"
#: Debug records of the SDK's HTTP transports that quote a whole message.
_WHOLE_MESSAGES = ("Sending client message:", "Received server message:", "SSE message:")


class _OneLine(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno == logging.DEBUG and record.getMessage().startswith(_WHOLE_MESSAGES):
            # A whole message may hold what the user typed in a form's password field, a tool's
            # arguments or a token: its kind is logged, never its content, even with --verbose.
            record.msg, record.args = (
                "%s (its content is not logged)",
                (record.getMessage().split(":", 1)[0],),
            )
            return True
        if record.exc_info is None or logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
            return True
        if record.msg == _UNPARSEABLE:
            return False  # the server's log has the line itself ("stdout (not JSON-RPC): ...")
        if record.msg == _OAUTH_FLOW_ERROR:
            return False
        error = record.exc_info[1]
        first = str(error).strip().splitlines()[0][:200] if str(error).strip() else ""
        said = record.getMessage()
        record.msg = "%s (%s%s; run with --verbose for details)"
        record.args = (said, type(error).__name__, f": {first}" if first else "")
        record.exc_info = record.exc_text = None
        return True


_FILTER = _OneLine()


def quiet_library_tracebacks() -> None:
    """Install the filter on the SDK's loggers (once; calling again changes nothing)."""
    for name in LIBRARY_LOGGERS:
        library_logger = logging.getLogger(name)
        if _FILTER not in library_logger.filters:
            library_logger.addFilter(_FILTER)
