"""A routed call its tool never answered (it timed out, failed or was stopped) is never labelled
as the tool's answer: the provenance line, the "no model was called" line and the stored call all
say what happened, and that the text shown is ContextDesk's message."""

from __future__ import annotations

from agent_core.chat.reply_provenance import stopped_calls, tool_uses
from agent_core.context.items import RequestContext, SelectionRun, TokenUsage
from agent_core.context.provenance import Provenance, ToolUse, without_model_words
from agent_core.mcp.errors import McpServerError
from agent_core.mcp.types import ToolResult
from agent_core.store.export import describe_context
from agent_core.store.records import ToolCallRecord
from agent_core.tools.runtime import call_ended, outcome_ended

TIMED_OUT = ToolUse("slow.hang_forever", routed=True, is_error=True, ended="timed out after 8 s")


def test_a_timeout_error_ends_the_call_as_timed_out_and_another_as_failed_with_its_reason() -> None:
    timeout = McpServerError("slow", "MCP server 'slow' did not answer. Fix: try again.", timed_out_after=8.0)
    assert call_ended(timeout) == "timed out after 8 s"
    assert call_ended(McpServerError("slow", "The connection ended. Fix: restart it.")) == (
        "failed: The connection ended"
    )
    assert outcome_ended(ToolResult("slow", "hang_forever", "…", True, 8.0, ended="timed out after 8 s")) == (
        "timed out after 8 s"
    )
    assert outcome_ended(ToolResult("demo", "echo", "hi", False, 0.1)) == ""


def test_a_timed_out_routed_call_is_not_called_the_tools_answer() -> None:
    line = Provenance("tool_result", "local:smollm2", (TIMED_OUT,)).line()
    assert line.startswith("no tool answer: the call to slow.hang_forever timed out after 8 s")
    assert "ContextDesk's message shown" in line and "its result shown as is" not in line
    assert without_model_words(Provenance("tool_result", tools=(TIMED_OUT,))) == (
        "the call to slow.hang_forever timed out after 8 s (ContextDesk's message shown)"
    )


def test_a_tool_that_answered_is_still_credited() -> None:
    answered = ToolUse("workspace.read_file", {"path": "a.md"}, routed=True)
    assert without_model_words(Provenance("tool_result", tools=(answered,))) == (
        "the tool workspace.read_file answered (its result shown as is)"
    )


def test_the_session_record_says_the_call_timed_out_not_that_the_tool_answered() -> None:
    context = RequestContext(
        items=(),
        model="local:smollm2",
        selection=SelectionRun(20, 5, 0.7),
        usage=TokenUsage(without_model=True),
        provenance=Provenance("tool_result", "local:smollm2", (TIMED_OUT,)),
    )
    text = "\n".join(describe_context(context))
    assert (
        "No model was called: the call to slow.hang_forever timed out after 8 s "
        "(ContextDesk's message shown), so there are no tokens." in text
    )
    assert "the tool answered" not in text


def test_a_call_the_user_stopped_is_marked_stopped_and_says_so() -> None:
    unanswered = ToolCallRecord("c1", "slow", "hang_forever", {})
    answered = ToolCallRecord("c0", "demo", "echo", {}, result="hi", elapsed_seconds=0.1)
    calls = stopped_calls((answered, unanswered))
    assert [c.ended for c in calls] == ["", "was stopped"]
    provenance = Provenance("tool_result", "local:smollm2", tuple(tool_uses(calls[1:], routed=True)))
    assert without_model_words(provenance) == "the call to slow.hang_forever was stopped before it answered"
    assert "nothing shown" in provenance.line() and "the tool answered" not in provenance.line()


def test_a_model_reply_whose_only_call_failed_says_how_it_ended() -> None:
    line = Provenance("model", "local:qwen", (TIMED_OUT,)).line()
    assert line == (
        "the model local:qwen, answered without using any tool "
        "(the call to slow.hang_forever timed out after 8 s)"
    )
    plain_failure = ToolUse("demo.echo", is_error=True)
    assert Provenance("model", "m", (plain_failure,)).line().endswith("(1 tool call failed)")
