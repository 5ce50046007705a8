"""What produced a result: the model, a tool, or a tool's result shown as it is; and which tools
the work behind it used. Recorded with every reply, sub-agent run and workflow state, so that a
result never looks like the model's work (or like grounded work) when it is not."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = ["STOPPED", "ProducedBy", "Provenance", "ToolUse", "without_model_words"]

# model: a model wrote the text. tool: a tool's output is the result by design (a workflow's tool
# state). tool_result: a tool answered in the model's place and its result is shown as it is (a
# routed tool on a model that does not restate results). mock: a workflow's mock output.
ProducedBy = Literal["model", "tool", "tool_result", "mock"]

_ARGUMENTS_SHOWN = 80  # characters of a tool's arguments in the one line
STOPPED = "was stopped"  # a call's ``ended`` when the user stopped the reply while it ran


@dataclass(frozen=True)
class ToolUse:
    """One tool call on the way to a result."""

    tool: str  # server.tool
    arguments: dict[str, Any] = field(default_factory=dict)
    routed: bool = False  # ContextDesk picked the tool for a model that cannot choose tools
    is_error: bool = False
    # How the call ended when its tool gave no answer: "timed out after 8 s", "was stopped",
    # "failed: ..." (the text in its place is then ContextDesk's). Empty when the tool answered.
    ended: str = ""

    @property
    def answered(self) -> bool:
        """Whether the tool gave a result (not an error, and not a call that timed out or was stopped)."""
        return not self.is_error and not self.ended

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
        return any(use.answered for use in self.tools)

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
            if answering.ended:  # the tool never answered: the text, if any, is ContextDesk's
                shown = "nothing shown" if answering.ended == STOPPED else "ContextDesk's message shown"
                return f"no tool answer: the call to {answering.label()} {answering.ended} ({picked}{shown})"
            return f"the tool {answering.label()} ({picked}its result shown as is, no model wrote it)"
        who = f"the model {self.model}" if self.model else "the model"
        used = [use for use in self.tools if use.answered]
        ended = [f"the call to {use.tool} {use.ended}" for use in self.tools if use.ended]
        if not used:
            failed = sum(1 for use in self.tools if not use.ended)
            notes = ended + ([f"{failed} tool call{'s' if failed > 1 else ''} failed"] if failed else [])
            return f"{who}, answered without using any tool" + (f" ({'; '.join(notes)})" if notes else "")
        names = ", ".join(dict.fromkeys(use.tool for use in used))
        routed = " (routed by ContextDesk)" if any(use.routed for use in used) else ""
        return f"{who}, after calling {names}{routed}" + (f" ({'; '.join(ended)})" if ended else "")


def without_model_words(provenance: Provenance | None) -> str:
    """Why a reply that ran no model has what it has, to follow "No model was called: ": the tool
    answered, or the call timed out, failed or was stopped (then no tool answered at all)."""
    tools = provenance.tools if provenance is not None else ()
    if not tools:
        return "nothing was asked of a model"
    last = tools[-1]
    if last.ended == STOPPED:
        return f"the call to {last.tool} was stopped before it answered"
    if last.ended:
        return f"the call to {last.tool} {last.ended} (ContextDesk's message shown)"
    return f"the tool {last.tool} answered (its result shown as is)"
