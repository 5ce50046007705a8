"""The sampling requests of one reply as a table, fed stored records directly, without a view."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.context.items import SamplingRecord, TokenUsage
from desktop.models.sampling_records import SamplingRecordsModel, record_details

ANSWERED = SamplingRecord(
    call_id="c1",
    server="everything",
    tool="trigger-sampling-request",
    system_prompt="You are a helpful test server.",
    prompt="user: name a colour",
    max_tokens=100,
    outcome="answered",
    approval="allowed_once",
    model="local:small",
    answer="Teal.",
    usage=TokenUsage(31, 2),
    elapsed_seconds=1.25,
)
REFUSED = SamplingRecord(
    call_id="c2",
    server="everything",
    tool="trigger-sampling-request",
    system_prompt="",
    prompt="user: more",
    max_tokens=20,
    outcome="refused",
    note="over samplingTokensPerMinute",
)


def test_each_request_is_a_row_saying_who_asked_how_it_ended_and_its_tokens(qtbot: QtBot) -> None:
    model = SamplingRecordsModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    model.set_records((ANSWERED, REFUSED))
    rows = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]
    assert rows == [
        [
            "everything",
            "everything.trigger-sampling-request",
            "Answered (allowed once)",
            "local:small",
            "31 in, 2 out",
            "1.2 s",
        ],
        ["everything", "everything.trigger-sampling-request", "Refused (cap)", "—", "—", "0.0 s"],
    ]
    assert model.index(1, 2).data(Qt.ItemDataRole.ToolTipRole) == "over samplingTokensPerMinute"
    assert model.record_at(0) is ANSWERED and model.record_at(5) is None


def test_the_details_say_what_was_sent_and_what_came_back() -> None:
    details = record_details(ANSWERED)
    assert "You are a helpful test server." in details and "user: name a colour" in details
    assert "Answer (local:small):\nTeal." in details
    assert "Answer" not in record_details(REFUSED) and "Note: over samplingTokensPerMinute" in record_details(
        REFUSED
    )
