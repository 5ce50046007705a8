"""A pasted text is data to work on, not requests: "summarize this text: <a paragraph about the
Hubble telescope>" asks for a summary, so the summarizing skill is chosen by the instruction alone
(the action view covers skills as it covers tools), and the paragraph's sentences are not ranked as
requests of their own (no astronomy skill for it)."""

from __future__ import annotations

import pytest

from indexer import Document, Indexer, SelectionSettings
from indexer._texts import PASTED_MIN_WORDS, request_part
from indexer.backends import EmbeddingBackend

PARAGRAPH = (
    "The Hubble Space Telescope was launched into low Earth orbit in 1990 and remains in operation. "
    "It was not the first space telescope, but it is one of the largest and most versatile, renowned "
    "both as a vital research tool and as a public relations boon for astronomy. Hubble's orbit outside "
    "the distortion of Earth's atmosphere allows it to capture extremely high-resolution images."
)
MESSAGE = f"Summarize this text: {PARAGRAPH}"
SKILLS = [
    Document(
        "skill:summarize-text",
        "skill",
        "summarize text",
        "Summarize a text the user gives you (an article, an email, meeting notes, a report) as a short "
        "summary, key points or a TL;DR. Use when the user asks to summarize, shorten, condense or sum up "
        "a text, or wants its gist or main points.",
        "",
    ),
    Document(
        "skill:astronomy-data", "skill", "astronomy data", "Query star catalogues and telescope archives.", ""
    ),
    Document("skill:pdf", "skill", "pdf", "Read, merge and split PDF files.", ""),
]


def test_a_long_dictated_text_is_not_part_of_the_request() -> None:
    assert request_part(MESSAGE) == "Summarize this text"
    short = "make a linear ticket: export times out and post it in #dev"
    assert request_part(short) == short  # a short value may hold a second request
    assert request_part("deploy the hotfix and tell the team") == "deploy the hotfix and tell the team"
    assert len(PARAGRAPH.split()) >= PASTED_MIN_WORDS


@pytest.mark.slow
def test_summarize_this_text_chooses_the_summarizing_skill_whatever_the_text(
    minilm: EmbeddingBackend,
) -> None:
    indexer = Indexer(lambda: minilm)
    try:
        chosen = [c.key for c in indexer.select(MESSAGE, SKILLS, SelectionSettings()).included]
        whole_only = indexer.select(MESSAGE, SKILLS, SelectionSettings(action_view=False))
    finally:
        indexer.close()
    assert chosen == ["skill:summarize-text"]
    # Judged by the whole message, the paragraph drowns the instruction.
    assert "skill:summarize-text" not in [c.key for c in whole_only.included]
