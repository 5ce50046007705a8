"""The exception root of the indexer. Every message says what went wrong and how to fix it."""

from __future__ import annotations

__all__ = [
    "BackendUnavailableError",
    "EmbeddingError",
    "IndexerError",
    "ModelLoadError",
]


class IndexerError(Exception):
    """Root of every error the indexer raises on purpose."""


class BackendUnavailableError(IndexerError):
    """A backend's optional dependency is not installed."""


class ModelLoadError(IndexerError):
    """The embedding model or its tokenizer could not be found or loaded."""


class EmbeddingError(IndexerError):
    """The model failed while embedding text."""
