"""Embedding backends: the :class:`EmbeddingBackend` seam and the built-in backends.

The indexer keeps no registry of backends: it is handed a factory (``Indexer(backend_factory)``).
Which backend a name in the app's settings means is decided above it (in ContextDesk, the
``embedding_backends`` plug-in registry of ``agent_core``). The functions here import their model
code on first call, so importing this package stays cheap.
"""

from __future__ import annotations

from indexer.backends._base import EmbeddingBackend, FloatMatrix

__all__ = ["EmbeddingBackend", "FloatMatrix", "onnx_backend", "sentence_transformers_backend"]


def onnx_backend(*, threads: int | None = None) -> EmbeddingBackend:
    """The bundled all-MiniLM-L6-v2 (int8 ONNX), loaded; ``threads`` caps its cores (None: all).

    Raises:
        ModelLoadError: the model package or its tokenizer is missing or cannot be loaded.
    """
    from indexer.backends._onnx import OnnxBackend

    return OnnxBackend(threads=threads)


def sentence_transformers_backend(
    *, model: str | None = None, threads: int | None = None
) -> EmbeddingBackend:
    """``model`` (a local folder; None: the packaged MiniLM) through sentence-transformers, loaded.

    Raises:
        BackendUnavailableError: the ``[st]`` extra (sentence-transformers) is not installed.
        ModelLoadError: the model folder cannot be loaded.
    """
    from indexer.backends._sentence_transformers import SentenceTransformersBackend

    return SentenceTransformersBackend(model, threads=threads)
