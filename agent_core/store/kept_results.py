"""The copy of a tool result a chat keeps: bounded, whatever the tool returned.

The model reads the start of a long result (``maxToolResultTokens``); the chat database used to
keep all of it, so one call returning 50 MB added 50 MB to the file (and to every read of the
chat). A result is now kept up to MAX_KEPT_RESULT_CHARS characters; of a longer one, its start and a
line saying what was cut: "[N bytes cut; the full result was not kept]".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from agent_core.store.records import ToolCallRecord

__all__ = ["MAX_KEPT_RESULT_CHARS", "kept_records", "kept_result"]

#: Characters of one tool result a chat keeps (the model reads a shorter cut: 4000 tokens by default).
MAX_KEPT_RESULT_CHARS = 1_000_000
_CUT = "\n[{cut:,} bytes cut; the full result was not kept]"


_HEAD = MAX_KEPT_RESULT_CHARS - 100  # what is kept of a longer one: with the line, within the bound


def kept_result(text: str) -> str:
    """``text``, or its start and a line saying what was cut (at most MAX_KEPT_RESULT_CHARS in
    all, so a kept result is kept as it is)."""
    if len(text) <= MAX_KEPT_RESULT_CHARS:
        return text
    cut = len(text[_HEAD:].encode("utf-8", errors="replace"))
    return text[:_HEAD] + _CUT.format(cut=cut)


def kept_records(records: Iterable[ToolCallRecord]) -> tuple[ToolCallRecord, ...]:
    """``records`` with every result bounded (the ones within the bound are the same objects)."""
    return tuple(
        record
        if len(record.result) <= MAX_KEPT_RESULT_CHARS
        else replace(record, result=kept_result(record.result))
        for record in records
    )
