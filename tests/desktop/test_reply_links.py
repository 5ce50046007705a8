"""Links in text the app shows: a reply, a tool result or a skill is untrusted, so only web links
open another program; any other scheme is not followed and the user is told why. The
documentation follows links between its own pages."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from desktop.dialogs.help import HelpDialog
from desktop.views.common import MarkdownView, not_opened_words


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What would have been handed to the system's handlers (nothing is opened for real)."""
    urls: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: urls.append(url.toString()) or True)
    return urls


def test_only_web_links_of_a_reply_open_another_program(qtbot: QtBot, opened: list[str]) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown(
        "See [the docs](https://example.org/a), [mail](mailto:me@example.org), "
        "[a fix](ms-msdt:/id PCWDiagnostic), [spec](crypto-spec), [key](file:///etc/passwd)"
    )
    refused: list[str] = []
    view.link_refused.connect(lambda url: refused.append(url.toString()))
    for link in (
        "https://example.org/a",
        "mailto:me@example.org",
        "ms-msdt:/id PCWDiagnostic",
        "crypto-spec",
    ):
        view.anchorClicked.emit(QUrl(link))
    assert opened == ["https://example.org/a", "mailto:me@example.org"]
    assert [QUrl(u).scheme() for u in refused] == ["ms-msdt", ""]
    # markdown-it already makes no link of a file: one: its text stays, as text.
    assert 'href="file:' not in view.toHtml() and "[key](file:///etc/passwd)" in view.toPlainText()


def test_a_link_not_followed_says_what_it_was_and_what_to_do() -> None:
    words = not_opened_words(QUrl("smb://host/share"))
    assert "Not opened" in words and "smb://host/share" in words and "copy it" in words


def test_the_copy_links_above_code_blocks_still_copy(qtbot: QtBot, opened: list[str]) -> None:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.set_markdown("```python\nprint('hi')\n```")
    view.anchorClicked.emit(QUrl("copy:0"))
    clipboard = QApplication.clipboard()
    assert clipboard is not None and clipboard.text() == "print('hi')"
    assert opened == []


def test_the_documentation_follows_links_between_its_pages(qtbot: QtBot, opened: list[str]) -> None:
    dialog = HelpDialog()
    qtbot.addWidget(dialog)
    titles = [dialog.pages.item(i).text() for i in range(dialog.pages.count())]
    dialog.view.anchorClicked.emit(QUrl("selection.md#indexing-in-tiers"))
    assert dialog.pages.currentRow() == titles.index("How context is chosen")
    assert "Indexing in tiers" in dialog.view.markdown()
    dialog.view.anchorClicked.emit(QUrl("../agent_core/context/selection.py"))  # not a page: stays
    assert dialog.pages.currentRow() == titles.index("How context is chosen")
    assert opened == []


def test_in_the_main_window_a_link_not_followed_is_also_said_in_the_status_bar(
    qtbot: QtBot, opened: list[str]
) -> None:
    from PySide6.QtWidgets import QMainWindow

    window = QMainWindow()
    qtbot.addWidget(window)
    view = MarkdownView()
    window.setCentralWidget(view)
    view.set_markdown("[a fix](ms-msdt:/id PCWDiagnostic)")
    view.anchorClicked.emit(QUrl("ms-msdt:/id PCWDiagnostic"))
    assert window.statusBar().currentMessage() == not_opened_words(QUrl("ms-msdt:/id PCWDiagnostic"))
    assert opened == []
