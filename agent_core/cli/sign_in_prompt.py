"""The terminal's side of an OAuth sign-in: the URL is printed, and opened only if the user says so.

``--yes`` never signs in for the user (a sign-in is theirs to give): it cancels, and says so.
``--no-browser`` asks nothing: the URL is printed and the sign-in waits for it to be opened, on this
machine or on another one whose browser can reach this one's 127.0.0.1 (an SSH port forward)."""

from __future__ import annotations

import asyncio
import sys
import webbrowser
from collections.abc import Callable
from typing import TextIO

from agent_core.mcp.oauth import SignInRequest

__all__ = ["TerminalSignIn"]


class TerminalSignIn:
    """A ``SignInHandler`` that asks at the terminal (reads off the event loop)."""

    def __init__(
        self,
        *,
        assume_yes: bool = False,
        no_browser: bool = False,
        stdin: TextIO | None = None,
        out: TextIO | None = None,
        open_url: Callable[[str], object] = webbrowser.open,
    ) -> None:
        self.assume_yes = assume_yes
        self.no_browser = no_browser
        self.stdin = stdin or sys.stdin
        self.out = out or sys.stderr
        self.open_url = open_url

    async def __call__(self, request: SignInRequest) -> bool:
        if self.assume_yes:
            self._say(
                f"MCP server '{request.server}' needs you to sign in; not done: --yes never signs in for you "
                "(run once without --yes to sign in)."
            )
            return False
        if self.no_browser:
            self._say(f"\nMCP server '{request.server}' ({request.server_url}) needs you to sign in at:")
            self._say(f"  {request.url}")
            self._say("Open it in a browser; waiting for the sign-in to come back (--no-browser)…")
            return True
        return await asyncio.to_thread(self._ask, request)

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _ask(self, request: SignInRequest) -> bool:
        self._say(f"\nMCP server '{request.server}' ({request.server_url}) needs you to sign in at:")
        self._say(f"  {request.url}")
        self.out.write("Open it in your browser? [o]pen / [w]ait (I will open it myself) / [c]ancel: ")
        self.out.flush()
        line = self.stdin.readline()
        if not self.stdin.isatty():
            self.out.write("\n")
        reply = line.strip().lower()
        if reply in ("o", "open", "y", "yes"):
            self.open_url(request.url)
        elif reply not in ("w", "wait"):
            self._say("(sign-in cancelled)")
            return False
        self._say("Waiting for the sign-in to finish in the browser…")
        return True
