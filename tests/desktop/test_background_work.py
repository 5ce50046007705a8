"""Progress of slow background steps: a chat's local model loading and reading the prompt, and
indexing the agent's items."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.agent.agent import Agent
from agent_core.context.selection import ContextSelector
from agent_core.providers.base import PromptProgressEvent
from agent_core.tools.runtime import ToolRuntime
from agent_core.workspace import Workspace
from desktop.app import DesktopApp
from desktop.views.status_indicator import StatusIndicator
from indexer import Indexer
from indexer.backends import FloatMatrix
from tests.support.desktop_driver import (
    WAIT_MS,
    idle,
    last_reply,
    screenshot,
    scripted,
    send,
    start,
    use_model,
    warm_provider,
)
from tests.support.desktop_fakes import HeldBackend


@pytest.fixture
def local_chat(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    use_model(agent_dir, "warm:tiny")
    app = start(qtbot, agent_dir)
    yield app
    warm_provider(app).release.set()
    app.close()


def test_a_local_model_loads_in_the_background_with_a_status_and_a_message_waits_for_it(
    qtbot: QtBot, local_chat: DesktopApp
) -> None:
    window = local_chat.window
    status = window.background.model_status
    provider = warm_provider(local_chat)
    qtbot.waitUntil(lambda: status.text() == "Loading the local model…", timeout=WAIT_MS)
    assert provider.loads == ["tiny"]
    assert "a message sent now waits" in status.toolTip()
    view = window.current_view()
    assert view is not None and view.composer.isEnabled()

    provider.enqueue_reply("Loaded, and here is the answer.")
    send(qtbot, local_chat, "Are you there?")
    assert view.controller.busy  # sent: the reply waits for the load instead of failing
    qtbot.waitUntil(lambda: view.conversation.model.rowCount() >= 1, timeout=WAIT_MS)
    screenshot(window, "local_model_loading")

    provider.release.set()
    qtbot.waitUntil(lambda: status.text() == "Local model ready", timeout=WAIT_MS)
    qtbot.waitUntil(lambda: idle(local_chat), timeout=WAIT_MS)
    assert view.conversation.widgets()[-1].entry.text == "Loaded, and here is the answer."  # type: ignore[union-attr]
    assert provider.loads == ["tiny"]  # once per model


def test_a_local_model_that_cannot_load_says_why_without_blocking_anything(
    qtbot: QtBot, agent_dir: Path
) -> None:
    use_model(agent_dir, "warm:broken-model")
    app = start(qtbot, agent_dir)
    try:
        status = app.window.background.model_status
        qtbot.waitUntil(lambda: status.failed, timeout=WAIT_MS)
        assert status.text().startswith("The local model could not load: The model file")
        assert "download the GGUF file" in status.toolTip()
        assert not status.bar.isVisible()
        screenshot(app.window, "local_model_failed")
    finally:
        app.close()


def test_a_model_failure_goes_once_the_chat_uses_another_model(qtbot: QtBot, agent_dir: Path) -> None:
    use_model(agent_dir, "warm:broken-model")
    app = start(qtbot, agent_dir)
    try:
        status = app.window.background.model_status
        qtbot.waitUntil(lambda: status.failed, timeout=WAIT_MS)
        controller = app.window.current_controller()
        assert controller is not None
        controller.override_settings(chat={"model": "scripted:x"})
        qtbot.waitUntil(lambda: status.text() == "", timeout=WAIT_MS)
        assert status.isHidden()
    finally:
        app.close()


def test_indexing_a_slow_agent_shows_how_many_items_then_finishes(qtbot: QtBot, agent_dir: Path) -> None:
    backend = HeldBackend()

    def factory(agent: Agent, tools: ToolRuntime) -> Workspace:
        return Workspace(agent, tools=tools, selector=ContextSelector(Indexer(lambda: backend)))

    app = start(qtbot, agent_dir, factory)
    try:
        status = app.window.background.index_status
        qtbot.waitUntil(backend.entered.is_set, timeout=WAIT_MS)
        # code-answers and python-style are the agent's agent-mode items (its tools are "always").
        qtbot.waitUntil(lambda: status.text() == "Indexing 2 agent items…", timeout=WAIT_MS)
        backend.release.set()
        qtbot.waitUntil(lambda: status.text().startswith("Agent items indexed"), timeout=WAIT_MS)
    finally:
        backend.release.set()
        app.close()


def test_a_step_that_ends_quickly_shows_no_progress(qtbot: QtBot) -> None:
    indicator = StatusIndicator()
    qtbot.addWidget(indicator)
    indicator.start("Doing something…")
    indicator.finish("Done")
    assert indicator.isHidden() and not indicator.busy
    indicator.start("Doing something slow…", delay_ms=1)
    qtbot.waitUntil(lambda: indicator.text() == "Doing something slow…", timeout=WAIT_MS)
    indicator.finish("Done")
    assert indicator.text() == "Done" and not indicator.bar.isVisible()


class SteppedBackend(HeldBackend):
    """Each ``embed`` waits for a step: the test sees the progress between two slices."""

    def __init__(self) -> None:
        super().__init__()
        self.steps = threading.Semaphore(0)

    def embed(self, texts: Sequence[str]) -> FloatMatrix:
        self.entered.set()
        if not self.steps.acquire(timeout=WAIT_MS / 1000):
            raise TimeoutError("the test never stepped the backend")
        self.release.set()
        return super().embed(texts)


def test_a_cold_start_shows_how_many_chunks_are_indexed_so_far(
    qtbot: QtBot, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexer.index

    monkeypatch.setattr(indexer.index, "EMBED_SLICE", 1)  # every chunk a slice: progress after each
    backend = SteppedBackend()

    def factory(agent: Agent, tools: ToolRuntime) -> Workspace:
        return Workspace(agent, tools=tools, selector=ContextSelector(Indexer(lambda: backend)))

    app = start(qtbot, agent_dir, factory)
    try:
        status = app.window.background.index_status
        qtbot.waitUntil(backend.entered.is_set, timeout=WAIT_MS)
        backend.steps.release()
        qtbot.waitUntil(lambda: status.text().startswith("Indexing the agent: 1 of "), timeout=WAIT_MS)
        for _ in range(50):
            backend.steps.release()
        qtbot.waitUntil(lambda: status.text().startswith("Agent items indexed"), timeout=WAIT_MS)
    finally:
        for _ in range(50):
            backend.steps.release()
        app.close()


def test_a_message_sent_while_indexing_says_it_waits_for_the_index(
    qtbot: QtBot, theme: str, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import indexer.index

    monkeypatch.setattr(indexer.index, "EMBED_SLICE", 1)
    backend = SteppedBackend()

    def factory(agent: Agent, tools: ToolRuntime) -> Workspace:
        return Workspace(agent, tools=tools, selector=ContextSelector(Indexer(lambda: backend)))

    app = start(qtbot, agent_dir, factory)
    try:
        qtbot.waitUntil(backend.entered.is_set, timeout=WAIT_MS)  # indexing has begun
        scripted(app).enqueue_reply("Hello.")
        send(qtbot, app, "hello there")
        view = app.window.current_view()
        assert view is not None
        conversation = view.controller.conversation
        qtbot.waitUntil(lambda: conversation.rowCount() == 2, timeout=WAIT_MS)
        assert conversation.entry(1).activity == "Choosing the context for this message…"
        backend.steps.release()
        qtbot.waitUntil(
            lambda: conversation.entry(1).activity.startswith("Waiting for the index: 1 of "), timeout=WAIT_MS
        )
        reply = view.conversation.widgets()[1]
        assert "Waiting for the index" in reply._status.full_text()  # type: ignore[attr-defined]
        screenshot(app.window, f"reply_waiting_for_the_index_{theme}")
        for _ in range(50):
            backend.steps.release()
        qtbot.waitUntil(lambda: idle(app) and conversation.entry(1).text == "Hello.", timeout=WAIT_MS)
        assert conversation.entry(1).activity == ""
    finally:
        for _ in range(50):
            backend.steps.release()
        app.close()


def test_a_reply_says_how_far_the_model_has_read_a_long_prompt_and_stop_still_stops_it(
    qtbot: QtBot, theme: str, desktop: DesktopApp
) -> None:
    reading = asyncio.Event()  # never set: the model is still reading when Stop is pressed
    scripted(desktop).enqueue_reply(
        chunks=[PromptProgressEvent(0, 3000), PromptProgressEvent(1024, 3000), reading, "Never shown."]
    )
    send(qtbot, desktop, "Summarize the notes")
    view = desktop.window.current_view()
    assert view is not None
    qtbot.waitUntil(lambda: view.conversation.model.rowCount() == 2, timeout=WAIT_MS)
    reply = last_reply(desktop)
    qtbot.waitUntil(
        lambda: reply._status.full_text() == "· Processing the prompt: 1,024 of 3,000 tokens…",
        timeout=WAIT_MS,
    )
    screenshot(desktop.window, f"reply_processing_the_prompt_{theme}")

    qtbot.mouseClick(view.stop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not view.controller.busy, timeout=WAIT_MS)
    assert reply.entry is not None and reply.entry.status == "cancelled" and reply.entry.text == ""
    assert reply._status.full_text() == "· Stopped"
