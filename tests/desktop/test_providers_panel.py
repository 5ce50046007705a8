"""The provider form as a new user meets it: only real provider types, a local server saved without
a key, a confirmation that stays until the form changes, and the new models in the chat's model box."""

from __future__ import annotations

from pathlib import Path

import yaml
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.views.providers_panel import ProvidersPanel
from tests.support.desktop_driver import WAIT_MS, open_manager, screenshot
from tests.support.fake_api import FakeApi, Reply, json_fixture


def providers_in_file(agent_dir: Path) -> dict[str, dict[str, str]]:
    return yaml.safe_load((agent_dir / "agent.yaml").read_text())["providers"]


def panel_of(qtbot: QtBot, app: DesktopApp) -> ProvidersPanel:
    return open_manager(qtbot, app, "providers").providers


def test_the_form_offers_the_real_provider_types_and_not_the_test_one(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    panel = panel_of(qtbot, desktop)
    panel.new_provider()
    offered = [panel.type.itemText(i) for i in range(panel.type.count())]
    assert "scripted" not in offered
    assert {"openai", "openai-compatible", "anthropic", "gemini", "local"} <= set(offered)
    # The agent's own scripted provider can still be opened and shows its type.
    panel.table.selectRow(panel.model.row_of("scripted"))  # type: ignore[arg-type]
    assert panel.type.currentText() == "scripted"
    panel.new_provider()
    assert panel.type.findText("scripted") < 0


def test_a_local_server_is_saved_without_a_key_and_its_models_reach_the_model_box(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path, local_server: FakeApi
) -> None:
    local_server.queue(*(Reply(json_body=json_fixture("openai/models.json")) for _ in range(3)))
    manager = open_manager(qtbot, desktop, "providers")
    panel = manager.providers
    panel.new_provider()
    panel.provider_id.setText("lmstudio")
    panel.type.setCurrentText("openai-compatible")
    assert panel.key_mode.currentData() == "none"  # LM Studio, llama.cpp and Ollama need no key
    panel.base_url.setText(f"{local_server.url}/v1")
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "lmstudio" in providers_in_file(agent_dir), timeout=WAIT_MS)
    assert providers_in_file(agent_dir)["lmstudio"] == {
        "type": "openai-compatible",
        "baseUrl": f"{local_server.url}/v1",
    }
    # The reload after the save re-selects the provider; the confirmation stays.
    qtbot.waitUntil(
        lambda: panel.table.currentIndex().row() == panel.model.row_of("lmstudio"), timeout=WAIT_MS
    )
    assert panel.saved_note.text() == "Saved lmstudio (no key)."
    screenshot(manager, "providers_panel_saved")

    view = desktop.window.current_view()
    assert view is not None
    qtbot.waitUntil(lambda: view.model_picker.findText("lmstudio:gpt-4o-mini") >= 0, timeout=WAIT_MS)

    panel.base_url.setText("http://127.0.0.1:9/v1")
    assert panel.saved_note.text() == ""  # the form no longer is what was saved


def test_an_empty_key_never_stops_a_save(qtbot: QtBot, desktop: DesktopApp, agent_dir: Path) -> None:
    panel = panel_of(qtbot, desktop)
    panel.new_provider()
    panel.provider_id.setText("openai")
    panel.type.setCurrentText("openai")
    assert panel.key_mode.currentData() in ("keyring", "env")  # a hosted provider: a key is likely
    for mode in ("env", "plain", "keyring"):
        panel.key_mode.setCurrentIndex(panel.key_mode.findData(mode))
        panel.key.clear()
        panel.save()
        assert panel.error.text() == "", mode
    qtbot.waitUntil(lambda: "openai" in providers_in_file(agent_dir), timeout=WAIT_MS)
    assert providers_in_file(agent_dir)["openai"] == {}


def test_a_form_error_goes_once_it_is_fixed_and_a_test_result_once_the_form_changes(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    panel = panel_of(qtbot, desktop)
    panel.new_provider()
    panel.provider_id.setText("bad id!")
    panel.save()
    assert panel.error.text().startswith("Id:")
    panel.provider_id.setText("scripted")
    assert "already has a provider 'scripted'" in panel.error.text()
    panel.provider_id.setText("mine")
    assert panel.error.text() == ""

    panel.test_result.setText("Connected: 2 models.")
    panel.models.setStringList(["a", "b"])
    panel.base_url.setText("http://127.0.0.1:1/v1")
    assert panel.test_result.text() == "" and panel.models.stringList() == []


def test_the_models_that_can_see_images_are_saved_as_vision_models_and_empty_means_the_default(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    manager = open_manager(qtbot, desktop, "providers")
    panel = manager.providers
    panel.new_provider()
    panel.provider_id.setText("ollama")
    panel.type.setCurrentText("openai-compatible")
    assert "llava*" in panel.vision_models.placeholderText()  # another server: the user says which
    panel.base_url.setText("http://127.0.0.1:11434/v1")
    panel.vision_models.setText(" llava*, qwen2.5vl* ,, ")
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "ollama" in providers_in_file(agent_dir), timeout=WAIT_MS)
    assert providers_in_file(agent_dir)["ollama"]["visionModels"] == ["llava*", "qwen2.5vl*"]
    qtbot.waitUntil(lambda: panel.saved_note.text().startswith("Saved ollama"), timeout=WAIT_MS)
    screenshot(manager, "providers_panel_vision_models")
    workspace = desktop.host.workspace
    assert workspace is not None
    provider, _ = workspace.providers.resolve("ollama:llava-1.6")
    assert provider.accepts_images("llava-1.6") and not provider.accepts_images("llama3.1")

    panel.vision_models.clear()
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "visionModels" not in providers_in_file(agent_dir)["ollama"], timeout=WAIT_MS)

    panel.new_provider()
    panel.type.setCurrentText("local")
    assert not panel.vision_models.isEnabled()  # a local model never sees images
