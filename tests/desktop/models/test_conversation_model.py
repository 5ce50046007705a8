"""The transcript model, fed chat events directly: no view, no event loop beyond Qt's."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.chat.events import (
    APP_ORIGIN,
    ApprovalDecision,
    ApprovalRequest,
    ContextBuilt,
    PromptProgress,
    ReplyDelta,
    ReplyFinished,
    RequestSent,
    ToolCallFinished,
    ToolCallStarted,
    TurnSaved,
    UserMessageSaved,
)
from agent_core.context.items import (
    ContextManifest,
    ItemRef,
    ManifestPart,
    RequestContext,
    RequestItem,
    SelectionRun,
    TokenUsage,
)
from agent_core.store.chats import StoredMessage, ToolCallRecord
from desktop.models.conversation import ConversationModel
from desktop.models.conversation_entries import Role

CONTEXT = RequestContext(
    items=(RequestItem(ItemRef("rule", "style"), "always"),),
    model="scripted:x",
    selection=SelectionRun(20, 5, 0.7),
)


def message(id: int, role: str, content: str, status: str = "complete", **kw: object) -> StoredMessage:
    return StoredMessage(
        id=id, session_id="s", role=role, content=content, status=status, created_at=0.0, **kw
    )  # type: ignore[arg-type]


@pytest.fixture
def model(qtbot: QtBot) -> ConversationModel:
    model = ConversationModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    return model


def kinds(model: ConversationModel) -> list[str]:
    return [model.index(r, 0).data(Role.KIND) for r in range(model.rowCount())]


def test_streamed_deltas_grow_one_assistant_row_that_carries_the_request_context(
    model: ConversationModel, qtbot: QtBot
) -> None:
    model.apply(UserMessageSaved(message(1, "user", "hi")))
    model.apply(ContextBuilt(CONTEXT))
    with qtbot.waitSignal(model.dataChanged, timeout=1000):
        model.apply(ReplyDelta("Hel"))
    model.apply(ReplyDelta("lo"))
    assert model.is_streaming
    assert model.index(1, 0).data(Role.TEXT) == "Hello"
    assert model.index(1, 0).data(Role.STATUS) == "streaming"
    model.apply(ReplyFinished(message(2, "assistant", "Hello", request_context=CONTEXT)))
    assert kinds(model) == ["user", "assistant"]
    assert model.index(1, 0).data(Role.STATUS) == "complete"
    assert model.index(1, 0).data(Role.CONTEXT) is CONTEXT
    assert model.last_context_row() == 1 and not model.is_streaming


def test_a_tool_turn_shows_approval_and_call_rows_then_the_final_reply() -> None:
    async def run() -> ConversationModel:
        model = ConversationModel()
        QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
        model.apply(UserMessageSaved(message(1, "user", "read it")))
        model.apply(ContextBuilt(CONTEXT))
        model.apply(ReplyDelta("Let me look."))
        request = ApprovalRequest("c1", "files", "read", {"path": "a.md"})
        model.apply(request)
        model.decide(2, ApprovalDecision.ALLOW_ONCE)
        model.decide(2, ApprovalDecision.DENY)  # only the first answer counts
        assert await request.wait() is ApprovalDecision.ALLOW_ONCE
        model.apply(ToolCallStarted("c1", "files", "read", {"path": "a.md"}))
        record = ToolCallRecord("c1", "files", "read", {"path": "a.md"}, result="text", elapsed_seconds=0.2)
        model.apply(ToolCallFinished(record))
        turn = message(2, "assistant", "Let me look.", tool_calls=(record,), request_context=CONTEXT)
        model.apply(TurnSaved(turn))
        model.apply(ReplyDelta("It says text."))
        model.apply(ReplyFinished(message(3, "assistant", "It says text.", request_context=CONTEXT)))
        return model

    model = asyncio.run(run())
    assert kinds(model) == ["user", "assistant", "approval", "tool_call", "assistant"]
    assert model.index(1, 0).data(Role.TEXT) == "Let me look."
    assert model.index(2, 0).data(Role.STATUS) == "allow_once"
    assert model.index(3, 0).data(Role.STATUS) == "done"
    assert model.index(3, 0).data(Role.TOOL_CALL).result == "text"
    assert model.index(4, 0).data(Role.TEXT) == "It says text."


def test_an_empty_reply_row_before_a_tool_call_is_dropped(model: ConversationModel) -> None:
    model.apply(ContextBuilt(CONTEXT))
    model.apply(ToolCallStarted("c1", "files", "read", {}))
    assert kinds(model) == ["tool_call"]


def test_a_provider_failure_before_any_reply_becomes_an_error_row(model: ConversationModel) -> None:
    model.apply(ContextBuilt(CONTEXT))
    model.apply(
        ReplyFinished(message(5, "error", "No API key: add it in Providers", status="error", error="x"))
    )
    assert kinds(model) == ["error"]


def test_stopping_marks_the_open_reply_and_unanswered_approvals() -> None:
    async def run() -> ConversationModel:
        model = ConversationModel()
        model.apply(ContextBuilt(CONTEXT))
        model.apply(ReplyDelta("part"))
        model.mark_stopped()
        model.apply(ApprovalRequest("c2", "s", "t", {}))
        model.mark_stopped()
        return model

    model = asyncio.run(run())
    assert [model.index(r, 0).data(Role.STATUS) for r in range(2)] == ["cancelled", "cancelled"]


MANIFEST = ContextManifest(8192, "table", 512, "scripted tokenizer", True, (ManifestPart("message", 120),))
SENT = replace(CONTEXT, manifest=MANIFEST)


def test_a_sent_request_gives_the_reply_row_its_costs_and_a_stop_keeps_them(model: ConversationModel) -> None:
    model.apply(UserMessageSaved(message(1, "user", "hi")))
    model.apply(ContextBuilt(CONTEXT))
    assert model.last_measured_context() == CONTEXT  # no costs yet: the newest context all the same
    model.apply(RequestSent(message(2, "assistant", "", status="streaming", request_context=SENT)))
    assert model.index(1, 0).data(Role.CONTEXT) == SENT
    model.apply(ReplyDelta("Once upon"))

    assert model.mark_stopped() == 2  # the stopped reply's saved message, to read its counts back
    row = model.index(1, 0)
    assert (row.data(Role.STATUS), row.data(Role.MESSAGE_ID)) == ("cancelled", 2)
    counted = replace(SENT, usage=TokenUsage(120, 2, estimated=True))
    model.set_saved_context(message(2, "assistant", "Once upon", "cancelled", request_context=counted))
    assert row.data(Role.CONTEXT) == counted and model.last_measured_context() == counted


def test_the_gauge_keeps_the_last_known_costs_when_a_reply_stops_before_its_request(
    model: ConversationModel,
) -> None:
    model.apply(UserMessageSaved(message(1, "user", "hi")))
    model.apply(ContextBuilt(CONTEXT))
    model.apply(RequestSent(message(2, "assistant", "", status="streaming", request_context=SENT)))
    model.apply(ReplyFinished(message(2, "assistant", "Hello", request_context=SENT)))
    model.apply(UserMessageSaved(message(3, "user", "and?")))
    model.apply(ContextBuilt(CONTEXT))  # stopped while the model loads: no request went out
    assert model.mark_stopped() is None
    assert model.last_measured_context() == SENT


def test_saved_history_loads_with_tool_calls_and_statuses(model: ConversationModel) -> None:
    denied = ToolCallRecord(
        "c1", "s", "t", {}, result="The user denied this tool call.", is_error=True, approval="denied"
    )
    model.load(
        [
            message(1, "user", "q"),
            message(2, "assistant", "", tool_calls=(denied,), request_context=CONTEXT),
            message(
                3, "assistant", "partial text", status="partial", request_context=CONTEXT, error="dropped"
            ),
        ]
    )
    assert kinds(model) == ["user", "tool_call", "assistant"]
    assert model.index(1, 0).data(Role.STATUS) == "denied"
    assert model.index(2, 0).data(Role.STATUS) == "partial"
    assert model.index(2, 0).data(Role.ERROR) == "dropped"


def test_a_replys_tool_calls_are_every_turns_own_with_a_denied_one_as_denied(
    model: ConversationModel,
) -> None:
    first = ToolCallRecord("c1", "fs", "list", {}, "a.md", elapsed_seconds=0.1)
    denied = ToolCallRecord("c2", "fs", "read", {"path": "a.md"}, "denied", is_error=True, approval="denied")
    failed = ToolCallRecord("c3", "fs", "read", {"path": "b.md"}, "no such file", True, elapsed_seconds=0.1)
    model.load(
        [
            message(1, "user", "what is in my folder?"),
            message(2, "assistant", "", tool_calls=(first,), request_context=CONTEXT),
            message(3, "assistant", "Let me read it.", tool_calls=(denied,), request_context=CONTEXT),
            message(4, "assistant", "You did not let me.", request_context=CONTEXT),
            message(5, "user", "then b.md"),
            message(6, "assistant", "", tool_calls=(failed,), request_context=CONTEXT),
            message(7, "assistant", "It is missing.", request_context=CONTEXT),
        ]
    )
    calls = model.tool_calls_of_reply(4)
    assert [(c.record.id, c.status, c.status_text) for c in calls] == [
        ("c1", "done", "done"),
        ("c2", "denied", "denied by you"),
    ]
    assert [(c.record.id, c.status) for c in model.tool_calls_of_reply(3)] == [
        ("c1", "done"),
        ("c2", "denied"),
    ]
    assert [(c.record.id, c.status) for c in model.tool_calls_of_reply(7)] == [("c3", "failed")]
    assert model.tool_calls_of_reply(99) == []


def test_a_summary_from_history_sits_after_the_messages_it_covers_and_dims_them(
    model: ConversationModel,
) -> None:
    call = ToolCallRecord("c1", "fs", "read", {}, "text", elapsed_seconds=0.1)
    model.load(
        [
            message(1, "user", "first"),
            message(2, "assistant", "", tool_calls=(call,)),
            message(3, "user", "second"),
            message(4, "assistant", "answer"),
            message(5, "summary", "so far", covers_until=2),
        ]
    )
    kinds = [(e.kind, e.dimmed) for e in model.entries()]
    assert kinds == [
        ("user", True),
        ("tool_call", True),
        ("summary", False),
        ("user", False),
        ("assistant", False),
    ]
    summary = model.entry(2)
    assert summary.covered == 1 and summary.message is not None and model.data(model.index(0, 0), Role.DIMMED)


def test_a_live_summary_is_inserted_in_place_and_an_edit_updates_it(model: ConversationModel) -> None:
    from dataclasses import replace

    model.apply(UserMessageSaved(message(1, "user", "a")))
    model.apply(ReplyFinished(message(2, "assistant", "b")))
    model.apply(UserMessageSaved(message(3, "user", "c")))
    row = model.add_summary(message(4, "summary", "note", covers_until=2), automatic=True)
    # The last row is the reply being made for "c" (it says what it waits for).
    assert row == 2 and [e.dimmed for e in model.entries()] == [True, True, False, False, False]
    assert model.entry(2).automatic and model.entry(2).covered == 2
    stored = model.entry(2).message
    assert stored is not None
    model.update_summary(replace(stored, content="edited"))
    assert model.entry(2).text == "edited"
    # A newer summary covering more dims the older one too.
    model.add_summary(message(5, "summary", "newer", covers_until=3), automatic=False)
    assert [(e.kind, e.dimmed) for e in model.entries()] == [
        ("user", True),
        ("assistant", True),
        ("summary", True),
        ("user", True),
        ("summary", False),
        ("assistant", False),
    ]


def test_a_running_workflow_call_says_where_it_is_until_it_ends(model: ConversationModel) -> None:
    from agent_core.chat.events import WorkflowProgress

    model.apply(ContextBuilt(CONTEXT))
    model.apply(ToolCallStarted("w1", "workflows", "triage", {"report": "x"}))
    model.apply(WorkflowProgress("w1", "triage", "r1", "classify", "started", 0))
    assert model.entry(0).activity == "state classify · 0 done"
    model.apply(WorkflowProgress("w1", "triage", "r1", "classify", "done", 1))
    model.apply(WorkflowProgress("w1", "triage", "r1", "owner", "started", 1, item={"area": "billing"}))
    assert model.entry(0).activity == "state owner ({'area': 'billing'}) · 1 done"
    model.apply(ToolCallFinished(ToolCallRecord("w1", "workflows", "triage", {}, "{}", False)))
    assert (model.entry(0).status, model.entry(0).activity) == ("done", "")


def test_a_reply_says_what_it_waits_for_until_its_first_words(model: ConversationModel) -> None:
    from desktop.models.conversation_entries import CHOOSING_CONTEXT, WAITING_FOR_MODEL

    model.apply(UserMessageSaved(message(1, "user", "hello")))
    assert kinds(model) == ["user", "assistant"] and model.entry(1).activity == CHOOSING_CONTEXT
    model.note_waiting("Waiting for the index: 512 of 4,000 chunks…", before_context=True)
    assert model.entry(1).activity.startswith("Waiting for the index")
    model.apply(ContextBuilt(CONTEXT))
    assert model.entry(1).activity == WAITING_FOR_MODEL and model.entry(1).context == CONTEXT
    model.note_waiting("Waiting for the index: 1,024 of 4,000 chunks…", before_context=True)
    assert model.entry(1).activity == WAITING_FOR_MODEL  # the context is chosen: the index is not waited for
    model.apply(ReplyDelta("Hi"))
    assert (model.entry(1).text, model.entry(1).activity) == ("Hi", "")


def test_a_reply_says_how_far_the_model_has_read_the_prompt_counting_only_new_tokens(
    model: ConversationModel,
) -> None:
    model.apply(UserMessageSaved(message(1, "user", "hello")))
    model.apply(ContextBuilt(CONTEXT))
    model.apply(PromptProgress(256, 3000))
    assert model.entry(1).activity == "Processing the prompt: 256 of 3,000 tokens…"
    model.apply(PromptProgress(512, 1024, cached=2900))
    assert model.entry(1).activity == "Processing the prompt: 512 of 1,024 new tokens (2,900 cached)…"
    model.apply(ReplyDelta("Hi"))
    assert model.entry(1).activity == ""


def test_retries_share_one_line_that_goes_when_the_reply_comes_or_fails(model: ConversationModel) -> None:
    from agent_core.chat.events import RetryScheduled
    from agent_core.errors import ProviderError

    busy = ProviderError("The provider is overloaded (HTTP 529).")
    model.apply(UserMessageSaved(message(1, "user", "hi")))
    for attempt in range(3):
        model.apply(RetryScheduled(attempt, 2.0 * (attempt + 1), busy))
    notices = [r for r in range(model.rowCount()) if model.index(r, 0).data(Role.KIND) == "notice"]
    assert len(notices) == 1  # folded: not a line per attempt
    assert model.index(notices[0], 0).data(Role.TEXT).endswith("Trying again in 6 s (attempt 3).")
    model.apply(ReplyFinished(message(2, "assistant", "Hello")))
    assert kinds(model) == ["user", "assistant"]  # the reply came: "trying again" is gone

    model.apply(UserMessageSaved(message(3, "user", "again")))
    model.apply(RetryScheduled(0, 1.0, busy))
    model.apply(ReplyFinished(message(4, "error", "The provider is overloaded (HTTP 529).", status="error")))
    assert kinds(model) == ["user", "assistant", "user", "error"]  # the error row alone says it


def test_a_sampling_question_still_open_when_its_tool_call_ends_no_longer_asks() -> None:
    from agent_core.chat.events import SamplingAnswered
    from agent_core.context.items import SamplingRecord
    from agent_core.sampling_router import SamplingMessage, SamplingRequest

    async def run() -> ConversationModel:
        model = ConversationModel()
        model.apply(ContextBuilt(CONTEXT))
        model.apply(ToolCallStarted("c1", "srv", "slow", {}))
        asked = SamplingRequest("srv", (SamplingMessage("user", "hi"),), max_tokens=10)
        model.apply(ApprovalRequest("c1", "srv", "slow", {}, sampling=asked))
        refused = SamplingRecord("c1", "srv", "slow", "", "user: hi", 10, "denied", "denied")
        model.apply(SamplingAnswered(refused))
        model.apply(ToolCallFinished(ToolCallRecord("c1", "srv", "slow", {}, "timed out", True)))
        return model

    model = asyncio.run(run())
    statuses = {
        model.index(r, 0).data(Role.KIND): model.index(r, 0).data(Role.STATUS)
        for r in range(model.rowCount())
    }
    assert statuses["approval"] == "expired" and statuses["tool_call"] == "failed"


def test_an_approval_card_shows_the_caution_its_request_carries(qtbot: QtBot) -> None:
    from desktop.views.approval_widget import ApprovalWidget

    async def run() -> ConversationModel:
        model = ConversationModel()
        model.apply(UserMessageSaved(message(1, "user", "tidy my notes")))
        model.apply(
            ApprovalRequest(
                "c1",
                "notes",
                "delete_note",
                {"name": "todo"},
                caution="Its server marks this tool destructive.",
            )
        )
        model.apply(ApprovalRequest("c2", "notes", "write_note", {"name": "todo"}))
        return model

    model = asyncio.run(run())
    rows = [model.entry(r) for r in range(model.rowCount()) if model.entry(r).kind == "approval"]
    cautious, plain = (ApprovalWidget(entry) for entry in rows)
    for widget in (cautious, plain):
        qtbot.addWidget(widget)
    assert not cautious.caution.isHidden() and "destructive" in cautious.caution.text()
    assert plain.caution.isHidden()


def test_allowing_a_tool_for_the_chat_answers_its_other_waiting_questions() -> None:
    """A view's calls come several at once: one "Allow for this chat" answers them all (only the
    same tool asked by the same asker)."""

    async def run() -> tuple[ConversationModel, list[ApprovalDecision | None]]:
        model = ConversationModel()
        asked = [
            ApprovalRequest("v1", "monitor", "poll", {}, origin=APP_ORIGIN),
            ApprovalRequest("v2", "monitor", "poll", {}, origin=APP_ORIGIN),
            ApprovalRequest("v3", "monitor", "other", {}, origin=APP_ORIGIN),
            ApprovalRequest("m1", "monitor", "poll", {}),
        ]
        for request in asked:
            model.apply(request)
        model.decide(0, ApprovalDecision.ALLOW_FOR_CHAT)
        answered = [await asked[0].wait(), await asked[1].wait()]
        # decide() hands each answer to the loop in order: by now any other would have landed too.
        return model, answered + [None for r in asked[2:] if not r.decided]

    model, answers = asyncio.run(run())
    assert answers == [ApprovalDecision.ALLOW_FOR_CHAT, ApprovalDecision.ALLOW_ONCE, None, None]
    assert [model.index(row, 0).data(Role.STATUS) for row in range(4)] == [
        "allow_for_chat",
        "allow_once",
        "pending",
        "pending",
    ]
