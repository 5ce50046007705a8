"""Settings of the app itself (not of an agent), in ``settings.json`` in the user's config folder.

    {"indexer": {"threads": 2}}
    {"indexer": {"backend": "sentence-transformers", "model": "/path/to/a/sentence-transformers/model"}}

``indexer.backend`` is a name in the embedding-backend plug-in registry
(:mod:`agent_core.embedding_backends`): a built-in or one a plug-in installs.

A missing file means the defaults. A file that cannot be used is reported with its fix, and the
defaults are used meanwhile; it is never rewritten or deleted.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from agent_core.agent._yaml_source import describe_validation_error, validation_errors
from agent_core.embedding_backends import EMBEDDING_BACKENDS
from agent_core.errors import ContextDeskError
from agent_core.paths import user_dirs
from agent_core.plugins import PluginError

__all__ = ["THREADS_ENV", "AppSettings", "IndexerSettings", "SettingsError", "load_app_settings"]

THREADS_ENV = "CONTEXTDESK_INDEXER_THREADS"


class SettingsError(ContextDeskError):
    """settings.json cannot be used; the message names the file and the fix."""


class IndexerSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    backend: str = Field(
        default="onnx",
        description="onnx: the bundled MiniLM, no torch; sentence-transformers: extra [st]; or a plug-in's",
    )
    model: str | None = Field(default=None, description="sentence-transformers: a local model folder")
    threads: int | None = Field(default=None, ge=1, le=256, description="cores for embedding; None: all")

    @field_validator("backend")
    @classmethod
    def _registered_backend(cls, name: str) -> str:
        try:
            EMBEDDING_BACKENDS.get(name)
        except PluginError as error:
            raise PydanticCustomError("unknown_embedding_backend", str(error)) from error
        return name


class AppSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    indexer: IndexerSettings = Field(default_factory=IndexerSettings)


def load_app_settings(path: Path | None = None) -> AppSettings:
    """The settings in ``path`` (default: settings.json in the config folder), with
    ``CONTEXTDESK_INDEXER_THREADS`` overriding ``indexer.threads``.

    Raises:
        SettingsError: the file is not JSON, has unknown keys or bad values, or the variable is not
            a positive number.
    """
    path = path or user_dirs().settings_file
    settings = AppSettings()
    if path.is_file():
        try:
            settings = AppSettings.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError) as error:
            raise SettingsError(f"{path} cannot be read ({error}): check its permissions") from error
        except json.JSONDecodeError as error:
            raise SettingsError(
                f"{path} is not valid JSON (line {error.lineno}: {error.msg}): fix it, or delete it to use "
                "the defaults"
            ) from error
        except ValidationError as error:
            message, fix = describe_validation_error(validation_errors(error)[0], AppSettings)
            raise SettingsError(
                f"{path}: {message}: {fix} (or delete the file to use the defaults)"
            ) from error
    threads = os.environ.get(THREADS_ENV, "").strip()
    if threads:
        if not threads.isdigit() or int(threads) < 1:
            raise SettingsError(f"{THREADS_ENV}={threads!r}: set a whole number of cores, 1 or more")
        settings = settings.model_copy(
            update={"indexer": settings.indexer.model_copy(update={"threads": int(threads)})}
        )
    return settings
