from __future__ import annotations

import pytest

from indexer.chunking import chunk_text


def test_short_paragraphs_are_one_chunk_each() -> None:
    assert chunk_text("First paragraph.\n\nSecond one.\nSame paragraph.") == [
        "First paragraph.",
        "Second one.\nSame paragraph.",
    ]


def test_empty_and_blank_text_give_no_chunks() -> None:
    assert chunk_text("") == []
    assert chunk_text(" \n\n\t\n ") == []


def test_crlf_and_lone_cr_split_like_lf() -> None:
    assert chunk_text("a\r\n\r\nb\r\nc") == chunk_text("a\n\nb\nc") == ["a", "b\nc"]
    assert chunk_text("a\r\rb") == ["a", "b"]


def test_long_paragraphs_are_packed_by_sentences_up_to_the_limit() -> None:
    sentence = "This sentence is exactly fifty characters long ok. "
    chunks = chunk_text(sentence * 25)
    assert all(len(c) <= 500 for c in chunks)
    assert len(chunks) == 3
    assert all(c.endswith("ok.") for c in chunks)
    assert " ".join(chunks) == (sentence * 25).strip()


def test_one_giant_sentence_without_punctuation_is_cut_at_spaces() -> None:
    text = "word " * 400
    chunks = chunk_text(text)
    assert all(len(c) <= 500 for c in chunks)
    assert " ".join(chunks) == text.strip()


def test_a_run_without_any_space_is_cut_hard_at_the_limit() -> None:
    chunks = chunk_text("x" * 1203)
    assert [len(c) for c in chunks] == [500, 500, 203]


def test_code_fences_keep_blank_lines_and_split_by_lines_when_long() -> None:
    text = "Intro.\n\n```python\na = 1\n\nb = 2\n```\n\nAfter."
    assert chunk_text(text) == ["Intro.", "```python\na = 1\n\nb = 2\n```", "After."]
    long_code = "```\n" + "\n".join(f"line_{i} = {i} * {i}" for i in range(60)) + "\n```"
    chunks = chunk_text(long_code)
    assert len(chunks) > 1
    assert all(len(c) <= 500 for c in chunks)
    assert "\n".join(chunks) == long_code


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert chunk_text("```\ncode\n\nmore") == ["```\ncode\n\nmore"]


def test_unicode_sentences_split_on_cjk_full_stops() -> None:
    text = "これは文です。" * 100
    chunks = chunk_text(text)
    assert all(len(c) <= 500 for c in chunks)
    assert all(c.endswith("。") for c in chunks)
    assert "".join(c.replace(" ", "") for c in chunks) == text


def test_emoji_and_accents_survive_unchanged() -> None:
    assert chunk_text("Café ☕ — naïve résumé 🎉.") == ["Café ☕ — naïve résumé 🎉."]


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        chunk_text("text", max_chars=0)
