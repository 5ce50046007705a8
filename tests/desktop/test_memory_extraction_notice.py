"""With ``memory.extraction: model`` the chat's model proposes memories after the reply: the reply
shows first, complete, and the proposal's Accept / Edit / Reject row appears under the user's
message once the model answers."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from agent_core.memory.extraction_model import SYSTEM_PROMPT
from agent_core.providers.base import ChatRequest, Completion
from desktop.app import DesktopApp
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send


@pytest.fixture
def agent_dir(agent_dir: Path) -> Path:
    agent_file = agent_dir / "agent.yaml"
    agent_file.write_text(agent_file.read_text(encoding="utf-8") + "memory:\n  extraction: model\n", "utf-8")
    return agent_dir


def test_the_models_proposal_is_shown_after_the_reply(
    qtbot: QtBot, desktop: DesktopApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = scripted(desktop)
    asked = asyncio.Event()
    answered = asyncio.Event()
    chat_complete = provider.complete

    async def complete(request: ChatRequest) -> Completion:
        if request.messages[0].content != SYSTEM_PROMPT:
            return await chat_complete(request)
        asked.set()
        await answered.wait()
        memory = {"text": "I prefer pytest over unittest", "quote": "I prefer pytest over unittest"}
        return Completion(text=json.dumps({"memories": [memory]}))

    monkeypatch.setattr(provider, "complete", complete)
    provider.enqueue_reply("Sure, pytest it is.")
    send(qtbot, desktop, "I prefer pytest over unittest, write the tests please")
    view = desktop.window.current_view()
    assert view is not None
    model = view.controller.conversation

    def texts() -> list[tuple[str, str]]:
        return [(model.entry(row).kind, model.entry(row).text) for row in range(model.rowCount())]

    qtbot.waitUntil(
        lambda: ("assistant", "Sure, pytest it is.") in texts() and asked.is_set(), timeout=WAIT_MS
    )
    assert not any(kind in ("notice", "memory") for kind, _ in texts())  # the reply did not wait
    qtbot.waitUntil(lambda: not view.controller.busy, timeout=WAIT_MS)  # nor does the next message
    assert not view.send_button.isHidden() and view.stop_button.isHidden()
    desktop.bridge.call_soon(answered.set)
    qtbot.waitUntil(lambda: idle(desktop) and any(k == "memory" for k, _ in texts()), timeout=WAIT_MS)
    assert [kind for kind, _ in texts()] == ["user", "memory", "assistant"]  # under the message it came from
    proposal = model.entry(1)
    assert proposal.status == "proposed" and proposal.text == "I prefer pytest over unittest"
    assert model.entry(2).status == "complete"
