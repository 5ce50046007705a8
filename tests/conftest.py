"""Every test runs with its own user folders and no network models."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.paths import FIXTURES


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path_factory.mktemp("contextdesk-home")
    monkeypatch.setenv("CONTEXTDESK_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return home


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture
def anyio_backend() -> str:
    """Tests marked ``anyio`` run on asyncio only: the core is asyncio."""
    return "asyncio"
