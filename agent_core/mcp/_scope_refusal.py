"""A server that refuses a request for want of an OAuth scope, said as such.

When a server answers ``403`` with ``WWW-Authenticate: Bearer error="insufficient_scope"``, the SDK's
OAuth client asks the user to sign in again for the wider scope (a step-up) and retries. When the
server still refuses, the SDK's transport reports only "Server returned an error response". The
HTTP client's response hook (:meth:`ScopeRefusal.on_response`) keeps the last such refusal, so the
error can say which scope the server wanted and what to do.
"""

from __future__ import annotations

import re

import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

__all__ = ["ScopeRefusal"]

_SCOPE = re.compile(r'scope=(?:"([^"]{0,500})"|([^\s,]{1,500}))')
_MAX_SCOPE_CHARS = 200  # of the scope a server names, quoted in a message


class ScopeRefusal:
    """The server's last ``403 insufficient_scope``, forgotten at its next success."""

    def __init__(self) -> None:
        self.refused = False
        self.scope: str | None = None

    async def on_response(self, response: httpx2.Response) -> None:
        """httpx's response hook: note a refusal for want of a scope, forget it on a success."""
        challenge = response.headers.get("WWW-Authenticate", "")
        if response.status_code == 403 and "insufficient_scope" in challenge:
            found = _SCOPE.search(challenge)
            self.refused = True
            self.scope = (found.group(1) or found.group(2))[:_MAX_SCOPE_CHARS] if found else None
        elif response.is_success:
            self.refused = False

    def reason(self, server: str, what: str, error: BaseException) -> str | None:
        """The message for ``error`` when it is the SDK's stand-in for such a refusal, else None."""
        if not (self.refused and isinstance(error, MCPError) and error.code == INTERNAL_ERROR):
            return None
        needed = (
            f"the permission (OAuth scope) '{self.scope}'" if self.scope else "a permission (OAuth scope)"
        )
        return (
            f"MCP server '{server}' refused {what}: it needs {needed}, which signing in did not grant "
            "(HTTP 403 insufficient_scope). Fix: sign in again with an account that may use it "
            f"(`contextdesk mcp login AGENT_DIR {server}`), or ask the server's operator for it; "
            "`oauth.scopes` in agent.yaml says which scopes are asked for."
        )
