"""Dotted keys into agent.yaml (``selection.topN``, ``mcpServers.time.enabled``), as ``git config`` has.

Keys are spelt as on disk (camelCase). A key is resolved against the schema, so a typo is told
apart from a key that is simply not set, and a value is checked before anything is written.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
import yaml
from pydantic import BaseModel, TypeAdapter, ValidationError
from pydantic.fields import FieldInfo

from agent_core.agent._yaml_edit import EditableYaml, KeyStep, read_text_for_edit
from agent_core.agent._yaml_source import close_match
from agent_core.agent.config_diff import written_value
from agent_core.agent.config_loader import normalize_server_block
from agent_core.agent.schema import SERVER_MODELS, AgentConfig, McpServerConfig
from agent_core.atomic import atomic_write_text
from agent_core.errors import AgentFileError

__all__ = [
    "MISSING",
    "InvalidSettingError",
    "SettingKey",
    "SettingValue",
    "read_setting",
    "resolve_setting_key",
    "value_at",
    "write_setting",
    "write_settings",
]

MISSING: Any = object()  # a key with no value in the file (and, for get, no default either)


class InvalidSettingError(AgentFileError):
    """A value the schema rejects for a key; ``reason`` says why and what is valid."""

    def __init__(self, reason: str, outcome: str) -> None:
        super().__init__(f"{reason}; {outcome}")
        self.reason = reason


@dataclass(frozen=True)
class SettingKey:
    """A dotted key checked against the schema."""

    text: str
    path: tuple[KeyStep, ...]  # the steps in agent.yaml; a step may have two spellings
    field: FieldInfo | None  # the schema field at the end, when it is one
    value_type: Any  # what a value must be (a type or annotation)
    default: Any = MISSING

    def check(self, value: Any, raw: str | None = None) -> Any:
        """``value`` when the schema accepts it here (or ``raw`` as text, when text is what fits).

        Raises:
            InvalidSettingError: the value is not valid for this key; the message gives the valid ones.
        """
        constraints = self.field.metadata if self.field is not None else []
        value_type: Any = Annotated[self.value_type, *constraints] if constraints else self.value_type
        adapter: TypeAdapter[Any] = TypeAdapter(value_type)
        candidates = [value] if raw is None or raw == value else [value, raw]
        first_error: ValidationError | None = None
        for candidate in candidates:
            try:
                adapter.validate_python(_prepared(self, candidate))
                return candidate
            except ValidationError as error:
                first_error = first_error or error
        assert first_error is not None
        reason = first_error.errors(include_url=False)[0]["msg"]
        raise InvalidSettingError(
            f"{self.text}: {value!r} is not valid ({reason}). Valid: {describe_valid(self)}",
            "agent.yaml was not changed",
        )


def _prepared(key: SettingKey, value: Any) -> Any:
    if key.value_type is McpServerConfig:
        return normalize_server_block(value)
    return value


def resolve_setting_key(text: str, data: dict[str, Any]) -> SettingKey:
    """Check ``text`` against the schema; ``data`` is agent.yaml as read (for server types).

    Raises:
        AgentFileError: the key is not one agent.yaml can hold; the message lists the known keys.
    """
    parts = text.split(".")
    if not all(parts):
        raise AgentFileError(
            f"'{text}' is not a key: write it like selection.topN or mcpServers.time.enabled"
        )
    model: type[BaseModel] = AgentConfig
    path: list[KeyStep] = []
    node: Any = data
    index = 0
    while True:
        part = parts[index]
        top_level = model is AgentConfig
        found = _field(model, part, by_name=not top_level)
        if found is None:
            known = [info.alias or name for name, info in model.model_fields.items()]
            where = ".".join(parts[:index]) or "the top level"
            suggestion = close_match(part, known)
            hint = f"did you mean '{suggestion}'? " if suggestion else ""
            raise AgentFileError(
                f"unknown key '{'.'.join(parts[: index + 1])}': {hint}known keys at {where}: {', '.join(known)}"
            )
        name, info = found
        alias = info.alias or name
        step: KeyStep = alias if top_level or alias == name else (alias, name)
        path.append(step)
        node = _child(node, step)
        index += 1
        annotation = info.annotation
        if index == len(parts):
            return SettingKey(text, tuple(path), info, annotation, _default(info))
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            model = annotation
            continue
        if get_origin(annotation) is not dict:
            raise AgentFileError(
                f"'{'.'.join(parts[:index])}' is a single value; it has no key '{parts[index]}'"
            )
        item_type = get_args(annotation)[1]
        entry = parts[index]
        path.append(entry)
        node = _child(node, entry)
        index += 1
        if index == len(parts):
            return SettingKey(text, tuple(path), None, item_type)
        if item_type is McpServerConfig:
            if not isinstance(node, dict):
                raise AgentFileError(
                    f"there is no MCP server '{entry}' in agent.yaml: add it whole, e.g. "
                    f"`contextdesk agent set DIR mcpServers.{entry} '{{command: uvx, args: [mcp-server-time]}}'`"
                )
            kind = str(normalize_server_block(node).get("type"))
            if kind not in SERVER_MODELS:
                raise AgentFileError(
                    f"MCP server '{entry}' has type '{kind}': set mcpServers.{entry}.type to one of "
                    f"{', '.join(SERVER_MODELS)} first"
                )
            model = SERVER_MODELS[kind]
        elif isinstance(item_type, type) and issubclass(item_type, BaseModel):
            model = item_type
        else:
            raise AgentFileError(
                f"'{'.'.join(parts[:index])}' is a single value; it has no key '{parts[index]}'"
            )


def value_at(data: Any, path: tuple[KeyStep, ...]) -> Any:
    """The value at ``path`` in agent.yaml's data, or MISSING."""
    node = data
    for step in path:
        node = _child(node, step)
        if node is MISSING:
            return MISSING
    return node


def describe_valid(key: SettingKey) -> str:
    """The values a key takes, in words: ``an integer from 0 to 100``."""
    words = _type_words(key.value_type)
    if key.field is not None:
        bounds = []
        for item in key.field.metadata:
            for attribute, word in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
                if isinstance(item, getattr(annotated_types, attribute.capitalize())):
                    bounds.append(f"{word} {getattr(item, attribute)}")
            pattern = getattr(item, "pattern", None)
            if pattern:
                bounds.append(f"matching {pattern}")
        if bounds:
            words += " " + " and ".join(bounds)
        if key.field.description:
            words += f" ({key.field.description})"
    return words


def _type_words(annotation: Any) -> str:
    origin = get_origin(annotation)
    if origin is Literal:
        return "one of " + ", ".join(str(arg) for arg in get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return "one of " + ", ".join(str(member.value) for member in annotation)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_words(arg) for arg in get_args(annotation))
    if annotation is McpServerConfig:
        return "an MCP server block (command: ... for a local server, url: ... for a remote one)"
    names = {bool: "true or false", int: "an integer", float: "a number", str: "text", type(None): "null"}
    if annotation in names:
        return names[annotation]
    if origin is dict:
        return "a mapping"
    if origin is list:
        return "a list"
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "a mapping of " + ", ".join(
            info.alias or name for name, info in annotation.model_fields.items()
        )
    return str(annotation)


def _field(model: type[BaseModel], part: str, *, by_name: bool) -> tuple[str, FieldInfo] | None:
    for name, info in model.model_fields.items():
        if part == (info.alias or name) or (by_name and part == name):
            return name, info
    return None


def _default(info: FieldInfo) -> Any:
    if info.default_factory is not None:
        return info.default_factory()  # type: ignore[call-arg]
    if info.is_required():
        return MISSING
    return info.default


def _child(node: Any, step: KeyStep) -> Any:
    if not isinstance(node, dict):
        return MISSING
    for spelling in (step,) if isinstance(step, str) else step:
        if spelling in node:
            return node[spelling]
    return MISSING


@dataclass(frozen=True)
class SettingValue:
    """What ``read_setting`` found: the value, and a note for the user when it needs one."""

    value: Any
    note: str = ""


def read_setting(agent_file: Path, text: str) -> SettingValue:
    """The value of the dotted key ``text`` in ``agent_file``: as written, or the default when unset.

    Raises:
        AgentFileError: the file cannot be read, or the key is neither in the file nor in the schema.
    """
    data = EditableYaml(read_text_for_edit(agent_file), agent_file).data
    try:
        key = resolve_setting_key(text, data)
    except AgentFileError:
        # A key the schema does not know may still be in the file (a typo the user wants to see).
        value = value_at(data, tuple(text.split(".")))
        if value is MISSING:
            raise
        return SettingValue(value, f"'{text}' is not a known key; see `contextdesk agent check`")
    value = value_at(data, key.path)
    if value is MISSING:
        if key.default is MISSING:
            raise AgentFileError(f"'{text}' is not set in {agent_file}")
        return SettingValue(
            written_value(key.default), f"'{text}' is not set in {agent_file}; this is the default"
        )
    try:
        key.check(value)
    except InvalidSettingError as error:
        return SettingValue(value, f"{error.reason}; the default is used until it is fixed")
    return SettingValue(value)


def write_setting(agent_file: Path, text: str, raw_value: str) -> bool:
    """Set the dotted key ``text`` to ``raw_value`` (read as YAML), changing only that key's line.

    Returns whether the file changed.

    Raises:
        AgentFileError: the file cannot be read, the key is unknown or the value invalid; the
            file is then left byte for byte as it was.
        AtomicWriteError: the file could not be written; it is unchanged.
    """
    return write_settings(agent_file, [(text, raw_value)])


def write_settings(agent_file: Path, settings: Sequence[tuple[str, str]]) -> bool:
    """Set several dotted keys at once, as ``write_setting`` sets one: every value is checked
    before the file is written once, so either all change or none does."""
    document = EditableYaml(read_text_for_edit(agent_file), agent_file)
    for text, raw_value in settings:
        key = resolve_setting_key(text, document.data)
        try:
            value = yaml.safe_load(raw_value)
        except yaml.YAMLError:
            value = raw_value
        document.set(key.path, key.check(value, raw=raw_value))
    if not document.changed:
        return False
    atomic_write_text(agent_file, document.render())
    return True
