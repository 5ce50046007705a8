"""Test doubles for the desktop tests: a provider that loads its model like the local one, and an
embedding backend that can be held inside ``embed`` (to see progress of slow indexing)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import numpy as np

from agent_core.errors import ProviderConfigError
from agent_core.providers.base import ChatRequest, ProviderSettings, StreamEvent, ToolCalling
from agent_core.providers.registry import PROVIDERS
from agent_core.providers.scripted import ScriptedProvider
from indexer.backends import EmbeddingBackend, FloatMatrix

PRELOADING_TYPE = "test-preloading"
WAIT_S = 30


class PreloadingProvider(ScriptedProvider):
    """A scripted provider that, like the local llama.cpp one, loads its model once (``load_model``,
    held until ``release`` is set) and makes a reply wait for that load. It cannot call tools.
    A model id starting with ``broken`` fails to load."""

    def __init__(self, settings: ProviderSettings) -> None:
        super().__init__(settings)
        self.release = threading.Event()
        self.loading = threading.Event()
        self.loaded = threading.Event()
        self.loads: list[str] = []

    def load_model(self, model_id: str) -> None:
        self.loads.append(model_id)
        if model_id.startswith("broken"):
            raise ProviderConfigError(
                f"The model file {Path('/models') / model_id}.gguf does not exist: download the GGUF file there."
            )
        self.loading.set()
        if not self.release.wait(WAIT_S):
            raise TimeoutError("the test never released the model load")
        self.loaded.set()

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        await asyncio.to_thread(self.loaded.wait, WAIT_S)
        async for event in super().stream(request):
            yield event

    def tool_calling(self, model_id: str) -> ToolCalling:
        return "none"


PROVIDERS.register(PRELOADING_TYPE, PreloadingProvider)


class HeldBackend(EmbeddingBackend):
    """Loads at once; each ``embed`` signals ``entered`` and waits for ``release``."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()

    @property
    def model_id(self) -> str:
        return "held-test-backend"

    @property
    def dimension(self) -> int:
        return 4

    def warm_up(self) -> None:
        pass

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        self.entered.set()
        if not self.release.wait(WAIT_S):
            raise TimeoutError("the test never released the backend")
        out = np.zeros((len(texts), 4), dtype=np.float32)
        out[:, 0] = 1.0
        return out
