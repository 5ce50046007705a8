"""The one seam for embedding models: a small abstract class every backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["EmbeddingBackend", "FloatMatrix"]

FloatMatrix = npt.NDArray[np.float32]


class EmbeddingBackend(ABC):
    """Turns texts into L2-normalised float32 vectors.

    ``model_id`` names everything that changes the vectors (weights, pooling, truncation); the
    on-disk cache is keyed by it, so two backends that can disagree must never share an id.
    """

    @property
    @abstractmethod
    def model_id(self) -> str:
        """A stable id for the vectors this backend produces."""

    @property
    @abstractmethod
    def dimension(self) -> int:
        """The length of every vector."""

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        """Embed ``texts`` into a ``(len(texts), dimension)`` float32 array of unit vectors.

        Raises:
            EmbeddingError: the model failed.
        """

    def embed_in_background(self, texts: Sequence[str]) -> FloatMatrix:
        """:meth:`embed` for background work (a large agent's bodies): a backend that runs several
        model runs at once runs one here, leaving the other cores, and the memory a second run
        takes, to the user (optional hook; the default is :meth:`embed`)."""
        return self.embed(texts)

    def warm_up(self) -> None:
        """Run the model once so the first real call is not slower than the rest (optional hook)."""
        self.embed(["warm up"])

    def close(self) -> None:  # noqa: B027 - an optional hook, deliberately empty
        """Release the model (optional hook; the default does nothing)."""
