"""Fitting requests into the window: what is kept, what is summarized or cut, and the manifest."""

from __future__ import annotations

from dataclasses import replace

import pytest

from agent_core.budget.counting import TokenCounter, counter_for, estimate_tokens
from agent_core.budget.fitting import (
    CUT_MARKER,
    SUMMARY_PREFIX,
    Block,
    ContextOverflowError,
    Draft,
    fit_request,
)
from agent_core.budget.windows import known_window, window_for
from agent_core.providers.base import ChatMessage, ToolCall, ToolSpec
from agent_core.providers.scripted import ScriptedProvider
from tests.support.fitting_drafts import WORDS, draft, limits, short_turns


def tool_round(n: int, result: str) -> list[ChatMessage]:
    call = ToolCall(id=f"c{n}", name="fs__read_file", arguments={"path": f"notes/{n}.md"})
    return [
        ChatMessage("user", f"question {n}"),
        ChatMessage("assistant", f"Let me read file {n}.", tool_calls=(call,)),
        ChatMessage("tool", result, tool_call_id=f"c{n}", tool_name="fs__read_file"),
        ChatMessage("assistant", f"answer {n}"),
    ]


def assert_pairs_valid(messages: tuple[ChatMessage, ...]) -> None:
    called: set[str] = set()
    assert messages[0].role == "system"
    assert messages[1].role == "user"  # never an assistant turn or an orphan result first
    for message in messages:
        called |= {call.id for call in message.tool_calls}
        if message.role == "tool":
            assert message.tool_call_id in called, f"orphan tool result {message.tool_call_id}"


def sent_tokens(messages: tuple[ChatMessage, ...], tools: list[ToolSpec], counter: TokenCounter) -> int:
    return counter.messages(messages) + sum(counter.tool(t) for t in tools)


def test_everything_is_kept_when_it_fits_and_the_manifest_adds_up_to_what_is_sent() -> None:
    history = tool_round(1, "short result")
    request = draft(history)
    messages, manifest = fit_request(request, WORDS, limits(10_000))
    assert messages[1:-1] == tuple(history)
    assert manifest.total_tokens == sent_tokens(messages, list(request.tools), WORDS)
    kinds = [part.kind for part in manifest.parts]
    assert kinds[:3] == ["system_prompt", "rule", "framing"]
    assert {"tool", "history", "message"} <= set(kinds)
    assert manifest.trimmed == () and manifest.exact and manifest.window == 10_000


def test_only_the_last_tool_rounds_keep_full_results_older_ones_get_a_one_line_summary() -> None:
    history = [
        m for n in range(1, 5) for m in tool_round(n, f"Contents of file {n}:\n" + "lorem ipsum " * 50)
    ]
    messages, manifest = fit_request(draft(history), WORDS, limits(100_000, keep=2))
    results = [m for m in messages if m.role == "tool"]
    assert [m.content.startswith(SUMMARY_PREFIX) for m in results] == [True, True, False, False]
    summary = results[0].content
    assert "fs__read_file(" in summary and "notes/1.md" in summary and "Contents of file 1:" in summary
    assert "\n" not in summary
    assert_pairs_valid(messages)
    [action] = manifest.trimmed
    assert action.kind == "tool_result_summarized" and action.tokens_saved > 0


def test_a_huge_tool_result_is_cut_with_a_marker() -> None:
    history = tool_round(1, "word " * 10_000)
    messages, manifest = fit_request(draft(history), WORDS, limits(100_000, max_result=500))
    [result] = [m for m in messages if m.role == "tool"]
    assert WORDS.count(result.content) <= 500 + WORDS.count(CUT_MARKER)
    assert "cut by ContextDesk" in result.content and "of 50,000 characters shown" in result.content
    assert manifest.trimmed[0].kind == "tool_result_cut"


def test_history_keeps_the_newest_whole_units_that_fit() -> None:
    history = [m for n in range(1, 30) for m in tool_round(n, "result " * 20)]
    request = draft(history)
    window = 400
    messages, manifest = fit_request(request, WORDS, limits(window, reserve=50))
    assert sent_tokens(messages, list(request.tools), WORDS) <= window - 50
    assert manifest.total_tokens == sent_tokens(messages, list(request.tools), WORDS)
    assert messages[-2].content == "answer 29"  # the newest history is kept
    assert_pairs_valid(messages)
    dropped = next(a for a in manifest.trimmed if a.kind == "history_dropped")
    assert dropped.tokens_saved > 0


def test_what_cannot_be_trimmed_must_fit_or_the_request_is_refused_with_the_largest_part() -> None:
    big_user = "word " * 1000
    with pytest.raises(ContextOverflowError, match="largest part is the message"):
        fit_request(draft([], user=big_user), WORDS, limits(500, reserve=100))


def test_counting_prefers_the_models_tokenizer_then_cl100k_then_an_estimate() -> None:
    assert counter_for(ScriptedProvider(), "scripted", "x").exact
    gpt4 = counter_for(None, "openai", "gpt-4-turbo")
    assert gpt4.name == "cl100k_base" and gpt4.exact and gpt4.count("Hello world") == 2
    gpt4o = counter_for(None, "openai", "gpt-4o-mini")
    assert gpt4o.name == "cl100k_base" and not gpt4o.exact
    claude = counter_for(None, "anthropic", "claude-sonnet-4")
    assert claude.name == "estimate" and not claude.exact
    assert estimate_tokens("") == 0 and estimate_tokens("日本語") == 3
    assert 20 <= estimate_tokens("The quick brown fox jumps over the lazy dog. " * 4) <= 60


def test_window_sizes_come_from_chat_agent_provider_then_the_table() -> None:
    assert known_window("gpt-4o-mini") == 128_000 and known_window("claude-3-7-sonnet") == 200_000
    assert known_window("no-such-model") is None
    assert (
        window_for("gpt-4o", chat_override=None, agent_override=None, provider_window=None).source == "table"
    )
    assert window_for("x", chat_override=None, agent_override=None, provider_window=4096).tokens == 4096
    assert window_for("x", chat_override=None, agent_override=32_000, provider_window=4096).source == "agent"
    assert window_for("x", chat_override=2048, agent_override=32_000, provider_window=4096).tokens == 2048
    assert (
        window_for("mystery", chat_override=None, agent_override=None, provider_window=None).source
        == "default"
    )


def test_the_overflow_names_many_small_rules_together_not_one_bigger_tool() -> None:
    # The campaign's case: 10k tokens of always-rules in 100 rules, one 121-token tool.
    rules = [Block("rule", f'<rule name="r{n}">{"word " * 98}</rule>', f"r{n}") for n in range(100)]
    tool = ToolSpec("big_tool", "word " * 110, {"type": "object", "properties": {"q": {"type": "string"}}})
    request = Draft(
        system=[Block("system_prompt", "You are helpful."), *rules],
        history=[],
        user=[Block("message", "hello")],
        turns=[],
        tools=[tool],
    )
    with pytest.raises(ContextOverflowError) as raised:
        fit_request(request, WORDS, limits(4000, reserve=100))
    message = str(raised.value)
    assert (
        "largest part is the chat's rules and references: 100 of them, 10,000 tokens (the largest 'r0', 100)"
        in message
    )
    assert "take some of the chat's rules and references out of it, or shorten them" in message
    assert "big_tool" not in message


def test_a_message_too_long_for_the_window_is_left_out_and_older_turns_are_still_kept() -> None:
    # The tester's case: a pasted text that failed, then "hello again".
    history = [*short_turns(5), ChatMessage("user", "pasted " * 3000)]
    messages, manifest = fit_request(draft(history, user="hello again"), WORDS, limits(1000, reserve=100))
    assert messages[1:-1] == tuple(short_turns(5))  # every short turn, not none of them
    assert_pairs_valid(messages)
    [action] = manifest.trimmed
    assert action.kind == "history_dropped"
    assert (
        action.detail
        == 'message #11 ("pasted pasted pasted pasted pasted pasted pasted pasted…", 3,004 tokens) left out: too long for the window'
    )
    assert action.tokens_saved == 3004
    history_part = next(part for part in manifest.parts if part.kind == "history")
    assert history_part.detail == "10 messages"


def test_a_turn_too_long_is_left_out_whole_so_no_question_is_kept_without_its_answer() -> None:
    history = [
        *short_turns(2),
        ChatMessage("user", "summarize this"),
        ChatMessage("assistant", "summary " * 3000),
        *short_turns(1),
    ]
    messages, manifest = fit_request(draft(history), WORDS, limits(1000, reserve=100))
    assert "summarize this" not in [m.content for m in messages]
    assert messages[1:-1] == (*short_turns(2), *short_turns(1))
    assert [a.detail.split(" (")[0] for a in manifest.trimmed] == ["messages #5–#6"]
    assert 'the question "summarize this" and its reply' in manifest.trimmed[0].detail


def test_older_turns_that_would_not_fit_with_the_newer_ones_are_still_left_out_together() -> None:
    history = [*short_turns(3), ChatMessage("user", "big " * 300), ChatMessage("assistant", "ok")]
    request = draft(history)
    fixed = fit_request(draft([]), WORDS, limits(10_000))[1].total_tokens
    room = WORDS.messages(history[-2:]) + 5  # the newest turn fits, with no room for any older one
    messages, manifest = fit_request(request, WORDS, limits(fixed + room + 100, reserve=100))
    assert messages[1:-1] == tuple(history[-2:])
    [action] = manifest.trimmed
    assert action.detail == "6 older messages left out to fit the window"
    assert action.tokens_saved == WORDS.messages(history[:6])


def test_a_message_too_long_is_refused_with_advice_the_user_can_follow() -> None:
    # The desktop has no way to attach a local file: the advice must not name one.
    with pytest.raises(ContextOverflowError) as raised:
        fit_request(draft([], user="word " * 1000), WORDS, limits(500, reserve=100))
    message = str(raised.value)
    assert "attach" not in message
    assert message.endswith(
        "shorten the message (paste only the part your question is about), or save the long text "
        "as a file in the folder the 'fs' tool server reads, and ask about it, or choose a model "
        "with a larger window"
    )


def test_without_a_tool_that_reads_files_the_advice_does_not_suggest_a_file() -> None:
    request = replace(draft([], user="word " * 1000), tools=[])
    with pytest.raises(ContextOverflowError) as raised:
        fit_request(request, WORDS, limits(500, reserve=100))
    assert str(raised.value).endswith(
        "shorten the message (paste only the part your question is about), or choose a model with a "
        "larger window"
    )


def test_a_short_older_result_is_kept_as_is_and_no_trim_that_saves_nothing_is_reported() -> None:
    history = [m for n in range(1, 4) for m in tool_round(n, "ok")]
    messages, manifest = fit_request(draft(history), WORDS, limits(100_000, keep=2))
    assert [m.content for m in messages if m.role == "tool"] == ["ok", "ok", "ok"]  # a summary is longer
    assert manifest.trimmed == ()


def test_the_summary_trim_counts_its_results_and_rounds_in_plain_words() -> None:
    history = [m for n in range(1, 4) for m in tool_round(n, "lorem ipsum " * 50)]
    _, manifest = fit_request(draft(history), WORDS, limits(100_000, keep=2))
    [action] = manifest.trimmed
    assert action.detail == "1 result of 1 older tool round summarized" and action.tokens_saved > 0
