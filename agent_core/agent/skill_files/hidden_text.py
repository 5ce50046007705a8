"""Characters a reader does not see: zero-width ones, bidi overrides, tag characters.

A skill is text someone else wrote for a model to follow. Invisible characters let that text say
one thing to the person who reviews it and another to the model (tag characters spell whole
hidden sentences; a bidi override makes text read differently than it runs). Typography has
honest uses for a few of them, which are let through: a byte-order mark at the start of a file,
a joiner inside an emoji or a script that needs it, tag characters in a subdivision flag.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from agent_core.agent.skill_files.instruction_check import LineCounter

__all__ = ["MAX_COUNTED", "HiddenLine", "escape_unseen", "find_hidden_lines", "mark_unseen"]

MAX_COUNTED = 10_000  # hidden characters counted per file; past it the count stops

_BIDI_CONTROLS = frozenset(range(0x202A, 0x202F)) | frozenset(range(0x2066, 0x206A))
_TAGS = range(0xE0000, 0xE0080)
_BLACK_FLAG = 0x1F3F4  # a subdivision flag (Scotland, Wales) is this, tag letters and CANCEL TAG
_CANCEL_TAG = 0xE007F
_FLAG_TAGS = 8  # the tags of a flag, CANCEL TAG included (gbsct + CANCEL: 6)
# Marks that join or order letters of a script or parts of an emoji: hidden only among ASCII.
_SCRIPT_MARKS = frozenset({0x200C, 0x200D, 0x200E, 0x200F, 0x061C})
_BOM = 0xFEFF
# Blank-looking letters that are not format characters but serve the same trick.
_BLANK_LETTERS = (0x115F, 0x1160, 0x3164, 0xFFA0)
_VARIATION_SELECTORS_SUPPLEMENT = (0xE0100, 0xE01EF)  # can carry a byte each after any character


# Unicode's format characters (category Cf, Unicode 14), then the blank letters and the
# variation selectors supplement; written out, as computing them costs half a second.
_HIDDEN_RANGES = (
    (0x00AD, 0x00AD), (0x0600, 0x0605), (0x061C, 0x061C), (0x06DD, 0x06DD), (0x070F, 0x070F),
    (0x0890, 0x0891), (0x08E2, 0x08E2), (0x180E, 0x180E), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110BD),
    (0x110CD, 0x110CD), (0x13430, 0x13438), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
    (0xE0001, 0xE0001), (0xE0020, 0xE007F),
    *((point, point) for point in _BLANK_LETTERS),
    _VARIATION_SELECTORS_SUPPLEMENT,
)  # fmt: skip
_HIDDEN = re.compile(
    "[" + "".join(f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in _HIDDEN_RANGES) + "]"
)
# What a front end must not show as is: the hidden characters above (the whole tag block), and
# control characters but tabs and line breaks (a terminal's escape sequences among them).
_UNSEEN = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\U000e0000-\U000e007f"
    + "".join(f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in _HIDDEN_RANGES)
    + "]"
)


@dataclass(frozen=True)
class HiddenLine:
    """The hidden characters on one line of a file."""

    line: int
    counts: tuple[tuple[int, int], ...]  # (code point, how many), in order of first appearance
    hidden_text: str = ""  # what tag characters on the line spell, when they spell something

    def describe(self) -> str:
        kinds = ", ".join(
            f"U+{point:04X} {_character_name(point)}" + (f" x{count}" if count > 1 else "")
            for point, count in self.counts[:6]
        )
        if len(self.counts) > 6:
            kinds += f" and {len(self.counts) - 6} other kinds"
        total = sum(count for _, count in self.counts)
        text = f"{total} hidden character{'s' if total > 1 else ''} ({_kinds_summary(self.counts)}): {kinds}"
        if self.hidden_text:
            text += f"; the tag characters spell {self.hidden_text[:120]!r}"
        return text


def find_hidden_lines(text: str) -> list[HiddenLine]:
    """Each line of ``text`` that holds characters a reader does not see, in line order."""
    if text.isascii() or not _HIDDEN.search(text):
        return []  # most files: nothing to look for
    by_line: dict[int, Counter[int]] = {}
    tags_by_line: dict[int, list[str]] = {}
    lines = LineCounter(text, 1)
    counted = 0
    for match in _HIDDEN.finditer(text):
        position = match.start()
        point = ord(text[position])
        if _allowed(text, position, point):
            continue
        counted += 1
        if counted > MAX_COUNTED:  # a file made of them says all it needs to by now
            break
        line = lines.line_at(position)
        by_line.setdefault(line, Counter())[point] += 1
        if point in _TAGS and 0x20 <= point - 0xE0000 < 0x7F:
            tags_by_line.setdefault(line, []).append(chr(point - 0xE0000))
    return [
        HiddenLine(line, tuple(counts.items()), "".join(tags_by_line.get(line, [])).strip())
        for line, counts in sorted(by_line.items())
    ]


def escape_unseen(text: str) -> str:
    """Someone else's text (a skill's name, its description) made safe to show, with nothing
    hidden: invisible characters (zero-width, bidi overrides, tag characters) and control
    characters are written as Python escapes (``pdf-\\u202etxt.exe``); tabs and line breaks stay."""
    return _UNSEEN.sub(lambda match: match.group(0).encode("unicode_escape").decode("ascii"), text)


def mark_unseen(text: str) -> tuple[str, int]:
    """``text`` with each invisible or control character shown as a marker (``⟨U+200B⟩``), for a
    reader of a whole file; and how many were marked. Tabs and line breaks stay as they are."""
    marked, count = _UNSEEN.subn(lambda match: f"⟨U+{ord(match.group(0)):04X}⟩", text.replace("\r\n", "\n"))
    return marked, count


def _allowed(text: str, position: int, point: int) -> bool:
    if point == _BOM:
        return position == 0
    if point in _SCRIPT_MARKS:
        before = text[position - 1] if position else " "
        after = text[position + 1] if position + 1 < len(text) else " "
        return not (before.isascii() and after.isascii())
    if point in _TAGS:
        return _in_flag(text, position)
    return False


def _in_flag(text: str, position: int) -> bool:
    """Whether the tag character at ``position`` belongs to a flag: BLACK FLAG, up to seven tag
    letters, CANCEL TAG. (Looking no further keeps a long run of tags linear to scan.)"""
    start = position
    while start > max(0, position - _FLAG_TAGS) and ord(text[start - 1]) in _TAGS:
        start -= 1
    if start == 0 or ord(text[start - 1]) != _BLACK_FLAG:
        return False
    end = position
    limit = min(len(text), start + _FLAG_TAGS + 1)
    while end < limit and ord(text[end]) in _TAGS and ord(text[end]) != _CANCEL_TAG:
        end += 1
    return end < len(text) and ord(text[end]) == _CANCEL_TAG


def _character_name(point: int) -> str:
    return unicodedata.name(chr(point), "FORMAT CHARACTER")


def _kinds_summary(counts: tuple[tuple[int, int], ...]) -> str:
    kinds: list[str] = []
    for point, _ in counts:
        if point in _BIDI_CONTROLS:
            kind = "bidi override: text reads differently than it runs"
        elif point in _TAGS:
            kind = "tag characters: invisible text"
        elif point in (0x200B, 0x200C, 0x200D, 0x2060, _BOM):
            kind = "zero-width"
        else:
            kind = "invisible format character"
        if kind not in kinds:
            kinds.append(kind)
    return "; ".join(kinds)
