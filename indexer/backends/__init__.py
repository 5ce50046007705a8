"""Embedding backends: the :class:`EmbeddingBackend` seam and a registry of named factories.

Built-in backends register through :func:`register_backend`, exactly as a plug-in would::

    register_backend("my-model", lambda **options: MyBackend(**options))
    backend = create_backend("my-model", threads=2)
"""

from __future__ import annotations

from indexer.backends._base import EmbeddingBackend, FloatMatrix
from indexer.backends._registry import BackendFactory, backend_names, create_backend, register_backend

__all__ = [
    "BackendFactory",
    "EmbeddingBackend",
    "FloatMatrix",
    "backend_names",
    "create_backend",
    "register_backend",
]


def _onnx(**options: object) -> EmbeddingBackend:
    from indexer.backends._onnx import OnnxBackend

    return OnnxBackend(**options)  # type: ignore[arg-type]


def _sentence_transformers(**options: object) -> EmbeddingBackend:
    from indexer.backends._sentence_transformers import SentenceTransformersBackend

    return SentenceTransformersBackend(**options)  # type: ignore[arg-type]


#: The built-in backends, registered below through the public registry.
DEFAULT_BACKENDS: tuple[tuple[str, BackendFactory], ...] = (
    ("onnx", _onnx),
    ("sentence-transformers", _sentence_transformers),
)

for _name, _factory in DEFAULT_BACKENDS:
    register_backend(_name, _factory)
