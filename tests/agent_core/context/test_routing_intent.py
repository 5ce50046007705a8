"""The intent test of routing: requests for the model's work (writing, summarising, explaining,
translating, rewriting) are left to the model even when a tool's words match; requests for a
tool's action, or that need a file or link the model cannot see, are not."""

from __future__ import annotations

import pytest

from agent_core.context.routing_intent import model_work


@pytest.mark.parametrize(
    ("message", "action"),
    [
        ("Write release notes for Bluefin 0.9.2 from my notes", "write"),
        ("Write release notes for {{topic}} from these notes - {{notes}}", "write"),
        ("Write release notes for 2.0 from these notes - see ideas.md and todo.txt", "write"),
        ("could you pls summarize the discussion above", "summarise"),
        ("can you summerize this", "summarise"),  # a typo
        ("explian recursion like I'm five", "explain"),
        ("translate 'list my files' into French", "translate"),
        ("rephrase: the search returned nothing", "rephrase"),
        ("a summary of the points above please", "summarise"),
        ("tl;dr of what we discussed", "summarise"),
        ("sum up the thread", "summarise"),
        ("tell me a joke about files", "write"),
        ("what is a b-tree?", "explain"),
        ("how does DNS work", "explain"),
        ("make this shorter: the meeting moved to thursday", "rewrite"),
        ("hey, I need you to draft an email to my landlord", "draft"),
    ],
)
def test_a_request_for_the_models_work_is_left_to_the_model(message: str, action: str) -> None:
    work = model_work(message)
    assert work is not None and work.action == action
    assert work.reason == f"the message asks to {action}, which the model does"


@pytest.mark.parametrize(
    "message",
    [
        "list my files",
        "what time is it?",
        "read ideas.md",
        "search the web for llama.cpp grammars",
        "which references do you have?",
        "remember that I prefer metric units",
        "tell me the time",
        "sum 3 and 4",  # not "sum up"
        "hello",
        "",
    ],
)
def test_a_request_for_a_tools_action_is_not_ruled_out(message: str) -> None:
    assert model_work(message) is None


@pytest.mark.parametrize(
    "message",
    [
        "summarize ideas.md",  # needs the file read
        "explain what src/main.py does",
        "summarise https://example.com/post",
        "write 'hello' to greeting.txt",
        "describe the projects folder",
    ],
)
def test_the_models_work_on_a_file_or_link_it_cannot_see_is_not_ruled_out(message: str) -> None:
    assert model_work(message) is None


def test_a_tool_whose_own_action_is_the_verb_is_not_ruled_out() -> None:
    assert model_work("translate this to German: good morning", "translate_text") is None
    assert model_work("write a new file with my shopping list", "write_file") is None
    assert model_work("summarise this thread", "summarizer") is None  # a sub-agent that summarises
    assert model_work("translate this: bonjour", "translator") is None
    assert model_work("summarise this thread", "search_files") is not None
    # ...but its name must fit the rest of the message: release notes are not a file.
    work = model_work("write release notes from my notes", "write_file")
    assert work is not None and work.action == "write"
    assert model_work("write release notes from my notes", "list_references") is not None
