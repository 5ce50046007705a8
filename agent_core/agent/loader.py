"""Loading an agent folder: every valid part is loaded, every fault becomes a Problem.

A broken file never stops the agent from loading. Settings with a bad value fall back to their
defaults; a rule, reference, provider or MCP server whose file or block is broken is left out
(and kept on disk untouched, so saving the agent loses nothing).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent._yaml_source import (
    YamlDocument,
    YamlSyntaxError,
    close_match,
    describe_validation_error,
    parse_yaml,
    validation_errors,
)
from agent_core.agent.items import FOLDER_OF_KIND, DocumentItem, DocumentKind, Problem
from agent_core.agent.names import name_problem, suggest_name
from agent_core.agent.schema import (
    SERVER_MODELS,
    AgentConfig,
    ChatDefaults,
    ContextConfig,
    ItemFrontmatter,
    McpServerConfig,
    ProviderConfig,
    SelectionConfig,
)
from agent_core.agent.secrets import env_var_name
from agent_core.errors import AgentFileError

__all__ = ["AGENT_FILE", "Agent", "load_agent", "normalize_server_block"]

logger = logging.getLogger(__name__)

AGENT_FILE = "agent.yaml"
ITEM_SUFFIX = ".md"
MAX_ITEM_BYTES = 5 * 1024 * 1024

_SERVER_ADAPTER: TypeAdapter[McpServerConfig] = TypeAdapter(McpServerConfig)
ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass
class Agent:
    """An agent folder as loaded: its settings, its items and what was wrong with it."""

    root: Path
    config: AgentConfig
    rules: dict[str, DocumentItem] = field(default_factory=dict)
    references: dict[str, DocumentItem] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    # Blocks of agent.yaml that failed validation, kept verbatim so a save does not drop them.
    unparsed_providers: dict[str, Any] = field(default_factory=dict)
    unparsed_servers: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == "error"]

    def documents(self, kind: DocumentKind) -> dict[str, DocumentItem]:
        return self.rules if kind == "rule" else self.references

    def document(self, kind: DocumentKind, name: str) -> DocumentItem | None:
        return self.documents(kind).get(name)


def load_agent(root: Path | str) -> Agent:
    """Load the agent in folder ``root``, collecting problems instead of failing on them.

    Raises:
        AgentFileError: ``root`` is not a folder or has no ``agent.yaml``.
    """
    root = Path(root).expanduser().resolve()
    if not root.is_dir():
        raise AgentFileError(
            f"{root} is not a folder: pass the folder that holds agent.yaml, "
            f"or create an agent there with `contextdesk agent new {root}`"
        )
    agent_file = root / AGENT_FILE
    if not agent_file.is_file():
        raise AgentFileError(
            f"{root} has no {AGENT_FILE}, so it is not a ContextDesk agent: "
            f"create one with `contextdesk agent new {root}`, or import an existing setup "
            f"with `contextdesk agent import SRC {root}`"
        )
    problems: list[Problem] = []
    config, unparsed_providers, unparsed_servers = _load_config(agent_file, problems)
    agent = Agent(
        root=root,
        config=config,
        problems=problems,
        unparsed_providers=unparsed_providers,
        unparsed_servers=unparsed_servers,
    )
    for kind in ("rule", "reference"):
        agent.documents(kind).update(load_documents(root, kind, problems))
    _check_secret_references(agent)
    problems.sort(key=lambda p: (str(p.path), p.line or 0))
    logger.debug(
        "loaded agent %s: %d rules, %d references, %d problems",
        root,
        len(agent.rules),
        len(agent.references),
        len(problems),
    )
    return agent


# --- agent.yaml ---------------------------------------------------------------------------


def _load_config(path: Path, problems: list[Problem]) -> tuple[AgentConfig, dict[str, Any], dict[str, Any]]:
    fallback_name = path.parent.name
    text = _read_text(path, problems)
    if text is None:
        return AgentConfig(name=fallback_name), {}, {}
    try:
        document = parse_yaml(text)
    except YamlSyntaxError as error:
        problems.append(
            Problem(
                path,
                str(error),
                "fix the YAML at that line (indentation and ':' after each key are the usual causes); "
                "default settings are used until then",
                line=error.line,
            )
        )
        return AgentConfig(name=fallback_name), {}, {}
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
        return AgentConfig(name=fallback_name), {}, {}

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
        config.chat = _lenient(ChatDefaults, values["chat"], document, path, ["chat"], problems)
    if "context" in values:
        config.context = _lenient(ContextConfig, values["context"], document, path, ["context"], problems)
    if "selection" in values:
        config.selection = _lenient(
            SelectionConfig, values["selection"], document, path, ["selection"], problems
        )

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
        server = _strict_server(normalize_server_block(block), document, path, location, problems)
        if server is None:
            unparsed_servers[server_name] = block
        else:
            servers[server_name] = server
    if "mcp_servers" in values:
        config.mcp_servers = servers
    return config, unparsed_providers, unparsed_servers


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


# --- rules/ and references/ ----------------------------------------------------------------


def load_documents(root: Path, kind: DocumentKind, problems: list[Problem]) -> dict[str, DocumentItem]:
    """Every valid item file of one kind, by name, sorted by name."""
    folder = root / FOLDER_OF_KIND[kind]
    if not folder.is_dir():
        return {}
    items: dict[str, DocumentItem] = {}
    lowered: dict[str, Path] = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.is_dir():
            continue
        if path.suffix != ITEM_SUFFIX:
            if not path.name.endswith("~") and path.suffix not in {".tmp", ".swp"}:
                problems.append(
                    Problem(
                        path,
                        f"not a {kind} file (only {ITEM_SUFFIX} files are read)",
                        f"rename it to {path.stem}{ITEM_SUFFIX} to use it",
                        severity="warning",
                    )
                )
            continue
        item = load_document(path, kind, problems)
        if item is None:
            continue
        if item.name.lower() in lowered:
            problems.append(
                Problem(
                    path,
                    f"another {kind} is named '{lowered[item.name.lower()].stem}' "
                    "(the names differ only in case)",
                    "rename one of the two files; this one is left out",
                )
            )
            continue
        lowered[item.name.lower()] = path
        items[item.name] = item
    return items


def load_document(path: Path, kind: DocumentKind, problems: list[Problem]) -> DocumentItem | None:
    """One rule or reference file, or None (with problems recorded) when it cannot be used."""
    name = path.stem
    if problem := name_problem(name):
        problems.append(
            Problem(path, f"file name: {problem}", f"rename the file to {suggest_name(name)}{ITEM_SUFFIX}")
        )
        return None
    try:
        if path.stat().st_size > MAX_ITEM_BYTES:
            problems.append(
                Problem(
                    path,
                    f"the file is larger than {MAX_ITEM_BYTES // (1024 * 1024)} MB",
                    f"split it into several {kind}s",
                )
            )
            return None
    except OSError as error:
        problems.append(
            Problem(
                path, f"cannot read the file: {error.strerror}", "check that it exists and you may read it"
            )
        )
        return None
    text = _read_text(path, problems)
    if text is None:
        return None
    try:
        parts = split_frontmatter(text)
    except FrontmatterError as error:
        problems.append(Problem(path, str(error), "add a line with just '---' after the header", line=1))
        return None
    header: dict[str, Any] = {}
    document: YamlDocument | None = None
    if parts.header is None:
        problems.append(
            Problem(
                path,
                "no header; defaults are used (include: manual, priorityLevel: 500)",
                "add a '---' header with name, description, priorityLevel and include",
                line=1,
                severity="warning",
            )
        )
    else:
        try:
            document = parse_yaml(parts.header, first_line=parts.header_first_line)
        except YamlSyntaxError as error:
            problems.append(
                Problem(path, f"header: {error}", "fix the YAML between the '---' lines", error.line)
            )
            return None
        if document.data is not None and not isinstance(document.data, Mapping):
            problems.append(
                Problem(
                    path,
                    "the header must be a mapping of keys to values",
                    "write `key: value` lines between the '---' lines",
                    parts.header_first_line,
                )
            )
            return None
        header = dict(document.data or {})
    try:
        meta = ItemFrontmatter.model_validate(header)
    except ValidationError as error:
        for item in validation_errors(error):
            message, fix = describe_validation_error(item, ItemFrontmatter)
            line = document.line_of(list(item["loc"])) if document else None
            problems.append(
                Problem(path, f"header: {message}", f"{fix}; this {kind} is left out until then", line)
            )
        return None
    if meta.name is not None and meta.name != name:
        problems.append(
            Problem(
                path,
                f"the header says name '{meta.name}' but the file is {path.name}; the file name is used",
                f"rename the file to {meta.name}{ITEM_SUFFIX} or change the name",
                document.line_of(["name"]) if document else None,
                "warning",
            )
        )
    if not parts.body.strip():
        problems.append(
            Problem(path, f"the {kind} has no text", "write its text below the header", severity="warning")
        )
    return DocumentItem(
        kind=kind,
        name=name,
        description=meta.description,
        priority_level=meta.priority_level,
        include=meta.include,
        text=parts.body,
        path=path,
    )


def _read_text(path: Path, problems: list[Problem]) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        problems.append(
            Problem(path, f"not UTF-8 text (byte {error.start})", "save the file as UTF-8 in your editor")
        )
    except OSError as error:
        problems.append(
            Problem(
                path, f"cannot read the file: {error.strerror}", "check that it exists and you may read it"
            )
        )
    return None


def _check_secret_references(agent: Agent) -> None:
    path = agent.root / AGENT_FILE
    for provider_id, provider in agent.config.providers.items():
        if provider.api_key and (variable := env_var_name(provider.api_key)) and not os.environ.get(variable):
            agent.problems.append(
                Problem(
                    path,
                    f"providers.{provider_id}.apiKey refers to ${variable}, which is not set",
                    f"set {variable} in your environment before starting ContextDesk",
                    severity="warning",
                )
            )
