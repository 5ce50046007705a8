"""View Context's header says what produced the reply: the model (and the tools it used, or that it
used none), or a tool whose result is shown as is. The tool's arguments are the model's words, so
they are shown as text, never as markup."""

from __future__ import annotations

from agent_core.context.items import RequestContext, SelectionRun
from agent_core.context.provenance import Provenance, ToolUse
from desktop.dialogs.view_context import describe_run


def header(provenance: Provenance | None) -> str:
    run = SelectionRun(20, 5, 0.7)
    return describe_run(RequestContext(items=(), model="local:smollm2", selection=run, provenance=provenance))


def test_a_reply_a_routed_tool_answered_says_so_with_the_arguments_as_text() -> None:
    routed = ToolUse("workspace.read_file", {"path": "<b>ideas.md</b>"}, routed=True)
    line = header(Provenance("tool_result", model="local:smollm2", tools=(routed,)))
    assert "produced by the tool workspace.read_file" in line
    assert "its result shown as is, no model wrote it" in line
    assert "&lt;b&gt;ideas.md&lt;/b&gt;" in line and "<b>ideas.md" not in line


def test_a_model_reply_without_tools_says_it_used_none() -> None:
    line = header(Provenance("model", model="local:smollm2"))
    assert "produced by the model local:smollm2, answered without using any tool" in line


def test_a_reply_saved_before_provenance_was_kept_shows_no_line() -> None:
    assert "produced by" not in header(None)


def test_a_routed_call_that_timed_out_is_not_shown_as_the_tools_answer() -> None:
    from agent_core.context.items import TokenUsage

    timed_out = ToolUse("slow.hang_forever", routed=True, is_error=True, ended="timed out after 8 s")
    run = SelectionRun(20, 5, 0.7)
    provenance = Provenance("tool_result", model="local:smollm2", tools=(timed_out,))
    context = RequestContext(
        items=(),
        model="local:smollm2",
        selection=run,
        provenance=provenance,
        usage=TokenUsage(without_model=True),
    )
    line = describe_run(context)
    assert "produced by no tool answer: the call to slow.hang_forever timed out after 8 s" in line
    assert "ContextDesk&#x27;s message shown" in line
    assert "no model call, so no tokens: the call to slow.hang_forever timed out after 8 s" in line
    assert "produced by the tool" not in line and "answered by the tool" not in line


def test_the_tool_call_table_says_how_a_call_ended_when_its_tool_never_answered() -> None:
    from PySide6.QtCore import Qt

    from agent_core.store.records import ToolCallRecord
    from desktop.models.reply_tool_calls import ReplyToolCallsModel
    from desktop.models.tool_outcomes import ToolCallOutcome

    timed_out = ToolCallRecord(
        "c1", "slow", "hang_forever", {}, result="The tool failed: …", is_error=True, elapsed_seconds=8.0,
        ended="timed out after 8 s",
    )  # fmt: skip
    tool_error = ToolCallRecord(
        "c2", "demo", "echo", {}, result="bad input", is_error=True, elapsed_seconds=0.1
    )
    model = ReplyToolCallsModel()
    model.set_calls([ToolCallOutcome(timed_out, "failed"), ToolCallOutcome(tool_error, "failed")])
    outcome = [model.data(model.index(row, 2), Qt.ItemDataRole.DisplayRole) for row in range(2)]
    assert outcome == ["timed out after 8 s", "failed"]
