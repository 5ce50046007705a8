"""What changed between two versions of an agent's settings, as edits of single keys in agent.yaml.

A save applies only these edits to the file, so every key the user did not change (including
unknown keys, misspelt keys and values the schema rejects) stays exactly as written.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

from pydantic import BaseModel

from agent_core.agent._yaml_edit import KeyStep

__all__ = ["SettingEdit", "setting_edits", "written_value"]


@dataclass(frozen=True)
class SettingEdit:
    """Set (or, with ``delete``, remove) the key at ``path``."""

    path: tuple[KeyStep, ...]
    value: Any = None
    delete: bool = False


def setting_edits(old: BaseModel, new: BaseModel, *, field_names_allowed: bool = False) -> list[SettingEdit]:
    """The edits that turn a file holding ``old`` into one holding ``new``.

    ``field_names_allowed``: the file may spell keys in snake_case too (pydantic sections accept
    both); agent.yaml's top level is read by alias only.
    """
    return list(_model_edits(old, new, (), field_names_allowed=field_names_allowed))


def _model_edits(
    old: BaseModel, new: BaseModel, prefix: tuple[KeyStep, ...], *, field_names_allowed: bool
) -> Iterator[SettingEdit]:
    for name, info in type(new).model_fields.items():
        old_value, new_value = getattr(old, name), getattr(new, name)
        if old_value == new_value:
            continue
        alias = info.alias or name
        step: KeyStep = (alias, name) if field_names_allowed and alias != name else alias
        if name in old.model_fields_set and name not in new.model_fields_set:
            # Back to its default (a form's field left empty): the key goes, rather than `key: null`.
            yield SettingEdit((*prefix, step), delete=True)
            continue
        yield from _value_edits(old_value, new_value, (*prefix, step))


def _value_edits(old: Any, new: Any, path: tuple[KeyStep, ...]) -> Iterator[SettingEdit]:
    if isinstance(old, BaseModel) and type(old) is type(new):
        yield from _model_edits(old, new, path, field_names_allowed=True)
    elif isinstance(old, dict) and isinstance(new, dict):
        for key in old:
            if key not in new:
                yield SettingEdit((*path, key), delete=True)
        for key, value in new.items():
            if key not in old:
                yield SettingEdit((*path, key), written_value(value))
            elif old[key] != value:
                yield from _value_edits(old[key], value, (*path, key))
    else:
        yield SettingEdit(path, written_value(new))


def written_value(value: Any) -> Any:
    """``value`` as it is written in a file: models by their camelCase keys, only what was set."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
    if isinstance(value, dict):
        return {str(key): written_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [written_value(item) for item in value]
    if isinstance(value, Enum):
        return value.value
    return value
