"""Embedding backends by name, in the ``embedding_backends`` plug-in registry.

settings.json's ``indexer.backend`` names one; the indexer itself only receives the backend built
here. A plug-in (entry-point group ``contextdesk.embedding_backends``) exposes
``register_embedding_backends(register)`` and calls ``register("my-model", factory)``, where
``factory(options)`` returns a loaded :class:`indexer.EmbeddingBackend`; the built-ins below do the same.
Nothing heavy is imported until a backend is created.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_core.plugins import PluginRegistry, Register

if TYPE_CHECKING:
    from indexer import EmbeddingBackend

__all__ = [
    "EMBEDDING_BACKENDS",
    "EmbeddingBackendFactory",
    "EmbeddingOptions",
    "create_embedding_backend",
    "register_embedding_backends",
]


@dataclass(frozen=True)
class EmbeddingOptions:
    """What settings.json's ``indexer`` section tells a backend; a backend ignores what it has no use for."""

    model: str | None = None  # a local model folder
    threads: int | None = None  # cores for embedding; None: all


EmbeddingBackendFactory = Callable[[EmbeddingOptions], "EmbeddingBackend"]

EMBEDDING_BACKENDS: PluginRegistry[EmbeddingBackendFactory] = PluginRegistry(
    "embedding_backends",
    noun="embedding backend",
    builtins=("agent_core.embedding_backends:register_embedding_backends",),
)


def create_embedding_backend(name: str, options: EmbeddingOptions) -> EmbeddingBackend:
    """The backend registered as ``name``, built (and loaded) with ``options``.

    Raises:
        PluginError: no backend is registered as ``name``.
        IndexerError: the backend's dependency is missing or its model cannot be loaded.
    """
    return EMBEDDING_BACKENDS.get(name)(options)


def _onnx(options: EmbeddingOptions) -> EmbeddingBackend:
    from indexer.backends import onnx_backend

    return onnx_backend(threads=options.threads)  # the bundled model: ``model`` does not apply


def _sentence_transformers(options: EmbeddingOptions) -> EmbeddingBackend:
    from indexer.backends import sentence_transformers_backend

    return sentence_transformers_backend(model=options.model, threads=options.threads)


def register_embedding_backends(register: Register[EmbeddingBackendFactory]) -> None:
    """The built-in backends: ``onnx`` (the bundled MiniLM, no torch) and ``sentence-transformers`` (extra [st])."""
    register("onnx", _onnx)
    register("sentence-transformers", _sentence_transformers)
