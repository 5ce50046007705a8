"""Name → factory registry of embedding backends. Built-ins register the same way plug-ins do."""

from __future__ import annotations

import threading
from collections.abc import Callable

from indexer.backends._base import EmbeddingBackend
from indexer.errors import UnknownBackendError

__all__ = ["BackendFactory", "backend_names", "create_backend", "register_backend"]

BackendFactory = Callable[..., EmbeddingBackend]

_factories: dict[str, BackendFactory] = {}
_lock = threading.Lock()


def register_backend(name: str, factory: BackendFactory, *, replace: bool = False) -> None:
    """Make ``factory`` available as ``name``; ``factory(**options)`` must return a loaded backend.

    Raises:
        ValueError: ``name`` is taken and ``replace`` is false.
    """
    with _lock:
        if name in _factories and not replace:
            raise ValueError(
                f"An embedding backend named {name!r} is already registered; "
                "pass replace=True to override it."
            )
        _factories[name] = factory


def backend_names() -> list[str]:
    """The names of all registered backends, sorted."""
    with _lock:
        return sorted(_factories)


def create_backend(name: str = "onnx", **options: object) -> EmbeddingBackend:
    """Build (and load) the backend registered as ``name``.

    Raises:
        UnknownBackendError: nothing is registered under ``name``.
        BackendUnavailableError: the backend's optional dependency is missing.
        ModelLoadError: the model files cannot be loaded.
    """
    with _lock:
        factory = _factories.get(name)
        known = sorted(_factories)
    if factory is None:
        raise UnknownBackendError(
            f"No embedding backend named {name!r}; choose one of {', '.join(known)} "
            "or register yours with indexer.backends.register_backend()."
        )
    return factory(**options)
