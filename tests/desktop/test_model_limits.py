"""Before /compact runs on a model that cannot summarize reliably, the chat says so in one line
and offers the choice (run anyway, pick another model) without blocking; run anyway, the note is
checked facts, and the gauge gives the same measure before and after. The model is the scripted
provider set up as a small model (``toolCalling: none``), as the bundled one is."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp, create_app
from desktop.dialogs.model_limit import ModelLimitPrompt
from desktop.views.summary_widget import SummaryWidget
from tests.support.desktop_driver import WAIT_MS, idle, screenshot, scripted, send

WORDS = " ".join(f"w{i}" for i in range(30))


def small_model_agent(agent_dir: Path) -> Path:
    config = agent_dir / "agent.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace("  scripted: {}", "  scripted: {options: {toolCalling: none}}"), encoding="utf-8"
    )
    return agent_dir


@contextmanager
def small_model_app(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    """The app on ``agent_dir`` made a small-model agent, its first chat open; closed after."""
    create_app()
    app = DesktopApp()
    app.start(small_model_agent(agent_dir))
    try:
        qtbot.waitUntil(lambda: app.window.current_controller() is not None, timeout=WAIT_MS)
        yield app
    finally:
        app.close()


def ask(qtbot: QtBot, app: DesktopApp, text: str, reply: str) -> None:
    controller = app.window.current_controller()
    assert controller is not None
    before = controller.conversation.rowCount()
    scripted(app).enqueue_reply(reply)
    send(qtbot, app, text)
    qtbot.waitUntil(lambda: idle(app) and controller.conversation.rowCount() >= before + 2, timeout=WAIT_MS)


def test_compact_on_a_small_model_asks_first_and_then_keeps_checked_facts(
    qtbot: QtBot, agent_dir: Path
) -> None:
    with small_model_app(qtbot, agent_dir) as app:
        controller = app.window.current_controller()
        view = app.window.current_view()
        assert controller is not None and view is not None
        controller.override_settings(context={"keep_recent_turns": 1, "auto_compact": False})
        qtbot.waitUntil(lambda: controller.session.context_settings.keep_recent_turns == 1, timeout=WAIT_MS)
        ask(qtbot, app, f"We decided to ship Bluefin 0.9.2 on Friday. {WORDS}", f"Noted. {WORDS} {WORDS}")
        ask(qtbot, app, f"Remember to ask Tomasz about the signing key. {WORDS}", f"Sure. {WORDS}")
        ask(qtbot, app, "Anything else?", "No.")

        send(qtbot, app, "/compact")
        qtbot.waitUntil(lambda: view.model_limit_prompt is not None, timeout=WAIT_MS)
        prompt = view.model_limit_prompt
        assert isinstance(prompt, ModelLimitPrompt) and prompt.isVisible()
        assert prompt.text() == (
            "scripted:x does not choose its own tools: it may not write a faithful summary; the summary "
            "will be built from facts found in the messages, which are kept."
        )
        assert not controller.compacting  # nothing runs while the user decides
        screenshot(prompt, "model_limit_prompt")

        prompt.pick_button.click()
        assert "choose another model" in view.inline_error.text()
        assert not [w for w in view.conversation.widgets() if isinstance(w, SummaryWidget)]

        send(qtbot, app, "/compact")
        qtbot.waitUntil(
            lambda: view.model_limit_prompt is not None and view.model_limit_prompt is not prompt,
            timeout=WAIT_MS,
        )
        view.model_limit_prompt.run_button.click()  # type: ignore[union-attr]
        qtbot.waitUntil(
            lambda: any(isinstance(w, SummaryWidget) for w in view.conversation.widgets()), timeout=WAIT_MS
        )
        qtbot.waitUntil(lambda: controller.estimate_before_compaction is not None, timeout=WAIT_MS)
        marker = next(w for w in view.conversation.widgets() if isinstance(w, SummaryWidget))
        body = marker.body.markdown()
        assert "facts taken from messages" in body
        assert "We decided to ship Bluefin 0.9.2 on Friday." in body and "Tomasz" in body
        scripted(app).assert_all_used()  # the model was not asked for the summary

        after, before = controller.next_request_estimate, controller.estimate_before_compaction
        assert after is not None and before is not None and after.total_tokens < before.total_tokens
        caption = app.window.context_panel.gauge.caption.text()
        assert caption.startswith(
            f"About {after.total_tokens:,} of {after.budget:,} tokens for the next message,"
        )
        assert (
            f"{before.total_tokens:,} ({before.used_share:.0%}) before compacting (both estimated the same way"
            in caption
        )
        screenshot(app.window, "compaction_from_facts")
        qtbot.mouseClick(marker.undo_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: controller.estimate_before_compaction is None, timeout=WAIT_MS)


def test_compact_with_nothing_to_compact_says_so_without_a_word_about_the_model(
    qtbot: QtBot, agent_dir: Path
) -> None:
    with small_model_app(qtbot, agent_dir) as app:
        controller = app.window.current_controller()
        view = app.window.current_view()
        assert controller is not None and view is not None
        ask(qtbot, app, "Hello there", "Hi.")
        before = controller.conversation.rowCount()
        send(qtbot, app, "/compact")
        qtbot.waitUntil(lambda: controller.conversation.rowCount() > before, timeout=WAIT_MS)
        notice = controller.conversation.index(controller.conversation.rowCount() - 1, 0).data()
        assert "Nothing to compact yet" in str(notice)
        assert view.model_limit_prompt is None


def test_a_workflow_run_on_a_small_model_waits_for_the_answer(qtbot: QtBot, agent_dir: Path) -> None:
    from tests.support.desktop_workflows import WRITE, run_ended, start_write_run, workflows_tab

    (agent_dir / "workflows").mkdir()
    (agent_dir / "workflows" / "write.yaml").write_text(WRITE, encoding="utf-8")
    (agent_dir / "workflows" / "other.yaml").write_text(WRITE, encoding="utf-8")
    with small_model_app(qtbot, agent_dir) as app:
        _, panel = workflows_tab(qtbot, app)
        declined = start_write_run(qtbot, panel)
        qtbot.waitUntil(lambda: declined.model_limit_prompt is not None, timeout=WAIT_MS)
        prompt = declined.model_limit_prompt
        assert prompt is not None and prompt.isVisible()
        assert prompt.text().startswith(
            "scripted:x does not choose its own tools: it may not give each workflow step"
        )
        assert declined.model.rowCount() == 0  # no state runs while the user decides
        prompt.pick_button.click()
        qtbot.waitUntil(lambda: "could not run" in declined.heading.text(), timeout=WAIT_MS)
        assert declined.status.text().startswith("Not run: pick another model")

        scripted(app).enqueue_reply('{"points": ["leaves", "water"]}')
        scripted(app).enqueue_reply("Green tea is brewed from leaves and water.")
        accepted = start_write_run(qtbot, panel)
        qtbot.waitUntil(lambda: accepted.model_limit_prompt is not None, timeout=WAIT_MS)
        accepted.model_limit_prompt.run_button.click()  # type: ignore[union-attr]
        qtbot.waitUntil(lambda: run_ended(accepted), timeout=WAIT_MS)
        assert accepted.record is not None and accepted.record.store["text"].startswith("Green tea")


def test_a_sub_agent_test_run_on_a_small_model_waits_for_the_answer(qtbot: QtBot, agent_dir: Path) -> None:
    from tests.support.agent_files import RESEARCHER
    from tests.support.desktop_driver import open_manager

    (agent_dir / "subagents").mkdir()
    (agent_dir / "subagents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    with small_model_app(qtbot, agent_dir) as app:
        panel = open_manager(qtbot, app, "Sub-agents").subagents
        qtbot.waitUntil(lambda: panel.model.rowCount() == 1, timeout=WAIT_MS)
        panel.table.selectRow(0)
        qtbot.waitUntil(lambda: "name: researcher" in panel.editor.toPlainText(), timeout=WAIT_MS)
        panel.task.setText("When is the launch?")
        qtbot.waitUntil(panel.run_button.isEnabled, timeout=WAIT_MS)
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.model_limit_prompt is not None, timeout=WAIT_MS)
        first = panel.model_limit_prompt
        assert first is not None and "may describe files it never read" in first.text()
        first.pick_button.click()
        assert "researcher was not run: pick another model" in panel.run_status.text()
        assert panel.run_button.isEnabled()

        scripted(app).enqueue_reply("The launch is on Friday.")
        qtbot.mouseClick(panel.run_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: panel.model_limit_prompt is not first, timeout=WAIT_MS)
        panel.model_limit_prompt.run_button.click()  # type: ignore[union-attr]
        qtbot.waitUntil(lambda: panel.result.toPlainText() == "The launch is on Friday.", timeout=WAIT_MS)
