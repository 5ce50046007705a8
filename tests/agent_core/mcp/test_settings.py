"""Tool settings: include modes and permissions, their precedence, and their round trip through agent.yaml."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.schema import (
    IncludeMode,
    InternalServerConfig,
    StdioServerConfig,
    ToolDefaults,
    ToolSettings,
)
from agent_core.agent.writer import save_agent_config
from agent_core.mcp import McpManager, ToolInfo, effective_tool_settings, tool_fingerprint
from tests.support.mcp_servers import DEMO_SERVER


def test_defaults_are_always_and_ask() -> None:
    settings = effective_tool_settings(StdioServerConfig(command="x"), "anything")
    assert (settings.include, settings.permission) == (IncludeMode.ALWAYS, "ask")


def test_a_tool_setting_overrides_the_server_defaults_field_by_field() -> None:
    config = StdioServerConfig(
        command="x",
        tool_defaults=ToolDefaults(include=IncludeMode.MANUAL, permission_required=False),
        tools={"search": ToolSettings(include=IncludeMode.AGENT)},
    )
    assert effective_tool_settings(config, "search").include is IncludeMode.AGENT
    assert effective_tool_settings(config, "search").permission == "allow"
    assert effective_tool_settings(config, "other").include is IncludeMode.MANUAL


def test_builtin_defaults_apply_unless_the_file_sets_them() -> None:
    refs = InternalServerConfig(type="internal", tool="references")
    assert effective_tool_settings(refs, "read_reference").include is IncludeMode.AGENT
    assert effective_tool_settings(refs, "read_reference").permission == "allow"
    explicit = InternalServerConfig.model_validate(
        {"type": "internal", "tool": "references", "toolDefaults": {"include": "always"}}
    )
    assert effective_tool_settings(explicit, "read_reference").include is IncludeMode.ALWAYS
    assert effective_tool_settings(explicit, "read_reference").permission == "allow"
    workspace = InternalServerConfig(type="internal", tool="workspace", options={"root": "."})
    assert effective_tool_settings(workspace, "current_time").permission == "allow"
    assert effective_tool_settings(workspace, "read_file").permission == "ask"


def _tool(**changes: object) -> ToolInfo:
    values: dict[str, object] = {
        "server": "s",
        "name": "t",
        "description": "d",
        "input_schema": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}},
        "include": IncludeMode.ALWAYS,
        "permission_required": True,
    }
    values.update(changes)
    return ToolInfo(**values)  # type: ignore[arg-type]


def test_the_fingerprint_changes_with_what_is_embedded_only() -> None:
    base = _tool()
    reordered = _tool(
        input_schema={"properties": {"b": {"type": "integer"}, "a": {"type": "string"}}, "type": "object"}
    )
    assert tool_fingerprint("s", base) == tool_fingerprint("s", reordered) == base.fingerprint
    assert tool_fingerprint("s", base) == tool_fingerprint("s", _tool(include=IncludeMode.MANUAL))
    assert (
        len(
            {
                tool_fingerprint("s", base),
                tool_fingerprint("other", base),
                tool_fingerprint("s", _tool(name="u")),
                tool_fingerprint("s", _tool(description="e")),
                tool_fingerprint("s", _tool(input_schema={"type": "object"})),
            }
        )
        == 5
    )


@pytest.mark.anyio
async def test_include_modes_and_permissions_round_trip_through_agent_yaml(tmp_path: Path) -> None:
    root = tmp_path / "agent"
    root.mkdir()
    (root / "agent.yaml").write_text("name: Tools\n")
    agent = load_agent(root)
    demo = StdioServerConfig(
        command=sys.executable,
        args=[str(DEMO_SERVER)],
        tool_defaults=ToolDefaults(include=IncludeMode.MANUAL, permission_required=True),
        tools={
            "echo": ToolSettings(include=IncludeMode.AGENT, permission_required=False),
            "add": ToolSettings(permission_required=False),
        },
    )
    agent.config.mcp_servers = {"demo": demo}
    save_agent_config(agent)
    reloaded = load_agent(root)
    assert reloaded.problems == []
    assert reloaded.config.mcp_servers == {"demo": demo}
    text = (root / "agent.yaml").read_text()
    assert "include: agent" in text and "permissionRequired: false" in text
    async with McpManager(reloaded.config.mcp_servers) as manager:
        tools = {t.name: t for t in manager.tools()}
    assert (tools["echo"].include, tools["echo"].permission) == (IncludeMode.AGENT, "allow")
    assert (tools["add"].include, tools["add"].permission) == (IncludeMode.MANUAL, "allow")
    assert (tools["fail"].include, tools["fail"].permission) == (IncludeMode.MANUAL, "ask")
