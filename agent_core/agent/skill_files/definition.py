"""A skill as loaded, and what its ``SKILL.md`` header may hold (the Agent Skills format).

The header is the standard's (``name``, ``description``, ``license``, ``compatibility``,
``metadata``, ``allowed-tools``); tools add keys of their own (Claude Code's ``model``,
``argument-hint``...), which are kept in the file and ignored here. ContextDesk's own choices for a
skill (include mode, enabled, priority) live in agent.yaml, so the folder stays byte for byte as
the user's other tools write it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agent_core.agent.schema import IncludeMode

__all__ = [
    "KEPT_DESCRIPTION_CHARS",
    "MAX_DESCRIPTION_CHARS",
    "MAX_NAME_CHARS",
    "SKILL_FILE",
    "Skill",
    "SkillFrontmatter",
    "outside_skill_folder",
    "spec_name_problem",
]

SKILL_FILE = "SKILL.md"
MAX_NAME_CHARS = 64  # the standard's limits; longer ones are read, with a warning
MAX_DESCRIPTION_CHARS = 1024
#: Past this a description is cut (with a warning): it goes into every request's skill catalogue
#: and is embedded for selection, and an imported skill is not trusted to keep it short (an
#: 870 KB one made a first selection take half a minute).
KEPT_DESCRIPTION_CHARS = 4 * MAX_DESCRIPTION_CHARS
_SPEC_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def spec_name_problem(name: str) -> str | None:
    """Why the Agent Skills standard does not allow ``name``, or None when it does."""
    if len(name) > MAX_NAME_CHARS:
        return f"'{name}' is longer than the standard's {MAX_NAME_CHARS} characters"
    if not _SPEC_NAME.match(name):
        return (
            f"'{name}' is not a skill name the standard allows: lower-case letters, digits and single "
            "hyphens, not starting or ending with a hyphen"
        )
    return None


def outside_skill_folder(path: Path, real_folder: Path) -> str | None:
    """Why the model may not be handed ``path`` of the skill whose folder really is ``real_folder``
    (it leads out of it through a link, or is a link loop), or None when it may. The one rule for
    both the files ``skills.load`` lists and those ``skills.read`` serves."""
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as error:  # a link loop
        return f"cannot be followed ({error})"
    if real.is_relative_to(real_folder):
        return None
    return (
        "leads out of the skill's folder (a link), so it is not read: a skill may only hand the "
        "model its own files"
    )


class SkillFrontmatter(BaseModel):
    """The header of a SKILL.md. Unknown keys are other tools' and are ignored."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    name: str | None = None
    description: str = ""
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    allowed_tools: list[str] = Field(default_factory=list, alias="allowed-tools")

    @field_validator("name", "description", "license", "compatibility", mode="before")
    @classmethod
    def _text(cls, value: object) -> object:
        # YAML reads `name: 2048` or `description: yes` as a number or a boolean: the words meant.
        if isinstance(value, bool | int | float):
            return str(value).lower() if isinstance(value, bool) else str(value)
        return value

    @field_validator("allowed_tools", mode="before")
    @classmethod
    def _tool_list(cls, value: object) -> object:
        # The standard writes a space-separated string; Claude Code also takes a YAML list or commas.
        if value is None:
            return []
        if isinstance(value, str):
            return [part for part in re.split(r"[\s,]+", value) if part]
        return value

    @field_validator("metadata", mode="before")
    @classmethod
    def _no_metadata(cls, value: object) -> object:
        return {} if value is None else value


@dataclass(frozen=True)
class Skill:
    """One skill: its folder's name, what its SKILL.md says, and the agent's settings for it."""

    name: str  # its folder's name, which is how ContextDesk and agent.yaml name it
    description: str
    body: str  # the SKILL.md after its header: the instructions the model reads on demand
    path: Path | None = field(default=None, compare=False)  # the SKILL.md
    # Characters of the SKILL.md before the body, as ``skills.read`` counts them (its offsets).
    body_offset: int = field(default=0, compare=False)
    display_name: str = ""  # the header's name, where it differs from the folder's name
    license: str = ""
    compatibility: str = ""
    allowed_tools: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False)
    # The skill's other files, relative to its folder with '/' (scripts/x.py, references/y.md).
    files: tuple[str, ...] = ()
    include: IncludeMode = IncludeMode.AGENT
    enabled: bool = True
    priority_level: int = 500

    @property
    def folder(self) -> Path | None:
        return None if self.path is None else self.path.parent

    @property
    def title(self) -> str:
        """How the user knows it: the header's name when it has one of its own."""
        return self.display_name or self.name

    @property
    def scripts(self) -> tuple[str, ...]:
        return tuple(name for name in self.files if name.startswith("scripts/"))

    def catalogue_line(self) -> str:
        """The skill as a catalogue shows it to a model: name, description, where it lives."""
        where = f" (skills/{self.name}/{SKILL_FILE})"
        return f"{self.name}: {' '.join(self.description.split())}{where}"
