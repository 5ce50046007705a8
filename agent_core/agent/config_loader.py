"""Loading agent.yaml: every valid setting loads, each fault becomes a Problem.

Settings with a bad value fall back to their defaults; a provider or MCP server whose block is
broken is left out (and kept on disk untouched, so saving the agent loses nothing).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from agent_core.agent._text_file import read_text
from agent_core.agent._yaml_source import (
    YamlDocument,
    YamlSyntaxError,
    close_match,
    describe_validation_error,
    parse_yaml,
    validation_errors,
)
from agent_core.agent.items import Problem
from agent_core.agent.names import name_problem, suggest_name
from agent_core.agent.schema import (
    SERVER_MODELS,
    AgentConfig,
    ChatDefaults,
    ContextConfig,
    McpServerConfig,
    MemoryConfig,
    ProviderConfig,
    SelectionConfig,
    SkillSettings,
    ToolPermissionPolicy,
)

__all__ = ["LoadedConfig", "fallback_config", "load_config", "normalize_server_block"]

_SERVER_ADAPTER: TypeAdapter[McpServerConfig] = TypeAdapter(McpServerConfig)
ModelT = TypeVar("ModelT", bound=BaseModel)
_FIX_YAML = "fix the YAML at that line (indentation and ':' after each key are the usual causes)"
_POLICIES = frozenset(policy.value for policy in ToolPermissionPolicy)


@dataclass
class LoadedConfig:
    """agent.yaml as loaded: the valid settings, and the blocks that failed, kept verbatim."""

    config: AgentConfig
    unparsed_providers: dict[str, Any] = field(default_factory=dict)
    unparsed_servers: dict[str, Any] = field(default_factory=dict)
    # Why the file could not be read at all (``config`` is then the fallback, not the user's).
    unreadable: Problem | None = None


def load_config(path: Path, problems: list[Problem]) -> LoadedConfig:
    """Load ``agent.yaml`` at ``path``; a file that cannot be read gives the default settings."""
    fallback_name = path.parent.name
    text = read_text(path, problems)
    if text is None:
        return LoadedConfig(fallback_config(fallback_name), unreadable=problems[-1] if problems else None)
    try:
        document = parse_yaml(text)
    except YamlSyntaxError as error:
        problems.append(
            Problem(
                path,
                str(error),
                f"{error.fix or _FIX_YAML}; default settings are used until then",
                line=error.line,
            )
        )
        return LoadedConfig(fallback_config(fallback_name), unreadable=problems[-1])
    for key, line in document.duplicate_keys():
        problems.append(
            Problem(path, f"'{key}' is given twice; the last one wins", "remove one of them", line, "warning")
        )
    raw = document.data
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        problems.append(
            Problem(path, "agent.yaml must be a mapping of settings", "start from `contextdesk agent new`", 1)
        )
        return LoadedConfig(fallback_config(fallback_name), unreadable=problems[-1])

    known = {f.alias or n: n for n, f in AgentConfig.model_fields.items()}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            suggestion = close_match(str(key), known)
            problems.append(
                Problem(
                    path,
                    f"unknown key '{key}'",
                    f"did you mean '{suggestion}'?"
                    if suggestion
                    else f"remove it; known keys: {', '.join(known)}",
                    document.line_of([key]),
                )
            )
            continue
        values[known[key]] = value

    name = values.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append(
            Problem(
                path, "the agent has no name", "add `name: ...` to agent.yaml", document.line_of(["name"])
            )
        )
        name = fallback_name
    config = AgentConfig(name=name.strip())
    for text_field in ("description", "system_prompt"):
        value = values.get(text_field)
        if value is None:
            continue
        alias = AgentConfig.model_fields[text_field].alias or text_field
        if isinstance(value, str):
            setattr(config, text_field, value)
        else:
            problems.append(
                Problem(
                    path,
                    f"'{alias}' must be text",
                    "put the text in quotes or use `|` for a block",
                    document.line_of([alias]),
                )
            )
    # Assign only what the file gives, so a save writes back no more than the user wrote.
    if "chat" in values:
        config.chat = _chat_defaults(values["chat"], document, path, problems)
    if "context" in values:
        config.context = _lenient(ContextConfig, values["context"], document, path, ["context"], problems)
    if "selection" in values:
        config.selection = _lenient(
            SelectionConfig, values["selection"], document, path, ["selection"], problems
        )
    if "memory" in values:
        config.memory = _lenient(MemoryConfig, values["memory"], document, path, ["memory"], problems)
    if "model_aliases" in values:
        aliases = _mapping_section(values["model_aliases"], "modelAliases", document, path, problems)
        config.model_aliases = {str(alias): str(model) for alias, model in aliases.items()}
    if "skills" in values:
        config.skills = {
            str(skill): _lenient(SkillSettings, block, document, path, ["skills", skill], problems)
            for skill, block in _mapping_section(values["skills"], "skills", document, path, problems).items()
        }

    providers: dict[str, ProviderConfig] = {}
    unparsed_providers: dict[str, Any] = {}
    for provider_id, block in _mapping_section(
        values.get("providers"), "providers", document, path, problems
    ).items():
        provider = _strict(ProviderConfig, block, document, path, ["providers", provider_id], problems)
        if provider is None:
            unparsed_providers[provider_id] = block
        else:
            providers[provider_id] = provider
    if "providers" in values:
        config.providers = providers

    servers: dict[str, McpServerConfig] = {}
    unparsed_servers: dict[str, Any] = {}
    for server_name, block in _mapping_section(
        values.get("mcp_servers"), "mcpServers", document, path, problems
    ).items():
        location = ["mcpServers", server_name]
        if problem := name_problem(str(server_name)):
            problems.append(
                Problem(
                    path,
                    f"MCP server name: {problem}",
                    f"rename it to '{suggest_name(str(server_name))}'",
                    document.line_of(location),
                )
            )
            unparsed_servers[server_name] = block
            continue
        checked = _permissions_fail_closed(normalize_server_block(block), document, path, location, problems)
        server = _strict_server(checked, document, path, location, problems)
        if server is None:
            unparsed_servers[server_name] = block
        else:
            servers[server_name] = server
    if "mcp_servers" in values:
        config.mcp_servers = servers
    return LoadedConfig(config, unparsed_providers, unparsed_servers)


def fallback_config(name: str) -> AgentConfig:
    """The settings used when agent.yaml cannot be read: defaults, but asking before every tool call.

    Settings that govern permissions fail closed: what the file said about them is unknown.
    """
    config = AgentConfig(name=name)
    config.chat.tool_permission = ToolPermissionPolicy.ASK
    return config


def _chat_defaults(data: Any, document: YamlDocument, path: Path, problems: list[Problem]) -> ChatDefaults:
    """The chat section, where an unusable ``toolPermission`` becomes ``ask``, never the default."""
    if not isinstance(data, Mapping):
        chat = _lenient(ChatDefaults, data, document, path, ["chat"], problems)
        if data is not None:  # what it says about permissions is unknown
            chat.tool_permission = ToolPermissionPolicy.ASK
        return chat
    data = dict(data)
    invalid: list[Any] = []
    for key in ("toolPermission", "tool_permission"):
        if key in data and not (isinstance(data[key], str) and data[key] in _POLICIES):
            invalid.append(data.pop(key))
    chat = _lenient(ChatDefaults, data, document, path, ["chat"], problems)
    for value in invalid:
        chat.tool_permission = ToolPermissionPolicy.ASK
        problems.append(
            Problem(
                path,
                f"chat.toolPermission: {value!r} is not one of tool, ask, allow, so every tool call "
                "asks for approval until it is fixed",
                "write one of tool, ask, allow (in lower case)",
                document.line_of(["chat", "toolPermission"]),
            )
        )
    return chat


def _permissions_fail_closed(
    block: Any, document: YamlDocument, path: Path, location: Sequence[str], problems: list[Problem]
) -> Any:
    """``block`` with each ``permissionRequired`` that is not true or false replaced by true."""
    if not isinstance(block, Mapping):
        return block
    block = dict(block)
    places: list[tuple[list[str], Any]] = []
    if isinstance(block.get("toolDefaults"), Mapping):
        block["toolDefaults"] = dict(block["toolDefaults"])
        places.append((["toolDefaults"], block["toolDefaults"]))
    if isinstance(block.get("tools"), Mapping):
        block["tools"] = {str(name): settings for name, settings in block["tools"].items()}
        for name, settings in block["tools"].items():
            if isinstance(settings, Mapping):
                block["tools"][name] = dict(settings)
                places.append((["tools", name], block["tools"][name]))
    for where, settings in places:
        for key in ("permissionRequired", "permission_required"):
            if key in settings and not isinstance(settings[key], bool):
                loc = [*location, *where, key]
                problems.append(
                    Problem(
                        path,
                        f"{'.'.join(loc)}: must be true or false (got {settings[key]!r}); approval is "
                        "required until it is fixed",
                        "write true or false",
                        document.line_of(loc),
                    )
                )
                settings[key] = True
    return block


def normalize_server_block(block: Any) -> Any:
    """Fill in ``type`` the way other apps' configs leave it implicit."""
    if isinstance(block, Mapping) and "type" not in block:
        block = dict(block)
        if "command" in block:
            block["type"] = "stdio"
        elif isinstance(block.get("url"), str):
            block["type"] = "sse" if block["url"].rstrip("/").endswith("/sse") else "streamable-http"
    return block


def _mapping_section(
    value: Any, alias: str, document: YamlDocument, path: Path, problems: list[Problem]
) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        problems.append(
            Problem(
                path,
                f"'{alias}' must be a mapping of names to settings",
                f"write `{alias}:` then one indented block per entry",
                document.line_of([alias]),
            )
        )
        return {}
    return {str(k): v for k, v in value.items()}


def _lenient(
    model: type[ModelT],
    data: Any,
    document: YamlDocument,
    path: Path,
    location: Sequence[str | int],
    problems: list[Problem],
) -> ModelT:
    """Validate a settings section, replacing each bad value with its default."""
    if data is None:
        return model()
    if not isinstance(data, Mapping):
        problems.append(
            Problem(
                path,
                f"'{'.'.join(map(str, location))}' must be a mapping",
                "indent its settings under it",
                document.line_of(location),
            )
        )
        return model()
    remaining = dict(data)
    while True:
        try:
            return model.model_validate(remaining)
        except ValidationError as error:
            dropped = False
            for item in validation_errors(error):
                message, fix = describe_validation_error(item, model)
                loc = [*location, *item["loc"]]
                problems.append(
                    Problem(
                        path,
                        f"{'.'.join(map(str, location))}: {message}",
                        fix
                        if item["type"] == "extra_forbidden"
                        else f"{fix}; the default is used until then",
                        document.line_of(loc),
                    )
                )
                if item["loc"] and item["loc"][0] in remaining:
                    del remaining[item["loc"][0]]
                    dropped = True
            if not dropped:
                return model()


def _strict(
    model: type[ModelT],
    data: Any,
    document: YamlDocument,
    path: Path,
    location: Sequence[str | int],
    problems: list[Problem],
) -> ModelT | None:
    try:
        return model.model_validate(data if data is not None else {})
    except ValidationError as error:
        _report(error, model, document, path, location, problems)
        return None


def _strict_server(
    data: Any, document: YamlDocument, path: Path, location: Sequence[str | int], problems: list[Problem]
) -> McpServerConfig | None:
    try:
        return _SERVER_ADAPTER.validate_python(data)
    except ValidationError as error:
        kind = data.get("type") if isinstance(data, Mapping) else None
        model = SERVER_MODELS.get(str(kind), AgentConfig)
        # pydantic puts the union tag first in each location; it says nothing to the user.
        _report(error, model, document, path, location, problems, drop_tag=str(kind))
        return None


def _report(
    error: ValidationError,
    model: type[BaseModel],
    document: YamlDocument,
    path: Path,
    location: Sequence[str | int],
    problems: list[Problem],
    drop_tag: str | None = None,
) -> None:
    where = ".".join(map(str, location))
    for item in validation_errors(error):
        loc = list(item["loc"])
        if drop_tag and loc and loc[0] == drop_tag:
            loc = loc[1:]
        item["loc"] = tuple(loc)
        if item["type"] == "union_tag_invalid" or item["type"] == "union_tag_not_found":
            message = "'type' must be one of stdio, sse, streamable-http, internal"
            fix = "set `type:` (or give `command:` for a local server, `url:` for a remote one)"
        else:
            message, fix = describe_validation_error(item, model)
        problems.append(
            Problem(
                path,
                f"{where}: {message}",
                f"{fix}; '{location[-1]}' is left out until then",
                document.line_of([*location, *loc]),
            )
        )
