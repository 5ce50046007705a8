"""The embedding backend the user configured (settings.json), built in the indexer's loading thread.

Kept free of heavy imports: ``contextdesk select`` creates its indexer before importing the rest,
so that the model loads while pydantic and the agent schema are imported.
"""

from __future__ import annotations

import logging
from pathlib import Path

from indexer import EmbeddingBackend, Indexer

__all__ = ["configured_backend", "configured_indexer"]

logger = logging.getLogger(__name__)


def configured_backend() -> EmbeddingBackend:
    """The backend of settings.json's ``indexer`` section; the defaults if the file cannot be used.

    Raises:
        IndexerError: the backend cannot be created or its model cannot be loaded.
        PluginError: the backend's plug-in failed to load (logged when it did).
    """
    from agent_core.app_settings import IndexerSettings, SettingsError, load_app_settings
    from agent_core.embedding_backends import EmbeddingOptions, create_embedding_backend

    try:
        settings = load_app_settings().indexer
    except SettingsError as error:
        logger.warning("%s. Using the default embedding settings meanwhile.", error)
        settings = IndexerSettings()
    return create_embedding_backend(settings.backend, EmbeddingOptions(settings.model, settings.threads))


def configured_indexer(cache_dir: Path | None) -> Indexer:
    """An indexer (nothing loaded yet) whose model is the configured one."""
    return Indexer(configured_backend, cache_dir=cache_dir)
