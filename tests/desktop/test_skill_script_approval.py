"""The approval card of a skill's script: the command line and what is isolated in the question,
and no "Allow for this chat" (every run is asked about), not even through Ctrl+Enter."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.chat.events import ApprovalDecision, ApprovalRequest, UserMessageSaved
from agent_core.store.chats import StoredMessage
from desktop.models.conversation import ConversationModel
from desktop.views.approval_widget import ApprovalWidget

TARGET = (
    "as the command line: /usr/bin/python3 /agents/a/skills/pdf/scripts/fill.py 'my form.pdf' — "
    "in ~/proj, for at most 60 s, with no API keys in its environment. NOT sandboxed: bubblewrap is "
    "not installed; the script can use the network and write anywhere you can"
)


def test_a_script_run_card_shows_the_command_and_offers_only_once_or_deny(qtbot: QtBot) -> None:
    async def requests() -> ConversationModel:
        model = ConversationModel()
        user = StoredMessage(
            id=1, session_id="s", role="user", content="fill it", status="complete", created_at=0.0
        )
        model.apply(UserMessageSaved(user))
        arguments = {"name": "pdf", "script": "scripts/fill.py", "args": ["my form.pdf"]}
        model.apply(ApprovalRequest("c1", "skills", "run_script", arguments, target=TARGET, every_call=True))
        model.apply(ApprovalRequest("c2", "workspace", "read_file", {"path": "a.md"}))
        return model

    model = asyncio.run(requests())
    rows = [model.entry(r) for r in range(model.rowCount()) if model.entry(r).kind == "approval"]
    script, plain = (ApprovalWidget(entry) for entry in rows)
    for widget in (script, plain):
        qtbot.addWidget(widget)
    assert "fill.py &#x27;my form.pdf&#x27;" in script.question.text()
    assert "NOT sandboxed: bubblewrap is not installed" in script.question.text()
    assert script.allow_chat.isHidden() and not script.allow_once.isHidden()
    assert not plain.allow_chat.isHidden()
    with qtbot.waitSignal(script.decided, timeout=5_000) as decided:
        qtbot.keyClick(script, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert decided.args == [ApprovalDecision.ALLOW_ONCE]
