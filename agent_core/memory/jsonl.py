"""The JSON-lines form of memories: what ``memory import`` reads and ``memory export`` writes.

One object a line: ``{"id", "text", "kind"?, "importance"?, "scope"?, "tier"?, "status"?,
"created_at"? (ISO), "expires_at"? (ISO date or time), "supersedes"? (an id)}``. Export writes
every field, so an export imports again unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_core.memory._line_rules import line_problems, strict_text, time_problem
from agent_core.memory.records import Memory

__all__ = ["ImportLine", "ParsedLine", "memory_line", "parse_lines", "parse_time"]

MAX_LINE_CHARS = 100_000
# Written by export, recomputed on import: not worth a warning.
_EXPORT_ONLY = frozenset(
    {"updated_at", "last_used_at", "use_count", "seen_count", "superseded_by", "source", "problem"}
)


class ImportLine(BaseModel):
    # Strict: "importance": "4" or true, "text": 5 fail the line instead of being converted.
    # Unknown fields are reported and ignored rather than failing the line (files made by other
    # tools carry their own annotations), except the ones that say something this format says
    # another way ("pinned", "tags"...): those fail the line, naming the field to use
    # (_line_rules.py), so that nothing is stored without what the line asked for.
    model_config = ConfigDict(extra="ignore", strict=True)

    id: str | None = Field(default=None, min_length=1, max_length=200)
    text: str = Field(min_length=1)
    kind: str = "fact"
    importance: int = Field(default=3, ge=1, le=5)
    scope: Literal["global", "agent", "chat"] = "agent"
    tier: Literal["pinned", "long", "short", "working"] = "long"
    status: Literal["proposed", "active", "superseded", "expired", "rejected", "forgotten"] = "active"
    created_at: float | None = None
    expires_at: float | None = None
    supersedes: str | None = None

    @field_validator("created_at", "expires_at", mode="before")
    @classmethod
    def _time(cls, value: object) -> float | None:
        return None if value is None or value == "" else parse_time(value)

    @field_validator("id", "text", "kind", "supersedes")
    @classmethod
    def _no_nul(cls, value: str | None) -> str | None:
        return None if value is None else strict_text(value)


@dataclass(frozen=True)
class ParsedLine:
    number: int  # 1-based line number in the file
    line: ImportLine | None
    error: str = ""
    ignored_fields: tuple[str, ...] = ()


def parse_time(value: object) -> float:
    """Epoch seconds from an ISO date or date-time (UTC when no zone is given) or a number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _sane_time(float(value))
    if not isinstance(value, str):
        raise ValueError(f"expected an ISO date like 2026-06-30, got {value!r}")
    text = value.strip().replace("Z", "+00:00")
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise ValueError(
                f"{value!r} is not an ISO date like 2026-06-30 or 2026-06-30T09:00:00Z"
            ) from None
        moment = datetime(day.year, day.month, day.day, tzinfo=UTC)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return _sane_time(moment.timestamp())


def _sane_time(seconds: float) -> float:
    problem = time_problem(seconds)
    if problem:
        raise ValueError(problem)
    return seconds


def parse_lines(lines: Iterable[str]) -> list[ParsedLine]:
    """Every non-blank line of a JSONL file, parsed or with the reason it cannot be."""
    parsed: list[ParsedLine] = []
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if len(raw) > MAX_LINE_CHARS:
            parsed.append(ParsedLine(number, None, f"longer than {MAX_LINE_CHARS} characters"))
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as error:
            parsed.append(ParsedLine(number, None, f"not JSON ({error.msg})"))
            continue
        except RecursionError:
            parsed.append(ParsedLine(number, None, _TOO_DEEP))
            continue
        if not isinstance(data, dict):
            parsed.append(ParsedLine(number, None, 'not a JSON object: give one {"text": ...} object a line'))
            continue
        problems = line_problems(data)
        try:
            line = ImportLine.model_validate(data)
        except ValidationError as error:
            problems += [_said(e) for e in error.errors()]
        except RecursionError:
            problems.append(_TOO_DEEP)
        if problems:
            parsed.append(ParsedLine(number, None, "; ".join(problems)))
            continue
        ignored = tuple(sorted(set(data) - set(ImportLine.model_fields) - _EXPORT_ONLY))
        parsed.append(ParsedLine(number, line, ignored_fields=ignored))
    return parsed


_TOO_DEEP = "nested too deeply to read (a memory line is one flat object): fix or remove the line"


def _said(error: object) -> str:
    """One Pydantic error as "field: what is wrong" (the input is not repeated: it may be huge)."""
    assert isinstance(error, dict)
    where = ".".join(str(p) for p in error["loc"]) or "line"
    message = str(error["msg"]).removeprefix("Value error, ")
    hint = _TYPE_HINTS.get(where, "") if str(error["type"]).endswith("_type") else ""
    return f"{where}: {message}{hint}"


_TYPE_HINTS = {
    "text": ": give the memory's words as a JSON string",
    "importance": ": give a whole number 1-5, not in quotes",
    "id": ": give a JSON string",
    "kind": ": give a short word as a JSON string",
    "supersedes": ": give the id of a memory as a JSON string",
}


def _iso(value: float | None) -> str | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value, UTC).isoformat().replace("+00:00", "Z")


def _bad_times(memory: Memory) -> list[str]:
    """The times of a stored memory no date can show (written before they were checked)."""
    return [
        f"{name} {value!r} is not a valid time"
        for name in ("created_at", "updated_at", "expires_at", "last_used_at")
        if time_problem(value := getattr(memory, name))
    ]


def memory_line(memory: Memory, supersedes: str | None = None) -> dict[str, object]:
    """A memory as one export line (also the ``--json`` form of ``memory list``)."""
    p = memory.provenance
    bad = _bad_times(memory)
    if bad:
        memory = _without_bad_times(memory)
    line: dict[str, object] = {
        "id": memory.id,
        "text": memory.text,
        "kind": memory.kind,
        "importance": memory.importance,
        "scope": memory.scope,
        "tier": memory.tier,
        "status": memory.status,
        "created_at": _iso(memory.created_at),
        "updated_at": _iso(memory.updated_at),
        "expires_at": _iso(memory.expires_at),
        "last_used_at": _iso(memory.last_used_at),
        "use_count": memory.use_count,
        "seen_count": memory.seen_count,
        "superseded_by": memory.superseded_by,
        "supersedes": supersedes if supersedes is not None else memory.supersedes,
        "source": {"session": p.session_id, "message": p.message_id, "speaker": p.speaker, "quote": p.quote},
    }
    if bad:
        line["problem"] = (
            "; ".join(bad) + ": shown as null (the memory is kept); if it is still true, forget it "
            "and add it again to give it a valid date"
        )
    return line


def _without_bad_times(memory: Memory) -> Memory:
    def ok(value: float | None) -> float | None:
        return None if time_problem(value) else value

    return replace(
        memory,
        created_at=ok(memory.created_at),  # type: ignore[arg-type]
        updated_at=ok(memory.updated_at),  # type: ignore[arg-type]
        expires_at=ok(memory.expires_at),
        last_used_at=ok(memory.last_used_at),
    )
