"""MCP servers built into ContextDesk, run in-process (``type: internal`` in agent.yaml).

Each is an ordinary SDK server; the client connects to it in memory, through the same code path
as any other server. A built-in may bring its own tool defaults, which agent.yaml overrides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import IncludeMode, ToolSettings
from agent_core.agent.skill_files.definition import Skill
from agent_core.errors import ContextDeskError

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from agent_core.memory.book import MemoryBook

__all__ = [
    "BUILTIN_SERVERS",
    "BuiltinContext",
    "BuiltinOptionError",
    "BuiltinServer",
    "CallTarget",
    "MemoriesSource",
    "OptionValue",
    "PendingCall",
    "ReferencesSource",
    "SkillRanker",
    "SkillsSource",
    "always_asks",
    "builtin_tool_settings",
]

OptionValue = str | int | float | bool
ReferencesSource = Callable[[], Mapping[str, DocumentItem]]
# The agent's skills by name, read afresh on every call (an edit or an import shows at once).
SkillsSource = Callable[[], Mapping[str, Skill]]
# Skills ranked for a query by the selection's embedding index, best first, as (name, score);
# blocking (the model may still be loading). Raises IndexerError-like faults as ContextDeskError.
SkillRanker = Callable[[str, Sequence[Skill]], list[tuple[str, float]]]
# The open agent's memories; blocking (the embedding model may still be loading).
MemoriesSource = Callable[[], "MemoryBook"]


class BuiltinOptionError(ContextDeskError):
    """A built-in server's ``options`` in agent.yaml are missing or wrong."""


def _no_references() -> Mapping[str, DocumentItem]:
    return {}


def _no_skills() -> Mapping[str, Skill]:
    return {}


def _no_folders() -> tuple[Path, ...]:
    return ()


@dataclass(frozen=True)
class BuiltinContext:
    """What a built-in server may see of the app: the agent's references, memories and skills,
    and its workspace folders (the built-in workspace servers' roots)."""

    references: ReferencesSource = _no_references
    memories: MemoriesSource | None = None  # None where there is no memory store (e.g. `mcp call`)
    skills: SkillsSource = _no_skills  # read afresh per call: edits show at once
    skill_ranker: SkillRanker | None = None  # None: skills.search ranks by words alone
    workspace_folders: Callable[[], tuple[Path, ...]] = _no_folders  # read per call: they can change


@dataclass(frozen=True)
class PendingCall:
    """A call waiting for the user's approval, as its built-in server's ``target`` sees it."""

    tool: str
    arguments: Mapping[str, Any]
    options: Mapping[str, OptionValue]
    context: BuiltinContext


# What a call acts on beyond its arguments, in words, for its approval ("" when nothing to say).
CallTarget = Callable[[PendingCall], str]


@dataclass(frozen=True)
class BuiltinServer:
    """A built-in server: how to build it, the tool settings it defaults to, what its calls act
    on when their arguments do not say (the workspace's folder), and the tools asked about before
    every call whatever agent.yaml and the chat's policy say (no "allow for this chat" either)."""

    kind: str
    description: str
    build: Callable[[BuiltinContext, Mapping[str, OptionValue]], MCPServer]
    tool_defaults: ToolSettings = field(default_factory=ToolSettings)
    tools: Mapping[str, ToolSettings] = field(default_factory=dict)
    target: CallTarget | None = None
    always_ask_tools: frozenset[str] = frozenset()


def _build_references(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    from agent_core.mcp.builtins.references import build_references_server

    return build_references_server(context, options)


def _build_skills(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    from agent_core.mcp.builtins.skills import build_skills_server

    return build_skills_server(context, options)


def _build_workspace(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    from agent_core.mcp.builtins.workspace import build_workspace_server

    return build_workspace_server(context, options)


def _workspace_target(call: PendingCall) -> str:
    from agent_core.mcp.builtins.workspace import call_target

    return call_target(call.options, call.tool)


def _skills_target(call: PendingCall) -> str:
    from agent_core.mcp.builtins._skill_scripts import run_script_target

    return run_script_target(call)


def _build_memory(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    from agent_core.mcp.builtins.memory import build_memory_server

    return build_memory_server(context, options)


BUILTIN_SERVERS: dict[str, BuiltinServer] = {
    "memory": BuiltinServer(
        kind="memory",
        description="remember, search and forget long-term memories (the user approves each call)",
        build=_build_memory,
        # Writing or forgetting a memory changes what later chats see: the user is asked each time.
        tool_defaults=ToolSettings(include=IncludeMode.AGENT, permission_required=True),
    ),
    "references": BuiltinServer(
        kind="references",
        description="list and read the agent's references on demand",
        build=_build_references,
        # Reading the agent's own references is harmless; the selector offers the tools when relevant.
        tool_defaults=ToolSettings(include=IncludeMode.AGENT, permission_required=False),
    ),
    "skills": BuiltinServer(
        kind="skills",
        description="load the agent's skills on demand (a skill's instructions, one of its files, a search over all) "
        "and run a skill's scripts (the user approves each run)",
        build=_build_skills,
        # Reading the agent's own skills changes nothing; the model must be able to load the skills
        # the catalogue offers, so the tools are always there. Running a script asks each time.
        tool_defaults=ToolSettings(include=IncludeMode.ALWAYS, permission_required=False),
        tools={"run_script": ToolSettings(permission_required=True)},
        target=_skills_target,
        # A skill's script is someone else's program: every run is asked about, showing its
        # command line and what the sandbox does and does not isolate.
        always_ask_tools=frozenset({"run_script"}),
    ),
    "workspace": BuiltinServer(
        kind="workspace",
        description="the current date and time; list, read and search text files in one folder",
        build=_build_workspace,
        tool_defaults=ToolSettings(include=IncludeMode.ALWAYS, permission_required=True),
        tools={"current_time": ToolSettings(permission_required=False)},
        target=_workspace_target,
    ),
}


def always_asks(kind: str, tool_name: str) -> bool:
    """Whether the built-in ``kind``'s tool is asked about before every call, whatever the settings."""
    builtin = BUILTIN_SERVERS.get(kind)
    return builtin is not None and tool_name in builtin.always_ask_tools


def builtin_tool_settings(kind: str, tool_name: str) -> list[ToolSettings]:
    """A built-in server's own settings for one tool, most specific first (empty if unknown)."""
    builtin = BUILTIN_SERVERS.get(kind)
    if builtin is None:
        return []
    specific = builtin.tools.get(tool_name)
    return [specific, builtin.tool_defaults] if specific else [builtin.tool_defaults]
