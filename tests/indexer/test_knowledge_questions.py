"""A question about how things are asks to know, not to act: tools need a far better match for
it, and everything a higher floor, so "what's the difference between git diff and git show?"
gets an answer instead of five git tools."""

from __future__ import annotations

import pytest

from indexer import Document, Indexer, SelectionSettings, tool_document
from indexer._texts import is_knowledge_question
from indexer.backends import EmbeddingBackend


@pytest.mark.parametrize(
    "message",
    [
        "what's the difference between a list and a tuple in python",
        "can you explain what a b-tree index is in simple terms",
        "is it affect or effect here?",
        "how does let's encrypt renewal work in general",
        "ls -R vs tree, which is nicer for a quick look at a folder?",
        "What is a monad?",
        # typed the way people type, and one thing to define
        "whats the difference between a list and a tuple",
        "what's git",
        "what is recursion?",
        "what does HTTP 418 mean",
        "what do the letters in SOLID stand for",
        "explain big O notation",
    ],
)
def test_questions_about_how_things_are_are_recognised(message: str) -> None:
    assert is_knowledge_question(message)


@pytest.mark.parametrize(
    "message",
    [
        "show me the diff of my staged changes",
        "what files are in the docs folder?",
        "list the open pull requests",
        "what is the status of the deploy?",
        "what is a good name for this function: def f(x): return x * 2",  # asks about the user's code
        "deploy the hotfix and explain what changed to the on-call channel",
        "what time is it",
        "what's the weather in paris",  # a tool's question, not a word to define
        "explain this stack trace",
        "explain to the team why the release slips",  # a message to write
        "what does my config mean by retries: 3",
    ],
)
def test_requests_to_act_or_about_the_users_things_are_not(message: str) -> None:
    assert not is_knowledge_question(message)


GIT_DIFF = tool_document(
    "git", "git_diff", "Show the differences between commits or a commit and the working tree", {}
)
GIT_SHOW = tool_document("git", "git_show", "Show the contents of a commit", {})
NOTES = Document("reference:release-notes", "reference", "release-notes", "How we write release notes", "...")


@pytest.mark.slow
def test_a_knowledge_question_gets_no_tool_that_a_request_would(minilm: EmbeddingBackend) -> None:
    indexer = Indexer(lambda: minilm)
    items = [GIT_DIFF, GIT_SHOW, NOTES]
    asked = indexer.select(
        "what's the actual difference between git diff and git show?", items, SelectionSettings()
    )
    acted = indexer.select("show me the git diff of the last commit", items, SelectionSettings())
    assert not [c.key for c in asked.included if c.key.startswith("tool:")]
    assert "tool:git/git_diff" in {c.key for c in acted.included}
    indexer.close()
