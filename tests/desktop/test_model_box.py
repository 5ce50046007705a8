"""The model box never refuses a provider's model without saying why, and lets it be picked: a
provider that listed no models says why (its models are still used, the reply shows its error),
and a model of a provider the agent has not set up is tried and explained."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp, create_app
from desktop.views.model_picker import unchecked_model_note
from tests.support.desktop_driver import WAIT_MS


def test_the_note_says_why_a_model_could_not_be_checked_and_nothing_when_it_was() -> None:
    listed = {"scripted:x", "scripted:y"}
    unlisted = {"lab": "the key was refused: check it in Providers"}
    configured = {"scripted", "lab"}
    assert unchecked_model_note("scripted:x", listed, unlisted, configured) == ""
    assert unchecked_model_note("openai:gpt-4o", set(), {}, configured) == ""  # no lists yet
    assert "lab listed no models (the key was refused: check it in Providers)" in unchecked_model_note(
        "lab:big", listed, unlisted, configured
    )
    assert "'openai' is not one of this agent's providers (lab, scripted)" in unchecked_model_note(
        "openai:gpt-4o", listed, unlisted, configured
    )
    assert "is not in the list scripted gave" in unchecked_model_note(
        "scripted:z", listed, unlisted, configured
    )


@pytest.fixture
def desktop_with_a_dead_provider(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    """The test agent with a second provider whose server is not running (nothing listens on it)."""
    config = agent_dir / "agent.yaml"
    config.write_text(
        config.read_text().replace(
            "providers:\n  scripted: {}\n",
            "providers:\n  scripted: {}\n  lab:\n    type: openai-compatible\n    baseUrl: http://127.0.0.1:9/v1\n",
        )
    )
    assert "lab:" in config.read_text()
    create_app()
    app = DesktopApp()
    app.start(agent_dir)
    qtbot.waitUntil(lambda: app.window.current_controller() is not None, timeout=WAIT_MS)
    yield app
    app.close()


def test_a_model_of_a_provider_that_listed_none_is_used_with_the_reason(
    qtbot: QtBot, desktop_with_a_dead_provider: DesktopApp
) -> None:
    window = desktop_with_a_dead_provider.window
    qtbot.waitUntil(lambda: "lab" in window.model_unlisted, timeout=WAIT_MS)
    view = window.current_view()
    assert view is not None
    assert "scripted:x" in window.model_choices
    assert "lab:" in view.model_picker.toolTip()  # the box says which provider gave no list, and why
    box = view.model_picker
    box.setCurrentText("lab:qwen2.5-7b")
    view._model_chosen()
    qtbot.waitUntil(lambda: view.controller.session.chat_settings.model == "lab:qwen2.5-7b", timeout=WAIT_MS)
    assert box.currentText() == "lab:qwen2.5-7b"
    note = view.inline_error.text()
    assert "lab:qwen2.5-7b is used, but lab listed no models (" in note
    assert "Cannot reach lab at http://127.0.0.1:9/v1" in note
