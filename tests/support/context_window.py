"""The context-window desktop tests' shared steps: the chat's controller, its context settings,
a question answered by the scripted provider, and the gauge's figures."""

from __future__ import annotations

from typing import Any

from pytestqt.qtbot import QtBot

from agent_core.context.items import ContextManifest
from desktop.app import DesktopApp
from desktop.controllers.chat_controller import ChatController
from desktop.views.summary_widget import SummaryWidget
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send

WORDS = " ".join(f"w{i}" for i in range(30))  # 30 tokens for the scripted (word) counter


def controller_of(app: DesktopApp) -> ChatController:
    controller = app.window.current_controller()
    assert controller is not None
    return controller


def override_context(qtbot: QtBot, app: DesktopApp, **values: Any) -> None:
    controller = controller_of(app)
    controller.override_settings(context=values)
    qtbot.waitUntil(
        lambda: all(getattr(controller.session.context_settings, k) == v for k, v in values.items()),
        timeout=WAIT_MS,
    )


def tools_ready(qtbot: QtBot, app: DesktopApp) -> None:
    """Tool schemas count towards the window: wait for the server so every request has them."""
    qtbot.waitUntil(lambda: len(app.host.tools.tools()) == 4, timeout=WAIT_MS)


def ask(qtbot: QtBot, app: DesktopApp, text: str, reply: str) -> None:
    controller = controller_of(app)
    before = controller.conversation.rowCount()
    scripted(app).enqueue_reply(reply)
    send(qtbot, app, text)
    qtbot.waitUntil(lambda: idle(app) and controller.conversation.rowCount() >= before + 2, timeout=WAIT_MS)


def gauge_estimate(qtbot: QtBot, app: DesktopApp) -> ContextManifest:
    """The gauge's figure once a reply is done: what the next request would send (estimated
    after each reply from its request's figures and the history now)."""
    controller = controller_of(app)
    qtbot.waitUntil(lambda: controller.next_request_estimate is not None, timeout=WAIT_MS)
    estimate = controller.next_request_estimate
    assert estimate is not None and not estimate.exact
    return estimate


def last_total(app: DesktopApp) -> int:
    context = controller_of(app).session_context_of_last_reply()
    assert context is not None and context.manifest is not None
    return context.manifest.total_tokens


def summary_widgets(app: DesktopApp) -> list[SummaryWidget]:
    view = app.window.current_view()
    assert view is not None
    return [w for w in view.conversation.widgets() if isinstance(w, SummaryWidget)]
