"""The context panel and chat settings of the current chat, and switching agents."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit
from pytestqt.qtbot import QtBot

from agent_core.agent.scaffold import create_agent
from agent_core.context.items import ItemRef
from desktop.app import DesktopApp
from desktop.views.chat_view import ChatView
from desktop.views.model_picker import ModelPicker
from tests.support.desktop_driver import WAIT_MS, idle, names, screenshot, scripted, send


def test_items_added_and_removed_in_the_panel_change_what_the_next_message_uses(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    panel = desktop.window.context_panel
    assert names(desktop, "rule") == ["clear-answers"]
    labels = [a.text() for a in panel.sections["reference"].fill_add_menu().actions()]
    assert any("release-notes" in label for label in labels)
    panel.sections["reference"].fill_add_menu().actions()[
        next(i for i, t in enumerate(labels) if "release-notes" in t)
    ].trigger()
    qtbot.waitUntil(lambda: names(desktop, "reference") == ["release-notes"], timeout=WAIT_MS)
    panel._remove(ItemRef("rule", "clear-answers"))
    qtbot.waitUntil(lambda: names(desktop, "rule") == [], timeout=WAIT_MS)
    screenshot(desktop.window.side_tabs, "context_panel")

    scripted(desktop).enqueue_reply("ok")
    send(qtbot, desktop, "hi")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    prompt = scripted(desktop).requests[-1].messages[0].content
    assert "Version 2 adds dark mode." in prompt and "Lead with the answer." not in prompt


def test_an_at_mention_adds_the_item_to_the_panel(qtbot: QtBot, desktop: DesktopApp) -> None:
    view = desktop.window.current_view()
    assert view is not None and "@rule:pirate" in view.composer._mentions
    scripted(desktop).enqueue_reply("Arr")
    send(qtbot, desktop, "@rule:pirate hello")
    qtbot.waitUntil(lambda: idle(desktop) and "pirate" in names(desktop, "rule"), timeout=WAIT_MS)


def test_chat_settings_apply_to_the_chat_and_can_become_the_agent_default(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    settings = desktop.window.settings_panel
    desktop.window.side_tabs.setCurrentWidget(settings)
    settings.temperature.setValue(1.3)
    settings.top_n.setValue(2)
    settings.tool_route_score.setValue(0.6)
    settings.apply()
    controller = desktop.window.current_controller()
    assert controller is not None
    qtbot.waitUntil(lambda: controller.session.chat_settings.temperature == 1.3, timeout=WAIT_MS)
    assert controller.session.selection_settings.top_n == 2
    assert controller.session.selection_settings.tool_route_score == 0.6
    screenshot(desktop.window.side_tabs, "chat_settings")
    settings.save_default.click()
    qtbot.waitUntil(lambda: "temperature: 1.3" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)
    assert "topN: 2" in (agent_dir / "agent.yaml").read_text()
    assert "toolRouteScore: 0.6" in (agent_dir / "agent.yaml").read_text()


def test_memories_can_be_turned_off_and_tuned_for_one_chat_and_saved_for_the_agent(
    qtbot: QtBot, desktop: DesktopApp, agent_dir: Path
) -> None:
    settings = desktop.window.settings_panel
    controller = desktop.window.current_controller()
    assert controller is not None and controller.session.settings.memory.enabled
    assert settings.memory_enabled.isChecked() and settings.extraction.currentData() == "off"
    settings.memory_enabled.setChecked(False)
    settings.extraction.setCurrentIndex(settings.extraction.findData("rules"))
    settings.min_relevance.setValue(0.45)
    settings.apply()
    qtbot.waitUntil(lambda: not controller.session.settings.memory.enabled, timeout=WAIT_MS)
    memory = controller.session.settings.memory
    assert memory.extraction == "rules" and memory.min_relevance == 0.45
    assert "memory" not in (agent_dir / "agent.yaml").read_text()  # the agent is unchanged...
    settings.save_default.click()  # ...until saved as its default
    qtbot.waitUntil(lambda: "minRelevance: 0.45" in (agent_dir / "agent.yaml").read_text(), timeout=WAIT_MS)
    assert "extraction: rules" in (agent_dir / "agent.yaml").read_text()


def test_opening_another_agent_switches_the_chats(qtbot: QtBot, desktop: DesktopApp, tmp_path: Path) -> None:
    other = create_agent(tmp_path / "other", name="Other Agent").root
    desktop.window.agents_menu.open_path(other)
    qtbot.waitUntil(lambda: desktop.window.windowTitle().startswith("Other Agent"), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: desktop.window.current_controller() is not None, timeout=WAIT_MS)
    assert desktop.window.current_view().agent_label.text() == "Other Agent"  # type: ignore[union-attr]


def test_at_completion_matches_the_typed_name_shows_descriptions_and_inserts_the_mention(
    qtbot: QtBot, theme: str, desktop: DesktopApp
) -> None:
    view = desktop.window.current_view()
    assert view is not None
    composer = view.composer
    desktop.window.activateWindow()
    composer.setFocus()
    qtbot.keyClicks(composer, "say hi @pi")
    composer._update_popup()
    popup = composer.completer.popup()
    assert popup is not None
    qtbot.waitUntil(popup.isVisible, timeout=WAIT_MS)  # "@pi" matches "@rule:pirate" by its name
    shown = composer.completer.completionModel().index(0, 0).data()
    assert shown == "@rule:pirate  —  Talk like a pirate"
    screenshot(desktop.window, f"at_completion_{theme}")
    qtbot.keyClick(composer, Qt.Key.Key_Return)
    assert composer.toPlainText() == "say hi @rule:pirate "
    composer.clear()
    qtbot.keyClicks(composer, "/com")
    composer._update_popup()
    qtbot.waitUntil(popup.isVisible, timeout=WAIT_MS)
    assert composer.completer.completionModel().index(0, 0).data().startswith("/compact  —  summarize")


def test_the_model_box_never_shows_a_model_that_is_not_used(
    qtbot: QtBot, theme: str, desktop: DesktopApp
) -> None:
    view = desktop.window.current_view()
    assert view is not None
    view.set_models(["scripted:x", "scripted:y"])
    box = view.model_picker
    box.setCurrentText("gpt-4o")
    view._model_chosen()
    assert box.currentText() == "scripted:x"  # back to the model really used
    assert "is not provider:model" in view.inline_error.text()
    assert view.controller.session.chat_settings.model == "scripted:x"
    screenshot(desktop.window, f"model_box_refused_{theme}")
    box.setCurrentText("scripted:z")  # the provider is there, the model is not in its list
    view._model_chosen()
    qtbot.waitUntil(lambda: view.controller.session.chat_settings.model == "scripted:z", timeout=WAIT_MS)
    assert "is not in the list scripted gave" in view.inline_error.text()


def open_model_list(qtbot: QtBot, desktop: DesktopApp) -> tuple[ChatView, ModelPicker, QLineEdit]:
    """The chat's model box offering scripted:x and scripted:y, its list opened by a click on its text."""
    view = desktop.window.current_view()
    assert view is not None
    view.set_models(["scripted:x", "scripted:y"])
    box = view.model_picker
    line_edit = box.lineEdit()
    assert line_edit is not None
    qtbot.mouseClick(line_edit, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(box.view().isVisible, timeout=WAIT_MS)
    return view, box, line_edit


def test_a_click_on_the_model_box_text_opens_its_list(qtbot: QtBot, desktop: DesktopApp) -> None:
    view, box, _line_edit = open_model_list(qtbot, desktop)
    shown = [box.view().model().index(row, 0).data() for row in range(box.view().model().rowCount())]
    assert shown == ["scripted:x", "scripted:y"]
    box.view().setCurrentIndex(box.view().model().index(1, 0))
    qtbot.keyClick(box.view(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.controller.session.chat_settings.model == "scripted:y", timeout=WAIT_MS)


def test_typing_while_the_model_list_is_open_goes_into_the_box(qtbot: QtBot, desktop: DesktopApp) -> None:
    _view, box, line_edit = open_model_list(qtbot, desktop)
    qtbot.keyClick(box.view(), "s")  # the list has the keys while it is open
    qtbot.waitUntil(lambda: not box.view().isVisible() and line_edit.hasFocus(), timeout=WAIT_MS)
    qtbot.keyClicks(line_edit, "cripted:z")  # a new ref, not added to the one shown
    assert line_edit.text() == "scripted:z"


def test_chat_settings_fit_the_side_panel_without_scrolling_sideways(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    from PySide6.QtWidgets import QScrollArea

    window = desktop.window
    window.resize(1152, 760)  # the side panel at its usual width
    window.side_tabs.setCurrentWidget(window.settings_panel)
    scroll = window.settings_panel.findChild(QScrollArea)
    assert scroll is not None
    qtbot.waitUntil(
        lambda: scroll.viewport().width() > 0 and window.settings_panel.isVisible(), timeout=WAIT_MS
    )
    assert window.side_tabs.width() <= 380
    assert scroll.widget().minimumSizeHint().width() <= scroll.viewport().width()
    assert not scroll.horizontalScrollBar().isVisible()
    screenshot(window.side_tabs, "chat_settings_side_panel")
