"""Someone else's text shown with nothing hidden: every front end (the CLI's `skill show`, the
desktop's Skills list, View Context, View SKILL.md) writes invisible and control characters out
through the same two core functions."""

from __future__ import annotations

from agent_core.agent.skill_files.hidden_text import escape_unseen, mark_unseen

TAGS = "".join(chr(0xE0000 + ord(c)) for c in "IGN")


def test_a_bidi_override_zero_width_space_tag_characters_and_escape_sequences_are_written_as_escapes() -> (
    None
):
    assert escape_unseen("pdf-\u202etxt.exe") == "pdf-\\u202etxt.exe"
    assert (
        escape_unseen(f"Reads invoices\u200b.{TAGS}")
        == "Reads invoices\\u200b.\\U000e0049\\U000e0047\\U000e004e"
    )
    assert escape_unseen("red \x1b[31m") == "red \\x1b[31m"
    assert escape_unseen("blank\u3164letter") == "blank\\u3164letter"  # a blank-looking letter too


def test_ordinary_text_stays_as_it_is() -> None:
    text = "../../../../tmp/pwned\tcafé 日本語 — “quoted”\nnext line"
    assert escape_unseen(text) == text
    assert mark_unseen(text) == (text, 0)


def test_a_whole_file_shows_each_hidden_character_as_a_marker_and_counts_them() -> None:
    shown, count = mark_unseen(f"Hidden\u200bzero width.\r\nSort \u202eby date{TAGS}\n")
    assert shown == "Hidden⟨U+200B⟩zero width.\nSort ⟨U+202E⟩by date⟨U+E0049⟩⟨U+E0047⟩⟨U+E004E⟩\n"
    assert count == 5
    assert mark_unseen("a lone\rreturn") == ("a lone⟨U+000D⟩return", 1)  # hides what came before it
