"""The gauge's estimate of the next request trims the history as the request itself will."""

from __future__ import annotations

from agent_core.budget.estimates import estimate_next_request
from agent_core.budget.fitting import fit_request
from agent_core.providers.base import ChatMessage
from tests.support.fitting_drafts import WORDS, draft, limits, short_turns


def test_the_estimate_leaves_out_what_the_next_request_will_leave_out() -> None:
    # The tester's case: a pasted text too long for the window, refused, stays in the history.
    fits = limits(1000, reserve=100)
    _sent, last = fit_request(draft(short_turns(5)), WORDS, fits)
    history = [*short_turns(5), ChatMessage("user", "pasted " * 3000)]

    estimate = estimate_next_request(last, history=history, summary_tokens=0, counter=WORDS, limits=fits)

    _sent, real = fit_request(draft(history, user="hello"), WORDS, fits)
    message = sum(part.tokens for part in real.parts if part.kind == "message")
    assert estimate.total_tokens == real.total_tokens - message  # all but the text still to be typed
    assert estimate.total_tokens <= estimate.budget  # not 3,000 tokens over a 900-token room
    assert not estimate.exact
    assert [part.detail for part in estimate.parts if part.kind == "history"] == ["10 messages"]
    assert [action.detail for action in estimate.trimmed] == [action.detail for action in real.trimmed]
    assert "message #11" in estimate.trimmed[0].detail


def test_the_estimate_counts_the_whole_history_when_it_fits() -> None:
    fits = limits(10_000)
    _sent, last = fit_request(draft(short_turns(1)), WORDS, fits)
    history = short_turns(3)
    estimate = estimate_next_request(last, history=history, summary_tokens=12, counter=WORDS, limits=fits)
    assert estimate.trimmed == ()
    history_part = next(part for part in estimate.parts if part.kind == "history")
    assert history_part.tokens == WORDS.messages(history)
    assert next(part for part in estimate.parts if part.kind == "summary").tokens == 12
