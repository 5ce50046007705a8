"""The sub-agent tests' parent chats: ``make_chat(prepare=None, **subagent_files)`` builds one
(tests/support/subagent_chats.py) and closes its store after the test."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.subagent_chats import Chat


@pytest.fixture
def make_chat(tmp_path: Path) -> Iterator[Callable[..., Chat]]:
    made: list[Chat] = []

    def make(prepare: Callable[[Path], None] | None = None, **subagents: str) -> Chat:
        chat = Chat(tmp_path, subagents, prepare)
        made.append(chat)
        return chat

    yield make
    for chat in made:
        chat.store.close()
