"""What produced a result: the model, a tool, or a tool's result shown as it is; and which tools
the work behind it used. Recorded with every reply, sub-agent run and workflow state, so that a
result never looks like the model's work (or like grounded work) when it is not."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["ProducedBy", "Provenance", "ToolUse"]

# model: a model wrote the text. tool: a tool's output is the result by design (a workflow's tool
# state). tool_result: a tool answered in the model's place and its result is shown as it is (a
# routed tool on a model that does not restate results). mock: a workflow's mock output.
ProducedBy = Literal["model", "tool", "tool_result", "mock"]

_ARGUMENTS_SHOWN = 80  # characters of a tool's arguments in the one line


@dataclass(frozen=True)
class ToolUse:
    """One tool call on the way to a result."""

    tool: str  # server.tool
    arguments: dict[str, Any] = field(default_factory=dict)
    routed: bool = False  # ContextDesk picked the tool for a model that cannot choose tools
    is_error: bool = False

    def label(self) -> str:
        """``workspace.read_file {"path": "ideas.md"}``, the arguments cut to one short line."""
        if not self.arguments:
            return self.tool
        shown = json.dumps(self.arguments, ensure_ascii=False, default=str)
        if len(shown) > _ARGUMENTS_SHOWN:
            shown = shown[: _ARGUMENTS_SHOWN - 1] + "…"
        return f"{self.tool} {shown}"


@dataclass(frozen=True)
class Provenance:
    produced_by: ProducedBy
    model: str = ""  # provider:model that wrote the text (or the tool's arguments)
    tools: tuple[ToolUse, ...] = ()  # in the order they were called

    @property
    def grounded(self) -> bool:
        """Whether any tool call on the way returned something (not an error)."""
        return any(not use.is_error for use in self.tools)

    @property
    def answering_tool(self) -> ToolUse | None:
        """The tool whose output is the result (``tool`` and ``tool_result``), else None."""
        if self.produced_by in ("tool", "tool_result") and self.tools:
            return self.tools[-1]
        return None

    def line(self) -> str:
        """One short line for a card or an inspector row."""
        answering = self.answering_tool
        if self.produced_by == "mock":
            return "a mock output, no model or tool ran"
        if self.produced_by == "tool" and answering is not None:
            return f"the tool {answering.label()}"
        if self.produced_by == "tool_result" and answering is not None:
            picked = "routed to by ContextDesk, " if answering.routed else ""
            return f"the tool {answering.label()} ({picked}its result shown as is, no model wrote it)"
        who = f"the model {self.model}" if self.model else "the model"
        used = [use for use in self.tools if not use.is_error]
        if not used:
            failed = f" ({len(self.tools)} tool call(s) failed)" if self.tools else ""
            return f"{who}, answered without using any tool{failed}"
        names = ", ".join(dict.fromkeys(use.tool for use in used))
        routed = " (routed by ContextDesk)" if any(use.routed for use in used) else ""
        return f"{who}, after calling {names}{routed}"
