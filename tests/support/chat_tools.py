"""Tools for chat tests: descriptors as the MCP layer would give them, and a runtime backed by
plain functions. They stand in for the chat's tool dependency, not for the code under test."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agent_core.agent.schema import IncludeMode


def _no_parameters() -> Mapping[str, Any]:
    return {"type": "object", "properties": {}}


@dataclass(frozen=True)
class Tool:
    server: str
    name: str
    description: str
    include: IncludeMode = IncludeMode.ALWAYS
    permission_required: bool = True
    input_schema: Mapping[str, Any] = field(default_factory=_no_parameters)


@dataclass(frozen=True)
class Outcome:
    text: str
    is_error: bool = False
    elapsed_seconds: float = 0.01


class PythonTools:
    """Tools backed by plain functions, recording each call."""

    def __init__(self, tools: Sequence[Tool], functions: Mapping[str, Any] | None = None) -> None:
        self._tools = list(tools)
        self._functions = functions or {}
        self.calls: list[tuple[str, str, Mapping[str, Any]]] = []

    def tools(self) -> Sequence[Tool]:
        return self._tools

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> Outcome:
        self.calls.append((server, tool, arguments))
        try:
            return Outcome(str(self._functions[tool](**arguments)))
        except (KeyError, TypeError, ValueError) as error:
            return Outcome(f"error: {error}", is_error=True)
