"""Every test runs with its own user folders and no network models."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest

from tests.support.memory_keyring import MemoryKeyring
from tests.support.paths import FIXTURES


def pytest_configure(config: pytest.Config) -> None:
    """Mend PySide6 6.12.0's signal emit before any test emits one (desktop/signal_refcount.py):
    unmended, a whole run loses thousands of references to ``True`` and aborts."""
    try:
        from desktop.signal_refcount import mend_signal_emit
    except ImportError:  # no Qt installed: the desktop tests are not collected either
        return
    mend_signal_emit()


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
def memory_keyring() -> Iterator[MemoryKeyring]:
    """A keyring in memory for this test; the real one is never touched."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def anyio_backend() -> str:
    """Tests marked ``anyio`` run on asyncio only: the core is asyncio."""
    return "asyncio"


@pytest.fixture(autouse=True)
def no_stale_http_clients_in_an_event_loop_test(request: pytest.FixtureRequest) -> None:
    """Before a test that runs in anyio's event loop, collect what earlier tests left behind.

    An HTTP client an earlier test did not close (its own loop long gone) closes itself when it is
    collected, by scheduling its close on whatever loop is running then; collected in the middle
    of this test's loop, that close fails on the dead loop's sockets and fails this test. Collected
    here, before the loop runs, the client finds no loop and lets go quietly.
    """
    if request.node.get_closest_marker("anyio") is not None:
        gc.collect()
