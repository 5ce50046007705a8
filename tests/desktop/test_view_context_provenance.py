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
