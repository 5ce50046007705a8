from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.workflow_chats import Chat
from tests.support.workflow_runner import Runner


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    return Runner(tmp_path)


@pytest.fixture
def chat(tmp_path: Path) -> Iterator[Chat]:
    made = Chat(tmp_path)
    yield made
    made.store.close()
