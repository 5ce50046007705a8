"""Saving agents: written atomically, changing only what the user changed.

An existing agent.yaml or item header is edited key by key (see ``_yaml_edit``): comments, key
order, quoting, unknown keys and values the schema rejects stay as the user wrote them. A file the
loader could not read (a YAML error, not UTF-8, not a mapping) is never written over: the save is
refused with the file and line of the problem. New files are written whole, readably.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from agent_core.agent._frontmatter import FrontmatterError, join_frontmatter, split_frontmatter, split_raw
from agent_core.agent._text_file import outside_problem
from agent_core.agent._yaml_edit import EditableYaml, read_text_for_edit, refuse
from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.config_diff import setting_edits
from agent_core.agent.config_loader import load_config
from agent_core.agent.document_loader import ITEM_SUFFIX
from agent_core.agent.items import FOLDER_OF_KIND, DocumentItem, DocumentKind
from agent_core.agent.names import name_problem
from agent_core.agent.schema import AgentConfig, ItemFrontmatter
from agent_core.atomic import atomic_write_text
from agent_core.errors import AgentFileError

__all__ = [
    "check_agent_file_saveable",
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
    """Write ``agent.config`` to ``agent.yaml``, changing only the keys that differ from the file.

    Raises:
        AgentFileError: agent.yaml exists but the loader could not read it; it is left untouched.
        AtomicWriteError: the file could not be written; the old one is unchanged.
    """
    path = agent.root / AGENT_FILE
    if not path.exists():
        atomic_write_text(
            path, render_agent_config(agent.config, agent.unparsed_providers, agent.unparsed_servers)
        )
    else:
        _refuse_outside(path, agent.root)
        document = EditableYaml(read_text_for_edit(path), path)
        before = agent.saved_config or load_config(path, []).config
        for edit in setting_edits(before, agent.config):
            if edit.delete:
                document.delete(edit.path)
            else:
                document.set(edit.path, edit.value)
        # Blocks that failed validation are written only when they are new or differ from the file.
        for section, blocks in (
            ("providers", agent.unparsed_providers),
            ("mcpServers", agent.unparsed_servers),
        ):
            on_disk = document.data.get(section)
            for name, block in blocks.items():
                if not isinstance(on_disk, dict) or on_disk.get(name) != block:
                    document.set([section, name], block)
        if document.changed:
            atomic_write_text(path, document.render())
    agent.saved_config = agent.config.model_copy(deep=True)


def check_agent_file_saveable(root: Path) -> None:
    """Refuse early, before anything is written, when ``root``'s agent.yaml could not be saved over.

    Raises:
        AgentFileError: agent.yaml exists but is not valid UTF-8 YAML holding a mapping.
    """
    path = root / AGENT_FILE
    if path.exists():
        _refuse_outside(path, root)
        EditableYaml(read_text_for_edit(path), path)


def _refuse_outside(path: Path, root: Path) -> None:
    if escape := outside_problem(path, root):
        raise refuse(path, None, f"{escape.message}. Fix: {escape.fix}")


def document_path(root: Path, kind: DocumentKind, name: str) -> Path:
    return root / FOLDER_OF_KIND[kind] / f"{name}{ITEM_SUFFIX}"


def render_document(item: DocumentItem) -> str:
    """The whole text of a new rule or reference file."""
    header = ItemFrontmatter(
        name=item.name,
        description=item.description,
        priority_level=item.priority_level,
        include=item.include,
        examples=list(item.examples),
        globs=list(item.globs),
    ).model_dump(mode="json", by_alias=True)
    for optional in ("examples", "globs"):
        if not header[optional]:
            del header[optional]
    return join_frontmatter(dump_yaml(header), item.text)


def save_document(root: Path, item: DocumentItem, *, based_on: str | None = None) -> DocumentItem:
    """Write a rule or reference to its file and return it with its path.

    An existing file keeps every byte of its header and body that the item does not change.
    ``based_on``: the name the item had before a rename; that file's text is the starting point.

    Raises:
        AgentFileError: the name cannot be a file name, or the existing file could not be read
            by the loader (it is left untouched).
        AtomicWriteError: the file could not be written; the old one is unchanged.
    """
    if problem := name_problem(item.name):
        raise AgentFileError(f"cannot save {item.kind}: {problem}")
    path = document_path(root, item.kind, item.name)
    source = path
    if not path.exists() and based_on:
        source = document_path(root, item.kind, based_on)
    if source.exists():
        original = read_text_for_edit(source)
        text = edit_document_text(original, item, source)
        if text != original or source != path:
            atomic_write_text(path, text)
    else:
        atomic_write_text(path, render_document(item))
    return DocumentItem(
        kind=item.kind,
        name=item.name,
        description=item.description,
        priority_level=item.priority_level,
        include=item.include,
        text=item.text,
        path=path,
        examples=item.examples,
        globs=item.globs,
    )


def edit_document_text(original: str, item: DocumentItem, path: Path) -> str:
    """``original`` (a rule or reference file) with the item's header fields and text applied.

    Raises:
        AgentFileError: the header is not closed, not valid YAML or not a mapping.
    """
    bom = "\ufeff" if original.startswith("\ufeff") else ""
    text = original.removeprefix(bom)
    try:
        parts = split_raw(text)
    except FrontmatterError as error:
        raise refuse(path, 1, str(error)) from error
    newline = "\r\n" if "\r\n" in text else "\n"
    wanted: dict[tuple[str, str], Any] = {
        ("name", "name"): item.name,
        ("description", "description"): item.description,
        ("priorityLevel", "priority_level"): item.priority_level,
        ("include", "include"): item.include.value,
        ("examples", "examples"): list(item.examples),
        ("globs", "globs"): list(item.globs),
    }
    defaults = ItemFrontmatter().model_dump(mode="json", by_alias=True)
    header = EditableYaml(parts.header, path, first_line=2)
    for spellings, value in wanted.items():
        key = next((k for k in spellings if k in header.data), None)
        if key is not None and header.data[key] != value:
            header.set([spellings], value)
        elif key is None and spellings[0] != "name" and value != defaults[spellings[0]]:
            # An absent key means its default (and an absent name, the file name): add real changes only.
            header.set([spellings], value)
    rest = parts.rest
    if item.text.rstrip("\n") != split_frontmatter(text).body.rstrip("\n"):
        body = item.text if item.text.endswith("\n") or not item.text else item.text + "\n"
        leading = newline if parts.opening and rest.startswith(("\n", "\r\n")) else ""
        rest = leading + body.replace("\n", newline)
    if not parts.opening:
        if not header.changed:
            return bom + rest
        new_header = header.render().replace("\r\n", "\n").replace("\n", newline)
        fence = f"---{newline}"
        return f"{bom}{fence}{new_header}{fence}{newline}{rest}"
    return bom + parts.opening + header.render() + parts.closing + rest


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
