"""Probe results kept per ``provider:model`` in the app's data folder, so a model is asked the
probe questions once a week at most rather than before every run.

Only real answers are kept: an *unknown* result (the probe got no answer) is asked again next
time. A damaged or foreign file counts as empty and is replaced on the next write.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_core.atomic import AtomicWriteError, atomic_write_text
from agent_core.paths import user_dirs
from agent_core.providers.base import Provider
from agent_core.providers.capability import ModelCapability, known_capability, probe_capability

__all__ = ["CAPABILITY_MAX_AGE_S", "CapabilityCache", "cached_capability", "model_capability"]

logger = logging.getLogger(__name__)

#: A probe result is trusted this long: a provider may change what a model name serves
#: (``latest`` aliases), and re-asking two tiny questions weekly costs next to nothing.
CAPABILITY_MAX_AGE_S = 7 * 24 * 3600.0
#: The file is read only up to this size; a bigger one is not ours and counts as empty.
MAX_CACHE_BYTES = 1_000_000
FILE_NAME = "model_capabilities.json"


class _Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool_choice: bool
    json_schema: bool
    checked_at: float
    note: str = ""


class _File(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: int = 1
    models: dict[str, _Entry] = {}


class CapabilityCache:
    """Probe results by ``provider:model``, in ``path`` (the data folder's file by default)."""

    def __init__(self, path: Path | None = None, *, now: Callable[[], float] = time.time) -> None:
        self.path = path or user_dirs().data / FILE_NAME
        self.now = now
        self._lock = threading.Lock()

    def get(self, model_ref: str) -> ModelCapability | None:
        """The result stored for ``model_ref`` if it is younger than ``CAPABILITY_MAX_AGE_S``."""
        with self._lock:
            entry = self._read().models.get(model_ref)
        if entry is None or self.now() - entry.checked_at > CAPABILITY_MAX_AGE_S:
            return None
        return ModelCapability(
            model=model_ref,
            tool_choice=entry.tool_choice,
            json_schema=entry.json_schema,
            source="probed",
            checked_at=entry.checked_at,
            note=entry.note,
        )

    def put(self, capability: ModelCapability) -> None:
        """Keep a probed result (anything else is not kept); a failed write is logged, not raised:
        the probe simply runs again next time."""
        if capability.source != "probed" or capability.tool_choice is None or capability.json_schema is None:
            return
        with self._lock:
            stored = self._read()
            now = self.now()
            models = {
                ref: entry
                for ref, entry in stored.models.items()
                if now - entry.checked_at <= CAPABILITY_MAX_AGE_S
            }
            models[capability.model] = _Entry(
                tool_choice=capability.tool_choice,
                json_schema=capability.json_schema,
                checked_at=capability.checked_at,
                note=capability.note,
            )
            try:
                atomic_write_text(self.path, _File(models=models).model_dump_json(indent=2))
            except AtomicWriteError as error:
                logger.warning("could not keep the model check of %s: %s", capability.model, error)

    def _read(self) -> _File:
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(MAX_CACHE_BYTES + 1)
        except FileNotFoundError:
            return _File()
        except OSError as error:
            logger.warning("could not read %s (%s); models are checked again", self.path, error)
            return _File()
        if len(raw) > MAX_CACHE_BYTES:
            logger.warning("%s is larger than %d bytes; models are checked again", self.path, MAX_CACHE_BYTES)
            return _File()
        try:
            return _File.model_validate(json.loads(raw.decode("utf-8")))
        except (ValueError, ValidationError) as error:
            logger.warning("%s is damaged (%s); models are checked again", self.path, error)
            return _File()


def cached_capability(
    provider: Provider, model_id: str, model_ref: str, cache: CapabilityCache
) -> ModelCapability:
    """What is known now without asking the model: known, kept from an earlier probe, or unknown."""
    known = known_capability(provider, model_id, model_ref)
    if known is not None:
        return known
    kept = cache.get(model_ref)
    if kept is not None:
        return kept
    return ModelCapability(model_ref, None, None, "unknown", note="not checked yet")


async def model_capability(
    provider: Provider, model_id: str, model_ref: str, cache: CapabilityCache
) -> ModelCapability:
    """What ``model_ref`` can do: known, kept from an earlier probe, or probed now (and kept)."""
    now = cached_capability(provider, model_id, model_ref, cache)
    if now.source != "unknown":
        return now
    probed = await probe_capability(provider, model_id, model_ref, now=cache.now)
    cache.put(probed)
    return probed
