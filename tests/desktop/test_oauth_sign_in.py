"""Signing in to an OAuth tool server from the desktop: a dialog shows the whole sign-in URL, and
nothing opens until the user chooses Open in browser; Cancel leaves the server failed with a
"sign in again" reason. The server is built with the SDK's server-side auth (tests/support/oauth_server.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from pytestqt.qtbot import QtBot

from agent_core.mcp import ServerState
from desktop.app import DesktopApp, create_app
from desktop.dialogs.sign_in import SignInDialog
from tests.support.desktop_driver import WAIT_MS, screenshot
from tests.support.memory_keyring import MemoryKeyring
from tests.support.oauth_server import OAuthMcpServer
from tests.support.server_trust import trust_servers


@pytest.fixture
def oauth_server() -> Iterator[OAuthMcpServer]:
    with OAuthMcpServer() as server:
        yield server


class Browser:
    """Stands in for the system's browser: follows the sign-in page's redirect off the GUI thread."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.threads: list[threading.Thread] = []

    def __call__(self, url: str) -> None:
        self.opened.append(url)
        thread = threading.Thread(target=lambda: httpx2.get(url, follow_redirects=True, timeout=10))
        thread.start()
        self.threads.append(thread)


@pytest.fixture
def oauth_app(
    qtbot: QtBot, agent_dir: Path, oauth_server: OAuthMcpServer, memory_keyring: MemoryKeyring
) -> Iterator[tuple[DesktopApp, list[SignInDialog], Browser]]:
    with (agent_dir / "agent.yaml").open("a", encoding="utf-8") as config:
        config.write(f"  remote:\n    type: streamable-http\n    url: {oauth_server.url}\n    oauth: true\n")
    trust_servers(agent_dir)
    create_app()
    app = DesktopApp()
    shown: list[SignInDialog] = []
    browser = Browser()
    app.host.sign_in_asker.asked.connect(shown.append)
    app.host.sign_in_asker.open_url = browser
    app.start(agent_dir)
    yield app, shown, browser
    app.close()
    for thread in browser.threads:
        thread.join(timeout=10)


def status(app: DesktopApp, server: str) -> ServerState | None:
    manager = app.host.mcp
    return None if manager is None else manager.status(server).state


def test_the_sign_in_dialog_shows_the_url_and_opens_it_only_on_choice(
    qtbot: QtBot, oauth_app: tuple[DesktopApp, list[SignInDialog], Browser], oauth_server: OAuthMcpServer
) -> None:
    app, shown, browser = oauth_app
    qtbot.waitUntil(lambda: bool(shown), timeout=WAIT_MS)
    dialog = shown[0]
    assert dialog.isVisible() and dialog.windowTitle() == "Sign in to remote"
    assert dialog.url.toPlainText().startswith(f"{oauth_server.base}/authorize?")
    assert dialog.cancel_button.isDefault() and not dialog.open_button.autoDefault()
    assert browser.opened == []  # nothing opened by itself
    screenshot(dialog, "oauth_sign_in")
    dialog.open_button.click()
    assert browser.opened == [dialog.request.url]
    qtbot.waitUntil(lambda: status(app, "remote") is ServerState.READY, timeout=WAIT_MS)
    assert oauth_server.provider.authorizations == 1


def test_cancelling_the_sign_in_leaves_the_server_failed_with_sign_in_again(
    qtbot: QtBot, oauth_app: tuple[DesktopApp, list[SignInDialog], Browser], oauth_server: OAuthMcpServer
) -> None:
    app, shown, browser = oauth_app
    qtbot.waitUntil(lambda: bool(shown), timeout=WAIT_MS)
    shown[0].cancel_button.click()
    qtbot.waitUntil(lambda: status(app, "remote") is ServerState.FAILED, timeout=WAIT_MS)
    manager = app.host.mcp
    assert manager is not None
    reason = manager.status("remote").reason or ""
    assert "was cancelled" in reason and "sign in again" in reason
    assert browser.opened == [] and oauth_server.provider.authorizations == 0
