"""A sub-agent's result says what produced it, derived from the child's own tool calls (never
from its text): a child that called no tool says it answered without using any; one that read a
file names the tool; the parent's model reads the same; old records without it still load."""

from __future__ import annotations

import json
from collections.abc import Callable

from pydantic import TypeAdapter

from agent_core.context.items import Delegation, RequestContext
from agent_core.providers.base import TokenUsage
from agent_core.subagents.runs import run_of
from tests.support.subagent_chats import Chat, delegations, subagent_file

TOOLS_HEADER = "tools: [workspace.read_file]\n"


def test_a_child_that_called_no_tool_says_it_answered_without_using_any(
    make_chat: Callable[..., Chat],
) -> None:
    chat = make_chat(summarizer=subagent_file("summarizer", TOOLS_HEADER))
    chat.providers["parent"].enqueue_tool_call("subagents__summarizer", {"task": "Summarise ideas.md"})
    chat.providers["summarizer"].enqueue_reply("ideas.md contains a list of 1024 items.")
    chat.providers["parent"].enqueue_reply("It has 1024 items.")
    [delegation] = delegations(chat.send("summarise ideas.md"))
    provenance = delegation.provenance
    assert provenance is not None and provenance.produced_by == "model" and not provenance.grounded
    assert provenance.model == "scripted:summarizer" and provenance.tools == ()
    assert "answered without using any tool" in provenance.line()
    told = chat.providers.requests("parent")[-1].messages[-1].content
    assert "finished; it answered without using any tool" in told
    # The card's row is built from the saved delegation.
    assert run_of(delegation).provenance == provenance


def test_a_child_that_read_a_file_names_the_tool_and_its_arguments(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(summarizer=subagent_file("summarizer", TOOLS_HEADER))
    chat.providers["parent"].enqueue_tool_call("subagents__summarizer", {"task": "Summarise ideas.md"})
    chat.providers["summarizer"].enqueue_tool_call("workspace__read_file", {"path": "ideas.md"})
    chat.providers["summarizer"].enqueue_reply("Two ideas: a garden and a shed.")
    chat.providers["parent"].enqueue_reply("Two ideas.")
    [delegation] = delegations(chat.send("summarise ideas.md"))
    provenance = delegation.provenance
    assert provenance is not None and provenance.grounded and provenance.produced_by == "model"
    [use] = provenance.tools
    assert use.tool == "workspace.read_file" and use.arguments == {"path": "ideas.md"} and not use.routed
    assert provenance.line() == "the model scripted:summarizer, after calling workspace.read_file"
    told = chat.providers.requests("parent")[-1].messages[-1].content
    assert "without using any tool" not in told


def test_a_child_whose_reply_is_a_tool_result_shown_as_is_says_so(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(summarizer=subagent_file("summarizer", TOOLS_HEADER))
    chat.providers["parent"].enqueue_tool_call("subagents__summarizer", {"task": "Summarise ideas.md"})
    chat.providers["summarizer"].enqueue_tool_call("workspace__read_file", {"path": "ideas.md"})
    # The provider ran no model for the last turn: the text is the tool's result.
    chat.providers["summarizer"].enqueue_reply("contents of ideas.md", usage=TokenUsage(without_model=True))
    chat.providers["parent"].enqueue_reply("ok")
    [delegation] = delegations(chat.send("summarise ideas.md"))
    provenance = delegation.provenance
    assert provenance is not None and provenance.produced_by == "tool_result"
    assert provenance.line().startswith(
        'the tool workspace.read_file {"path": "ideas.md"} (its result shown as is'
    )


def test_a_chat_reply_records_its_provenance_and_it_is_kept(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat()
    chat.providers["parent"].enqueue_reply("Hello there.")
    chat.send("hello")
    [reply] = [m for m in chat.store.messages(chat.session.id) if m.role == "assistant"]
    assert reply.request_context is not None
    provenance = reply.request_context.provenance
    assert (
        provenance is not None and provenance.produced_by == "model" and provenance.model == "scripted:parent"
    )


def test_records_saved_before_provenance_load_without_it() -> None:
    old_delegation = {"call_id": "c", "subagent": "s", "task": "t", "context_mode": "isolated",
                      "child_session_id": "x", "result": "r"}  # fmt: skip
    old_context = {
        "items": [],
        "model": "scripted:x",
        "selection": {"top_k": 5, "top_n": 3, "include_score": 0.5},
        "delegations": [old_delegation],
    }
    context = TypeAdapter(RequestContext).validate_json(json.dumps(old_context))
    assert context.provenance is None and context.delegations[0].provenance is None
    assert TypeAdapter(Delegation).validate_python(old_delegation).provenance is None
