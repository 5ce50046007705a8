"""A sampling request's record sets the output it produced against the output cap it was
granted (the cap bounds output only), so a request that kept within it never reads as over it."""

from __future__ import annotations

from agent_core.context.items import RequestContext, SamplingRecord, SelectionRun, TokenUsage
from agent_core.store.export import describe_context


def sampling_line(usage: TokenUsage) -> str:
    asked = SamplingRecord("c1", "notes", "summarize", "", "user: hi", 100, "answered", usage=usage)
    context = RequestContext((), "scripted:x", SelectionRun(20, 5, 0.7), samplings=(asked,))
    return next(line for line in describe_context(context) if line.startswith("- `notes`"))


def test_the_output_is_set_against_the_output_cap_and_the_total_is_given_beside_it() -> None:
    line = sampling_line(TokenUsage(input_tokens=129, output_tokens=60))
    assert "output 60 of 100 tokens granted (189 in all)" in line
    assert "189 tokens of 100" not in line


def test_unreported_counts_are_not_made_up() -> None:
    assert "no tokens reported, up to 100 output tokens granted" in sampling_line(TokenUsage())
    assert "129 tokens in all, up to 100 output tokens granted" in sampling_line(TokenUsage(input_tokens=129))
    assert "output 60 of 100 tokens granted," in sampling_line(TokenUsage(output_tokens=60))
