"""The terminal's answer to a server's elicitation: each field asked in turn, then accept, decline
or cancel. ``--yes`` never fills a form in for the user: it declines, and says so. What is typed
in a secret field (agent_core.mcp.secret_fields) is not echoed, and the form says which server
asks for it."""

from __future__ import annotations

import asyncio
import getpass
import sys
import webbrowser
from typing import TextIO

from agent_core.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationField,
    ElicitationRequest,
    FieldValue,
    FormElicitation,
    UrlElicitation,
    answer_problems,
)
from agent_core.mcp.secret_fields import secret_warning

__all__ = ["TerminalElicitation"]

MAX_TRIES = 3  # a field typed wrong this many times cancels the form rather than looping


class _Ended(Exception):
    """The input ended (EOF): nobody is there to answer."""


class TerminalElicitation:
    """An ``ElicitationHandler`` that asks at the terminal (reads off the event loop)."""

    def __init__(
        self, *, assume_yes: bool = False, stdin: TextIO | None = None, out: TextIO | None = None
    ) -> None:
        self.assume_yes = assume_yes
        self.stdin = stdin or sys.stdin
        self.out = out or sys.stderr

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        if self.assume_yes:
            what = "a form" if request.mode == "form" else "a link to open"
            self._say(
                f"MCP server '{request.server}' asked for {what}; declined: --yes never answers for you "
                "(run without --yes to answer it)."
            )
            return ElicitationAnswer.decline("--yes never answers an elicitation")
        try:
            return await asyncio.to_thread(self._ask, request)
        except _Ended:
            self._say("(no more input: cancelled)")
            return ElicitationAnswer("cancel")

    # --- blocking, in a thread ------------------------------------------------------------------

    def _say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def _read(self, prompt: str, *, secret: bool = False) -> str:
        if secret and self.stdin.isatty():
            line = _typed_unseen(prompt, self.out)
        else:
            self.out.write(prompt)
            self.out.flush()
            line = self.stdin.readline()
            if not self.stdin.isatty():
                self.out.write("\n")  # piped answers are not echoed: keep one question a line
        if not line:
            raise _Ended
        return line.rstrip("\r\n")

    def _ask(self, request: ElicitationRequest) -> ElicitationAnswer:
        self._say(f"\nMCP server '{request.server}' asks: {request.message}")
        if isinstance(request, UrlElicitation):
            return self._ask_url(request)
        return self._ask_form(request)

    def _ask_url(self, request: UrlElicitation) -> ElicitationAnswer:
        self._say(f"  It wants you to open: {request.url}")
        reply = self._read("Open it in your browser? [o]pen / [d]ecline / [c]ancel: ").strip().lower()
        if reply in ("o", "open", "y", "yes"):
            webbrowser.open(request.url)
            return ElicitationAnswer("accept")
        return ElicitationAnswer("cancel" if reply in ("c", "cancel") else "decline")

    def _ask_form(self, form: FormElicitation) -> ElicitationAnswer:
        if form.asks_for_secret:
            self._say(f"  Warning: {secret_warning(form.server)} What you type is not shown.")
        values: dict[str, FieldValue] = {}
        for item in form.fields:
            value = self._ask_field(item)
            if value is not None:
                values[item.name] = value
        reply = self._read("Send these values? [s]end / [d]ecline / [c]ancel: ").strip().lower()
        if reply in ("s", "send", "y", "yes", "a", "accept"):
            return ElicitationAnswer("accept", values)
        return ElicitationAnswer("cancel" if reply in ("c", "cancel") else "decline")

    def _ask_field(self, item: ElicitationField) -> FieldValue | None:
        self._say(
            f"  {item.title}{' (required)' if item.required else ''}"
            + (f": {item.description}" if item.description else "")
        )
        for number, choice in enumerate(item.choices, 1):
            self._say(f"    {number}. {choice.label}")
        hint = {"boolean": " [y/n]", "multi_choice": " (numbers, comma separated)"}.get(item.kind, "")
        default = "" if item.default is None else f" [{'set' if item.secret else _shown(item, item.default)}]"
        for _ in range(MAX_TRIES):
            typed = self._read(f"  > {item.name}{hint}{default}: ", secret=item.secret).strip()
            value = item.default if not typed else _parsed(item, typed)
            problem = answer_problems([item], {item.name: value}).get(item.name)
            if problem is None and (value is not None or not typed):
                return value
            self._say(f"    {problem or 'not understood'}; try again")
        raise _Ended


def _typed_unseen(prompt: str, out: TextIO) -> str:
    """A line typed at the terminal without echo; "" at the end of the input. The prompt is
    shown once echo is off, so nothing typed after it can appear."""
    try:
        return getpass.getpass(prompt, stream=out) + "\n"
    except EOFError:
        return ""


def _shown(item: ElicitationField, value: FieldValue) -> str:
    labels = {c.value: c.label for c in item.choices}
    if isinstance(value, bool):
        return "y" if value else "n"
    if isinstance(value, list):
        return ", ".join(labels.get(v, v) for v in value)
    return labels.get(str(value), str(value))


def _pick(item: ElicitationField, word: str) -> str | None:
    """A choice by its number, value or label."""
    if word.isdigit() and 1 <= int(word) <= len(item.choices):
        return item.choices[int(word) - 1].value
    return next((c.value for c in item.choices if word in (c.value, c.label)), None)


def _parsed(item: ElicitationField, typed: str) -> FieldValue | None:
    """What ``typed`` means for the field; None when it cannot mean anything."""
    if item.kind == "boolean":
        return {"y": True, "yes": True, "true": True, "n": False, "no": False, "false": False}.get(
            typed.lower()
        )
    if item.kind in ("integer", "number"):
        try:
            return int(typed) if item.kind == "integer" else float(typed)
        except ValueError:
            return None
    if item.kind == "choice":
        return _pick(item, typed)
    if item.kind == "multi_choice":
        picked = [_pick(item, word.strip()) for word in typed.split(",") if word.strip()]
        return None if None in picked else [p for p in picked if p is not None]
    return typed
