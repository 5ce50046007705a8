"""Per-tool lists other apps keep in a server block, as ContextDesk tool settings.

- ``alwaysAllow`` (Cline, Roo) and ``autoApprove`` (Cline, Cursor): tools that run without asking,
  ``permissionRequired: false``; ``autoApprove: true`` or Gemini's ``trust: true``: every tool.
- ``disabledTools`` (Roo, Windsurf) and ``excludeTools`` (Gemini): kept out of chats unless the
  user adds them, ``include: manual`` (ContextDesk has no switch that hides a tool completely).
- ``includeTools`` (Gemini) and ``available_tools`` (Goose): only these tools: the others default
  to ``include: manual``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent_core.agent.importers._common import ImportReport

__all__ = ["TOOL_LIST_KEYS", "map_tool_lists"]

_APPROVED = ("alwaysAllow", "autoApprove")
_LEFT_OUT = ("disabledTools", "excludeTools")
_ONLY = ("includeTools", "available_tools")
TOOL_LIST_KEYS = frozenset({*_APPROVED, *_LEFT_OUT, *_ONLY, "trust"})


def map_tool_lists(block: Mapping[str, Any], out: dict[str, Any], report: ImportReport, server: str) -> None:
    """Add ``tools`` and ``toolDefaults`` to ``out`` for the tool lists in ``block``."""
    tools: dict[str, dict[str, Any]] = {}
    defaults: dict[str, Any] = {}
    for key in _APPROVED:
        value = block.get(key)
        if value is True:
            defaults["permissionRequired"] = False
        for tool in _names(value):
            tools.setdefault(tool, {})["permissionRequired"] = False
    if block.get("trust") is True:
        defaults["permissionRequired"] = False
    for key in _LEFT_OUT:
        for tool in _names(block.get(key)):
            tools.setdefault(tool, {})["include"] = "manual"
            report.warnings.append(
                f"MCP server '{server}': tool '{tool}' was disabled ({key}); it is imported as "
                "include: manual, so it joins a chat only when you add it"
            )
    for key in _ONLY:
        only = _names(block.get(key))
        if only:
            defaults["include"] = "manual"
            for tool in only:
                tools.setdefault(tool, {})["include"] = "always"
    if defaults:
        out["toolDefaults"] = defaults
    if tools:
        out["tools"] = tools


def _names(value: Any) -> list[str]:
    return [str(tool) for tool in value] if isinstance(value, list) else []
