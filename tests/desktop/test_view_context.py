"""View Context through the real dialog: three columns, badges, scores, near-misses, after restarts."""

from __future__ import annotations

from pathlib import Path

from pytestqt.qtbot import QtBot

from desktop.app import DesktopApp
from desktop.models.context_items import Column, Role
from tests.support.desktop_driver import (
    WAIT_MS,
    ask_with_selection,
    column_rows,
    last_reply,
    open_context,
    screenshot,
)


def test_view_context_shows_three_sorted_columns_with_badges_scores_and_near_misses(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    ask_with_selection(qtbot, desktop)
    dialog = open_context(qtbot, desktop)

    rules = column_rows(dialog, "rule")
    assert ("100", "clear-answers", "Always", "") in rules
    agent_rules = [r for r in rules if r[2] == "Agent"]
    references = column_rows(dialog, "reference")
    assert references[0] == ("010", "python-style", "Agent", references[0][3])
    assert float(references[0][3]) > 0 and len(references[0][3].split(".")[1]) == 2
    assert ("020", "release-notes", "Manual", "") in references
    assert [r[0] for r in references] == sorted(r[0] for r in references)
    tools = column_rows(dialog, "tool")
    assert [t[:3] for t in tools] == [
        ("context.", "read_item", "Always"),  # the catalogue of what selection left out, for the model
        ("workspace.", "current_time", "Always"),
        ("workspace.", "list_files", "Always"),
        ("workspace.", "read_file", "Always"),
        ("workspace.", "search_files", "Always"),
    ]
    # Each agent item either made it with a score or is listed under "Not included" with why.
    misses = dialog.columns["rule"].misses_model.rows() + dialog.columns["reference"].misses_model.rows()  # type: ignore[index]
    chosen = {r[1] for r in agent_rules} | {r[1] for r in references if r[2] == "Agent"}
    assert chosen | {m.ref.name for m in misses} >= {"code-answers", "python-style"}
    assert all(m.reason and m.score is not None for m in misses)
    description = dialog.columns["reference"].items_view.proxy.index(0, 0).data(Role.DESCRIPTION)  # type: ignore[index]
    assert description == "Python coding conventions: naming, typing, tests"
    assert "scripted:x" in dialog.summary.text() and "topK 20" in dialog.summary.text()
    screenshot(dialog, "view_context")
    dialog.close()


def test_a_chat_reopened_after_a_restart_keeps_its_replies_and_their_context(
    qtbot: QtBot, agent_dir: Path
) -> None:
    first = DesktopApp()
    first.start(agent_dir)
    qtbot.waitUntil(lambda: first.window.current_controller() is not None, timeout=WAIT_MS)
    ask_with_selection(qtbot, first)
    chat_id = first.window.current_controller().id  # type: ignore[union-attr]
    first.close()

    (agent_dir / "references" / "release-notes.md").unlink()  # gone while the app was closed

    second = DesktopApp()
    second.start(agent_dir)
    try:
        qtbot.waitUntil(lambda: second.window.current_controller() is not None, timeout=WAIT_MS)
        controller = second.window.current_controller()
        assert controller is not None and controller.id == chat_id
        qtbot.waitUntil(lambda: controller.conversation.rowCount() == 2, timeout=WAIT_MS)
        assert last_reply(second).entry.text == "Use snake_case names and type hints."  # type: ignore[union-attr]
        assert second.window.sessions.rowCount() == 1

        dialog = open_context(qtbot, second)
        proxy = dialog.columns["reference"].items_view.proxy
        removed = [
            proxy.index(r, 0)
            for r in range(proxy.rowCount())
            if proxy.index(r, Column.NAME).data() == "release-notes"
        ]
        assert removed and removed[0].data(Role.REMOVED) is True
        screenshot(dialog, "view_context_after_restart")
        dialog.close()
    finally:
        second.close()


def test_a_recalled_memory_gets_its_own_column_with_its_words_and_reason(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    from agent_core.memory.book import MemoryDraft
    from tests.support.desktop_driver import idle, scripted, send

    workspace = desktop.host.workspace
    assert workspace is not None
    workspace.selector.start_loading()
    qtbot.waitUntil(workspace.selector.model_ready, timeout=60_000)
    book = workspace.memories.book_for(workspace.agent)
    cat = book.add(MemoryDraft("my cat is called Miso")).memory
    book.add(MemoryDraft("our database is PostgreSQL 16"))
    scripted(desktop).enqueue_reply("Your cat is called Miso.")
    send(qtbot, desktop, "what is my cat called?")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)

    dialog = open_context(qtbot, desktop)
    assert "memory" in dialog.columns
    [row] = dialog.columns["memory"].items_model.rows()
    assert row.ref.name == cat.id and row.mode == "agent" and not row.removed
    assert row.title == "my cat is called Miso" and row.description.startswith("matched 'cat'")
    assert "Memories 5" in " ".join(
        label.text() for label in dialog.tokens.findChildren(type(dialog.summary))
    )
    screenshot(dialog, "view_context_memory")


def test_a_rule_that_joined_by_file_glob_shows_which_file_matched(qtbot: QtBot, tmp_path: Path) -> None:
    import asyncio

    from agent_core.agent import load_agent
    from agent_core.agent.scaffold import create_agent
    from agent_core.chat.events import ReplyFinished
    from agent_core.chat.services import ChatServices
    from agent_core.chat.session import ChatSession
    from agent_core.providers.scripted import ScriptedProvider
    from agent_core.store.chats import ChatStore
    from agent_core.tools.runtime import NoTools
    from desktop.dialogs.view_context import ViewContextDialog

    root = tmp_path / "agent"
    create_agent(root)
    (root / "rules" / "react-components.md").write_text(
        '---\ndescription: React component conventions\ninclude: manual\nglobs: ["src/components/**/*.tsx"]\n'
        "---\nFunction components only.\n"
    )
    agent = load_agent(root)
    provider = ScriptedProvider()
    provider.enqueue_reply("Added.")
    services = ChatServices(resolve_provider=lambda model: (provider, "x"), tools=NoTools())
    session = ChatSession.create(agent, ChatStore(tmp_path / "chats.sqlite3"), services)

    async def ask() -> list[object]:
        return [event async for event in session.send("Add a loading state to src/components/Button.tsx")]

    final = asyncio.run(ask())[-1]
    assert isinstance(final, ReplyFinished) and final.message.request_context is not None
    dialog = ViewContextDialog(final.message.request_context, agent)
    qtbot.addWidget(dialog)
    proxy = dialog.columns["rule"].items_view.proxy
    [row] = [r for r in range(proxy.rowCount()) if proxy.index(r, Column.NAME).data() == "react-components"]
    assert proxy.index(row, Column.MODE).data() == "Agent"
    assert proxy.index(row, 0).data(Role.DESCRIPTION) == (
        "Matched file src/components/Button.tsx (glob src/components/**/*.tsx) · React component conventions"
    )
    screenshot(dialog, "view_context_glob_match")
    dialog.close()


def test_a_reply_the_tool_answered_says_no_model_was_called_instead_of_zero_tokens(qtbot: QtBot) -> None:
    from agent_core.context.items import RequestContext, SelectionRun, TokenUsage
    from agent_core.context.provenance import Provenance, ToolUse
    from desktop.dialogs.view_context import ViewContextDialog, usage_text

    answered = Provenance("tool_result", tools=(ToolUse("workspace.read_file", routed=True),))
    context = RequestContext(
        (),
        "local:smollm2-135m-instruct",
        SelectionRun(20, 5, 0.7),
        usage=TokenUsage(without_model=True),
        provenance=answered,
    )
    dialog = ViewContextDialog(context, None)
    qtbot.addWidget(dialog)
    assert (
        "no model call, so no tokens: the tool workspace.read_file answered (its result shown as is)"
        in dialog.summary.text()
    )
    assert "0 in" not in dialog.summary.text()
    # A count the provider did not report is said to be missing, not shown as 0.
    assert usage_text(TokenUsage(input_tokens=1200)) == "tokens 1,200 in, not reported out"
    assert usage_text(TokenUsage()) == ""


def test_show_exact_request_shows_what_the_reply_sent_masked_read_only_and_copyable(
    qtbot: QtBot, desktop: DesktopApp
) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QFontDatabase, QGuiApplication

    from desktop.dialogs.exact_request import NOT_KEPT, ExactRequestDialog
    from tests.support.desktop_driver import idle, scripted, send

    pasted = "sk-proj-abcdefghijklmnopqrstuvwx"
    qtbot.waitUntil(lambda: len(desktop.host.tools.tools()) == 4, timeout=WAIT_MS)  # their schemas are sent
    scripted(desktop).enqueue_reply("I will not keep it.")
    send(qtbot, desktop, f"my API key is {pasted}, keep it safe")
    qtbot.waitUntil(lambda: idle(desktop), timeout=WAIT_MS)
    context_dialog = open_context(qtbot, desktop)
    assert not context_dialog.exact_request_button.isHidden()

    qtbot.mouseClick(context_dialog.exact_request_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: desktop.window.dialogs.last_exact_request_dialog is not None, timeout=WAIT_MS)
    dialog = desktop.window.dialogs.last_exact_request_dialog
    assert isinstance(dialog, ExactRequestDialog)
    qtbot.waitUntil(lambda: dialog.request is not None, timeout=WAIT_MS)
    text = dialog.text.toPlainText()
    sent = scripted(desktop).requests[-1]
    assert sent.messages[0].content in text  # the system prompt with the chat's rules, as sent
    assert "my API key is ***, keep it safe" in text and pasted not in text
    assert "workspace__read_file: Read a text file" in text and '"path"' in text  # a tool's schema
    fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    assert dialog.text.isReadOnly() and dialog.text.font().family() == fixed.family()
    dialog.copy_all()
    assert QGuiApplication.clipboard().text() == text
    screenshot(dialog, "exact_request")
    dialog.close()
    context_dialog.close()

    # A reply saved before requests were kept says so instead of showing nothing.
    old = ExactRequestDialog(desktop.window.bridge, lambda: None)
    qtbot.addWidget(old)
    qtbot.waitUntil(lambda: old.text.toPlainText() == NOT_KEPT, timeout=WAIT_MS)
    assert not old.copy_button.isEnabled()
