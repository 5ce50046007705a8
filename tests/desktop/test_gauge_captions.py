"""The context gauge's words: when no request of the chat has figures yet, and when the next
request will leave earlier messages out."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from agent_core.budget.estimates import estimate_next_request
from agent_core.budget.fitting import fit_request
from agent_core.context.items import RequestContext, SelectionRun, WorkflowRunLink
from agent_core.providers.base import ChatMessage
from desktop.views.token_bar import ContextGauge
from tests.support.fitting_drafts import WORDS, draft, limits, short_turns


def test_a_chat_whose_only_reply_ran_a_workflow_says_when_the_gauge_fills(qtbot: QtBot) -> None:
    gauge = ContextGauge()
    qtbot.addWidget(gauge)
    ran = WorkflowRunLink(call_id="c1", workflow="short-text", run_id="r1", status="needs_review", steps=1)
    gauge.set_context(RequestContext((), "local:x", SelectionRun(20, 5, 0.7), workflow_runs=(ran,)))
    assert gauge.level == "empty"
    assert gauge.caption.text().startswith("Fills after the model's first reply (a workflow run sends")
    gauge.set_context(RequestContext((), "local:x", SelectionRun(20, 5, 0.7)))
    assert gauge.caption.text() == "The last reply has no token counts."


def test_the_estimate_says_earlier_messages_will_be_left_out_and_stays_under_the_window(qtbot: QtBot) -> None:
    gauge = ContextGauge()
    qtbot.addWidget(gauge)
    fits = limits(1000, reserve=100)
    _sent, last = fit_request(draft(short_turns(5)), WORDS, fits)
    history = [*short_turns(5), ChatMessage("user", "pasted " * 3000)]
    estimate = estimate_next_request(last, history=history, summary_tokens=0, counter=WORDS, limits=fits)
    gauge.set_estimate(estimate)
    assert gauge.caption.text().startswith(
        f"About {estimate.total_tokens:,} of 900 tokens for the next message, with some earlier "
        "messages left out to fit (hover for which) (estimated;"
    )
    assert gauge.level == "ok"  # the pasted text is not counted: the request will not send it
    assert "message #11" in gauge.toolTip() and "too long for the window" in gauge.toolTip()


def test_the_estimate_of_a_history_that_fits_says_nothing_is_left_out(qtbot: QtBot) -> None:
    gauge = ContextGauge()
    qtbot.addWidget(gauge)
    fits = limits(10_000)
    _sent, last = fit_request(draft(short_turns(1)), WORDS, fits)
    estimate = estimate_next_request(
        last, history=short_turns(3), summary_tokens=0, counter=WORDS, limits=fits
    )
    gauge.set_estimate(estimate)
    assert "left out" not in gauge.caption.text()
