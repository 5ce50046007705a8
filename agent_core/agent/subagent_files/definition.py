"""What a sub-agent is: ``subagents/NAME.md`` in an agent folder, a Claude Code agent file
(``.claude/agents/*.md``) read unchanged, plus ContextDesk's own fields.

The header is validated like every agent file, with located problems; the Markdown body is the
sub-agent's system prompt. Claude Code's fields that have no meaning here (``color``, ``hooks``…)
and keys nobody defined are kept out with a warning, never a failure: a file that works in Claude
Code must load here.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from agent_core.agent.schema import FileModel, IncludeMode, ItemName

__all__ = [
    "CLAUDE_ONLY_FIELDS",
    "ContextMode",
    "Subagent",
    "SubagentFrontmatter",
    "SubagentLimits",
    "SubagentLimitsConfig",
    "tool_allowed",
]

ContextMode = Literal["isolated", "fork", "summary"]

#: Claude Code fields read without complaint but not used by ContextDesk (a note says so).
CLAUDE_ONLY_FIELDS = frozenset(
    {
        "color",
        "permissionMode",
        "skills",
        "hooks",
        "mcpServers",
        "memory",
        "effort",
        "background",
        "isolation",
    }
)


class SubagentLimitsConfig(FileModel):
    """``limits:``: caps the runtime enforces (the model is never asked to respect them)."""

    max_turns: int | None = Field(default=None, ge=1, le=200, description="model replies, at most")
    max_tokens: int | None = Field(
        default=None, ge=100, le=10_000_000, description="input plus output tokens, at most"
    )
    timeout_seconds: float | None = Field(default=None, gt=0, le=86_400)
    max_depth: int | None = Field(default=None, ge=0, le=5, description="how deep sub-agents may nest")
    max_parallel: int | None = Field(default=None, ge=1, le=16, description="children running at once")


class SubagentFrontmatter(FileModel):
    """The YAML header of ``subagents/NAME.md``."""

    name: ItemName | None = None
    description: str = ""
    # Claude Code writes "Read, Grep, Glob" as often as a YAML list.
    tools: list[str] | None = None
    disallowed_tools: list[str] = Field(default_factory=list)
    model: str = "inherit"
    max_turns: int | None = Field(default=None, ge=1, le=200)  # Claude Code's place for it
    rules: list[str] = Field(default_factory=list)
    references: list[str] = Field(default_factory=list)
    context: ContextMode = "isolated"
    output: dict[str, Any] | None = None
    # How its tool is offered to the parent: chosen per message (agent), in every chat (always),
    # or added by the user (manual).
    include: IncludeMode = IncludeMode.AGENT
    # Another agent folder, inside this one, whose prompt, rules and references the child uses.
    agent: str | None = None
    # own: the child asks for its tool calls itself; inherit: what the user allowed for the
    # parent chat is allowed to the child too.
    approvals: Literal["own", "inherit"] = "own"
    limits: SubagentLimitsConfig = Field(default_factory=SubagentLimitsConfig)

    @field_validator("tools", "disallowed_tools", "rules", "references", mode="before")
    @classmethod
    def _comma_list(cls, value: object) -> object:
        if isinstance(value, str):
            return [part.strip() for part in value.split(",") if part.strip()]
        return value

    @field_validator("output")
    @classmethod
    def _json_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        from jsonschema import Draft202012Validator, SchemaError

        try:
            Draft202012Validator.check_schema(value)
        except SchemaError as error:
            raise ValueError(f"not a valid JSON schema: {error.message}") from error
        return value

    @model_validator(mode="after")
    def _one_max_turns(self) -> SubagentFrontmatter:
        both = self.max_turns is not None and self.limits.max_turns is not None
        if both and self.max_turns != self.limits.max_turns:
            raise ValueError("maxTurns and limits.maxTurns differ: keep one of them")
        return self


@dataclass(frozen=True)
class SubagentLimits:
    """The caps in force; defaults keep an unbounded child from costing the user unseen."""

    max_turns: int = 10
    max_tokens: int = 100_000
    timeout_seconds: float = 300.0
    max_depth: int = 1  # 1: a sub-agent cannot start sub-agents of its own
    max_parallel: int = 3

    @classmethod
    def of(cls, header: SubagentFrontmatter) -> SubagentLimits:
        given = header.limits
        defaults = cls()
        return cls(
            max_turns=given.max_turns or header.max_turns or defaults.max_turns,
            max_tokens=given.max_tokens or defaults.max_tokens,
            timeout_seconds=given.timeout_seconds or defaults.timeout_seconds,
            max_depth=defaults.max_depth if given.max_depth is None else given.max_depth,
            max_parallel=given.max_parallel or defaults.max_parallel,
        )


@dataclass(frozen=True)
class Subagent:
    """A sub-agent as loaded. ``tools`` are ContextDesk tool patterns (``server.tool``, with
    ``*``); None means every tool the parent has, as in Claude Code."""

    name: str
    description: str
    prompt: str
    tools: tuple[str, ...] | None = None
    disallowed_tools: tuple[str, ...] = ()
    model: str = "inherit"
    rules: tuple[str, ...] = ()
    references: tuple[str, ...] = ()
    context: ContextMode = "isolated"
    include: IncludeMode = IncludeMode.AGENT
    output_schema: dict[str, Any] | None = field(default=None, compare=False)
    limits: SubagentLimits = SubagentLimits()
    path: Path | None = field(default=None, compare=False)
    agent_folder: Path | None = None  # an agent folder used as this sub-agent
    inherit_approvals: bool = False  # the parent chat's "allow for this chat" applies to it
    # Claude Code tools with no ContextDesk counterpart, left out (the file says which).
    unsupported_tools: tuple[str, ...] = ()
    # The header's own name when it could not be used as it is ("Code Reviewer" -> code-reviewer).
    display_name: str | None = None

    @property
    def tool_name(self) -> str:
        """The tool the parent calls to delegate to this sub-agent."""
        return self.name


def tool_allowed(subagent: Subagent, server: str, tool: str) -> bool:
    """Whether the child may use ``server.tool``: allow-listed (or no list) and not disallowed;
    ``disallowedTools`` wins."""
    full = f"{server}.{tool}"
    if any(fnmatch.fnmatchcase(full, pattern) for pattern in subagent.disallowed_tools):
        return False
    if subagent.tools is None:
        return True
    return any(fnmatch.fnmatchcase(full, pattern) for pattern in subagent.tools)
