"""Saving agents: readable YAML and markdown, written atomically, never losing what was there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent_core.agent._frontmatter import join_frontmatter
from agent_core.agent.items import FOLDER_OF_KIND, DocumentItem, DocumentKind
from agent_core.agent.loader import AGENT_FILE, ITEM_SUFFIX, Agent
from agent_core.agent.names import name_problem
from agent_core.agent.schema import AgentConfig, ItemFrontmatter
from agent_core.atomic import atomic_write_text
from agent_core.errors import AgentFileError

__all__ = [
    "delete_document",
    "document_path",
    "dump_yaml",
    "render_agent_config",
    "render_document",
    "save_agent_config",
    "save_document",
]


class _ReadableDumper(yaml.SafeDumper):
    """Multi-line text as ``|`` blocks, so prompts and bodies stay readable and diffable."""


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_ReadableDumper.add_representer(str, _represent_str)


def dump_yaml(data: Any) -> str:
    return yaml.dump(
        data, Dumper=_ReadableDumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=100
    )


def render_agent_config(
    config: AgentConfig,
    unparsed_providers: dict[str, Any] | None = None,
    unparsed_servers: dict[str, Any] | None = None,
) -> str:
    """agent.yaml text: what the user set, plus any blocks that failed to load, unchanged."""
    data = config.model_dump(mode="json", by_alias=True, exclude_unset=True)
    data["name"] = config.name
    if unparsed_providers:
        data["providers"] = {**data.get("providers", {}), **unparsed_providers}
    if unparsed_servers:
        data["mcpServers"] = {**data.get("mcpServers", {}), **unparsed_servers}
    return dump_yaml(data)


def save_agent_config(agent: Agent) -> None:
    """Write ``agent.yaml`` from ``agent.config``.

    Raises:
        AtomicWriteError: the file could not be written; the old one is unchanged.
    """
    text = render_agent_config(agent.config, agent.unparsed_providers, agent.unparsed_servers)
    atomic_write_text(agent.root / AGENT_FILE, text)


def document_path(root: Path, kind: DocumentKind, name: str) -> Path:
    return root / FOLDER_OF_KIND[kind] / f"{name}{ITEM_SUFFIX}"


def render_document(item: DocumentItem) -> str:
    header = ItemFrontmatter(
        name=item.name,
        description=item.description,
        priority_level=item.priority_level,
        include=item.include,
    ).model_dump(mode="json", by_alias=True)
    return join_frontmatter(dump_yaml(header), item.text)


def save_document(root: Path, item: DocumentItem) -> DocumentItem:
    """Write a rule or reference to its file and return it with its path.

    Raises:
        AgentFileError: the name cannot be a file name.
        AtomicWriteError: the file could not be written; the old one is unchanged.
    """
    if problem := name_problem(item.name):
        raise AgentFileError(f"cannot save {item.kind}: {problem}")
    path = document_path(root, item.kind, item.name)
    atomic_write_text(path, render_document(item))
    return DocumentItem(
        kind=item.kind,
        name=item.name,
        description=item.description,
        priority_level=item.priority_level,
        include=item.include,
        text=item.text,
        path=path,
    )


def delete_document(root: Path, kind: DocumentKind, name: str) -> None:
    """Remove a rule or reference file; a missing file is not an error.

    Raises:
        AgentFileError: the file exists but cannot be removed.
    """
    path = document_path(root, kind, name)
    try:
        path.unlink(missing_ok=True)
    except OSError as error:
        raise AgentFileError(
            f"could not delete {path} ({error.strerror}): check its permissions and try again"
        ) from error
