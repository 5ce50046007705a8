"""The base of every model read from an agent file: camelCase keys on disk, unknown keys are errors."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = ["FileModel"]


class FileModel(BaseModel):
    """Base of every model read from an agent file."""

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=to_camel,
        populate_by_name=True,
        validate_assignment=True,
        str_strip_whitespace=False,
    )
