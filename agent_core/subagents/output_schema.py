"""Checking a sub-agent's answer against its ``output`` JSON schema."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

__all__ = ["json_text", "schema_problem"]


def schema_problem(text: str, schema: Mapping[str, Any]) -> str | None:
    """Why ``text`` is not a JSON value matching ``schema`` (None when it is)."""
    try:
        value = json.loads(json_text(text))
    except ValueError:
        return "it is not JSON"
    error = next(iter(Draft202012Validator(schema).iter_errors(value)), None)
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path)
    return f"{where + ': ' if where else ''}{error.message}"


_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


def json_text(text: str) -> str:
    fenced = _FENCE.match(text)
    return (fenced.group(1) if fenced else text).strip()
