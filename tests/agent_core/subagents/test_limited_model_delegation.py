"""A chat that delegates to a sub-agent whose model may not manage it asks first, with the
one-line warning as the question's caution: allowed, the child runs; denied, it never starts and
the tool's result says to pick another model. A capable (or test) model is not asked about."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from agent_core.chat.events import ApprovalDecision, ApprovalRequest
from agent_core.subagents.model_check import NOT_RUN
from tests.support.subagent_chats import Chat, delegations, finished, subagent_file


def small(chat: Chat, name: str) -> None:
    """The sub-agent ``name``'s model set up as a small one (it does not choose its own tools)."""
    provider = chat.providers[name]
    provider.settings = replace(provider.settings, options={"toolCalling": "none"})


def questions(events: list[object]) -> list[ApprovalRequest]:
    return [e for e in events if isinstance(e, ApprovalRequest)]


def test_allowed_the_child_on_a_small_model_runs(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(summarizer=subagent_file("summarizer"))
    small(chat, "summarizer")
    chat.providers["parent"].enqueue_tool_call("subagents__summarizer", {"task": "Summarize ideas.md"})
    chat.providers["summarizer"].enqueue_reply("Two ideas.")
    chat.providers["parent"].enqueue_reply("Done.")
    events = chat.send("summarize my ideas", approve=ApprovalDecision.ALLOW_ONCE)
    [question] = questions(events)
    assert question.server == "subagents" and question.tool == "summarizer" and question.every_call
    assert question.model_limited  # the desktop also offers to pick another model
    assert question.arguments == {"task": "Summarize ideas.md"}
    assert question.caution == (
        "scripted:summarizer does not choose its own tools: it may not choose the tools the sub-agent "
        "needs, and may describe files it never read; its card will say which tools it used, or that it "
        "used none."
    )
    [delegation] = delegations(events)
    assert delegation.result == "Two ideas." and finished(events).message.content == "Done."


def test_denied_the_child_never_starts_and_the_result_says_why(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(summarizer=subagent_file("summarizer"))
    small(chat, "summarizer")
    chat.providers["parent"].enqueue_tool_call("subagents__summarizer", {"task": "Summarize ideas.md"})
    chat.providers["parent"].enqueue_reply("I did not run it.")
    events = chat.send("summarize my ideas", approve=ApprovalDecision.DENY)
    assert len(questions(events)) == 1
    assert not chat.providers.requests("summarizer") and not chat.child_chats()
    result = chat.providers.requests("parent")[-1].messages[-1]
    assert result.role == "tool" and result.content == NOT_RUN


def test_a_test_model_is_not_asked_about(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(researcher=subagent_file("researcher"))
    chat.providers["parent"].enqueue_tool_call("subagents__researcher", {"task": "look"})
    chat.providers["researcher"].enqueue_reply("Found it.")
    chat.providers["parent"].enqueue_reply("Done.")
    assert not questions(chat.send("ask the researcher"))
