"""How the chat treats each tool: its include mode and whether to ask before running it."""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.agent.schema import IncludeMode, InternalServerConfig, McpServerConfig, ToolSettings
from agent_core.mcp.builtins import always_asks, builtin_tool_settings
from agent_core.mcp.types import ToolAnnotations, ToolPermission

__all__ = ["EffectiveToolSettings", "effective_tool_settings"]


@dataclass(frozen=True)
class EffectiveToolSettings:
    include: IncludeMode
    permission_required: bool
    asks_every_call: bool = False  # a built-in's tool that no setting or policy spares a question

    @property
    def permission(self) -> ToolPermission:
        return "ask" if self.permission_required else "allow"


def effective_tool_settings(
    server_config: McpServerConfig, tool_name: str, annotations: ToolAnnotations | None = None
) -> EffectiveToolSettings:
    """The settings of one tool, each value from the first place that sets it.

    In order: the tool's entry under ``tools``, the server's ``toolDefaults`` (where the file sets
    them), a built-in server's own defaults, then the schema defaults (include ``always``, ask).

    The server's annotations bend only the permission, and only below the tool's own entry (the
    user's explicit choice for that tool always wins): a tool marked destructive is always asked
    about, whatever the server-wide default says; a tool marked read-only runs without asking
    when the server's ``toolDefaults.allowReadOnly`` is on (off by default). A built-in's
    always-asked tool (a skill's run_script) is asked about whatever any of them says.
    """
    layers: list[ToolSettings] = []
    override = server_config.tools.get(tool_name)
    if override is not None:
        layers.append(override)
    defaults = server_config.tool_defaults
    set_defaults = defaults.model_fields_set & set(ToolSettings.model_fields)
    layers.append(ToolSettings.model_validate({k: getattr(defaults, k) for k in set_defaults}))
    if isinstance(server_config, InternalServerConfig):
        layers.extend(builtin_tool_settings(server_config.tool, tool_name))
    include = next((s.include for s in layers if s.include is not None), defaults.include)
    permission = next(
        (s.permission_required for s in layers if s.permission_required is not None),
        defaults.permission_required,
    )
    if override is None or override.permission_required is None:
        hints = annotations or ToolAnnotations()
        if hints.is_destructive:
            permission = True
        elif hints.read_only is True and defaults.allow_read_only:
            permission = False
    every_call = isinstance(server_config, InternalServerConfig) and always_asks(
        server_config.tool, tool_name
    )
    return EffectiveToolSettings(
        include=include, permission_required=permission or every_call, asks_every_call=every_call
    )
