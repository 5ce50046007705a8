"""The JSON-lines form of memories: what ``memory import`` reads and ``memory export`` writes.

One object a line: ``{"id", "text", "kind"?, "importance"?, "scope"?, "tier"?, "status"?,
"created_at"? (ISO), "expires_at"? (ISO date or time), "supersedes"? (an id)}``. Export writes
every field, so an export imports again unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent_core.memory.records import Memory

__all__ = ["ImportLine", "ParsedLine", "memory_line", "parse_lines", "parse_time"]

MAX_LINE_CHARS = 100_000
# Written by export, recomputed on import: not worth a warning.
_EXPORT_ONLY = frozenset({"updated_at", "last_used_at", "use_count", "seen_count", "superseded_by", "source"})


class ImportLine(BaseModel):
    # Unknown fields are reported and ignored rather than failing the line: files made by other
    # tools carry their own annotations, and losing a user's memories over one would be worse.
    model_config = ConfigDict(extra="ignore")

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
        return None if value in (None, "") else parse_time(value)


@dataclass(frozen=True)
class ParsedLine:
    number: int  # 1-based line number in the file
    line: ImportLine | None
    error: str = ""
    ignored_fields: tuple[str, ...] = ()


def parse_time(value: object) -> float:
    """Epoch seconds from an ISO date or date-time (UTC when no zone is given) or a number."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
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
    return moment.timestamp()


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
        if not isinstance(data, dict):
            parsed.append(ParsedLine(number, None, "not a JSON object"))
            continue
        try:
            line = ImportLine.model_validate(data)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "line"
            parsed.append(ParsedLine(number, None, f"{where}: {first['msg']}"))
            continue
        ignored = tuple(sorted(set(data) - set(ImportLine.model_fields) - _EXPORT_ONLY))
        parsed.append(ParsedLine(number, line, ignored_fields=ignored))
    return parsed


def _iso(value: float | None) -> str | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value, UTC).isoformat().replace("+00:00", "Z")


def memory_line(memory: Memory, supersedes: str | None = None) -> dict[str, object]:
    """A memory as one export line (also the ``--json`` form of ``memory list``)."""
    p = memory.provenance
    return {
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
