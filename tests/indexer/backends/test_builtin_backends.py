from __future__ import annotations

import importlib.util

import pytest

from indexer.backends import sentence_transformers_backend
from indexer.errors import BackendUnavailableError


@pytest.mark.skipif(importlib.util.find_spec("sentence_transformers") is not None, reason="[st] is installed")
def test_sentence_transformers_without_the_extra_says_how_to_install_it() -> None:
    with pytest.raises(BackendUnavailableError, match=r"\[st\]"):
        sentence_transformers_backend()
