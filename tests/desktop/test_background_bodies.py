"""A large agent in the desktop: its descriptions are indexed first, a message is answered at
once, and its bodies follow in the background with their progress in the status bar."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from agent_core.agent.agent import Agent
from agent_core.context.items import ItemRef
from agent_core.context.judged_short import judged_short_reason
from agent_core.context.selection import ContextSelector
from agent_core.tools.runtime import ToolRuntime
from agent_core.workspace import Workspace
from desktop.app import DesktopApp
from indexer import Indexer
from indexer.backends import FloatMatrix
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send, start
from tests.support.desktop_fakes import HeldBackend

# The agent's agent-mode items (tests/desktop/conftest.py): two, with a short body each.
AGENT_MODE = {ItemRef("rule", "code-answers"), ItemRef("reference", "python-style")}


class HeldBodies(HeldBackend):
    """Embeds at once, except in the background (a large agent's bodies): that waits for ``bodies``."""

    def __init__(self) -> None:
        super().__init__()
        self.release.set()
        self.bodies = threading.Event()
        self.background = threading.Event()  # the background has begun embedding

    def embed_in_background(self, texts: Sequence[str]) -> FloatMatrix:
        self.background.set()
        if not self.bodies.wait(WAIT_MS / 1000):
            raise TimeoutError("the test never let the bodies be embedded")
        return self.embed(texts)


@pytest.fixture
def large_agent(monkeypatch: pytest.MonkeyPatch) -> HeldBodies:
    """Indexers made from now on count this agent's two bodies as a large agent's."""
    import indexer.tiers

    monkeypatch.setattr(indexer.tiers, "BODIES_LATER_MIN_CHUNKS", 1)
    return HeldBodies()


def _app(qtbot: QtBot, agent_dir: Path, backend: HeldBodies) -> DesktopApp:
    def factory(agent: Agent, tools: ToolRuntime) -> Workspace:
        return Workspace(agent, tools=tools, selector=ContextSelector(Indexer(lambda: backend)))

    return start(qtbot, agent_dir, factory)


def test_a_large_agent_is_answered_on_its_descriptions_while_its_bodies_follow(
    qtbot: QtBot, agent_dir: Path, large_agent: HeldBodies
) -> None:
    app = _app(qtbot, agent_dir, large_agent)
    try:
        status = app.window.background.index_status
        qtbot.waitUntil(
            lambda: (
                status.text() == "Descriptions indexed (2 items); bodies in the background: 0 of 2 chunks"
            ),
            timeout=WAIT_MS,
        )
        assert status.busy and "judged on its description" in status.toolTip()
        scripted(app).enqueue_reply("Use snake_case.")
        send(qtbot, app, "how should I name my Python functions?")
        view = app.window.current_view()
        assert view is not None
        conversation = view.controller.conversation
        qtbot.waitUntil(
            lambda: (
                idle(app) and conversation.rowCount() == 2 and conversation.entry(1).text == "Use snake_case."
            ),
            timeout=WAIT_MS,
        )
        assert large_agent.background.is_set() and not large_agent.bodies.is_set()  # answered meanwhile
        context = conversation.entry(1).context
        assert context is not None and context.selection is not None
        assert set(context.selection.description_only) == AGENT_MODE
        assert all(
            judged_short_reason(item.ref, still_indexing=True) in item.reason
            for item in context.items
            if item.ref in AGENT_MODE
        )
        large_agent.bodies.set()
        qtbot.waitUntil(
            lambda: status.text() == "Agent items indexed (bodies: 2 chunks, in the background)",
            timeout=WAIT_MS,
        )
        assert not status.busy
    finally:
        large_agent.bodies.set()
        app.close()


def test_a_failure_in_the_background_is_shown_with_its_reason(
    qtbot: QtBot, agent_dir: Path, large_agent: HeldBodies, monkeypatch: pytest.MonkeyPatch
) -> None:
    from indexer.errors import EmbeddingError

    def broken(texts: Sequence[str]) -> FloatMatrix:
        raise EmbeddingError("The embedding model ran out of memory; close other programs, then retry.")

    monkeypatch.setattr(large_agent, "embed_in_background", broken)
    app = _app(qtbot, agent_dir, large_agent)
    try:
        status = app.window.background.index_status
        qtbot.waitUntil(lambda: status.failed, timeout=WAIT_MS)
        assert status.text().startswith("Indexing the agent's items failed")
        assert "ran out of memory" in status.toolTip()
    finally:
        app.close()
