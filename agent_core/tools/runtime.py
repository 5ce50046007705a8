"""What the chat engine needs from the tools layer (the MCP manager provides it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from agent_core.agent.schema import IncludeMode
from agent_core.content_parts import ContentPart
from agent_core.tools.hints import ToolAnnotations

__all__ = [
    "GuardedTool",
    "HintedTool",
    "NoTools",
    "RichOutcome",
    "ToolDescriptor",
    "ToolOutcome",
    "ToolRuntime",
    "call_ended",
    "outcome_ended",
]


class ToolDescriptor(Protocol):
    @property
    def server(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def input_schema(self) -> Mapping[str, Any]: ...
    @property
    def include(self) -> IncludeMode: ...
    @property
    def permission_required(self) -> bool: ...


@runtime_checkable
class HintedTool(ToolDescriptor, Protocol):
    """A tool whose server said what it does (an MCP tool's annotations)."""

    @property
    def annotations(self) -> ToolAnnotations: ...


@runtime_checkable
class GuardedTool(ToolDescriptor, Protocol):
    """A tool that may be asked about before every call whatever the chat's policy (an MCP
    tool's descriptor says; a skill's run_script does)."""

    @property
    def asks_every_call(self) -> bool: ...


class ToolOutcome(Protocol):
    @property
    def text(self) -> str: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def elapsed_seconds(self) -> float: ...


@runtime_checkable
class RichOutcome(ToolOutcome, Protocol):
    """An outcome with more than text (an MCP tool's): the chat keeps the rest to show it."""

    @property
    def structured(self) -> Mapping[str, Any] | None: ...
    @property
    def structured_problem(self) -> str | None: ...
    @property
    def content(self) -> tuple[ContentPart, ...]: ...
    @property
    def ui_resource_uri(self) -> str | None: ...


class ToolRuntime(Protocol):
    def tools(self) -> Sequence[ToolDescriptor]:
        """Tools of the servers that are ready now."""
        ...

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        """Run a tool; failures come back as an outcome with ``is_error``, never as an exception."""
        ...


class NoTools:
    """A runtime with no tools, for agents without MCP servers and for tests."""

    def tools(self) -> Sequence[ToolDescriptor]:
        return ()

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        raise LookupError(f"no tool {server}.{tool}")


def call_ended(error: BaseException) -> str:
    """How a call that raised ``error`` ended, to follow "the call to X": "timed out after 8 s"
    when it waited out its timeout, else "failed: " and the message's first part (not its fix)."""
    seconds = getattr(error, "timed_out_after", None)
    if isinstance(seconds, int | float):
        return f"timed out after {seconds:g} s"
    reason = str(error).split(" Fix:")[0].strip().rstrip(".")
    return f"failed: {reason}" if reason else "failed"


def outcome_ended(outcome: ToolOutcome) -> str:
    """``outcome``'s account of a call its tool did not answer ("timed out after 8 s"), else ""."""
    ended = getattr(outcome, "ended", "")
    return ended if isinstance(ended, str) else ""
