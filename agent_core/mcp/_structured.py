"""A tool's structured result: checked against its output schema, and written out for a model.

ContextDesk validates itself instead of letting the SDK do it: the SDK raises on a mismatch and
the whole result is lost, while a user should see what came back and why it is not valid.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from jsonschema import SchemaError
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from referencing.exceptions import Unresolvable

__all__ = ["MAX_STRUCTURED_TEXT", "structured_problem", "structured_text", "wraps_text"]

# Characters of structured content a model reads; a bigger result is cut, and says so.
MAX_STRUCTURED_TEXT = 20_000


def structured_problem(
    schema: Mapping[str, Any] | None, value: Mapping[str, Any] | None, *, is_error: bool
) -> str | None:
    """Why ``value`` does not satisfy the tool's output ``schema``, in one line; None when it does.

    An error result is not checked (the protocol exempts it), nor a tool without a schema.
    """
    if schema is None or is_error:
        return None
    if value is None:
        return "The tool declares an output schema but sent no structured content."
    document = dict(schema)
    try:
        validator_class = validator_for(document)
        validator_class.check_schema(document)
        error = best_match(validator_class(document).iter_errors(value))
    except SchemaError as bad:
        return f"The tool's output schema is not valid JSON Schema ({bad.message}), so nothing was checked."
    except Unresolvable as missing:
        return f"The tool's output schema has a reference that does not resolve ({missing})."
    if error is None:
        return None
    where = "/".join(str(step) for step in error.absolute_path)
    return f"Does not match the tool's output schema{f' at {where}' if where else ''}: {error.message}"[:500]


def structured_text(value: Mapping[str, Any], already_said: str) -> str:
    """``value`` as JSON for the model, or "" when a text part already carries the same JSON."""
    if _same_json(already_said, value):
        return ""
    text = json.dumps(value, ensure_ascii=False, indent=None, default=str)
    if len(text) > MAX_STRUCTURED_TEXT:
        text = f"{text[:MAX_STRUCTURED_TEXT]}… [cut: {len(text):,} characters in all]"
    return text


def wraps_text(value: Mapping[str, Any], text: str) -> bool:
    """Whether ``value`` is only ``{"result": <the text>}``: how SDK-built servers wrap a plain
    return value, which says nothing the text does not."""
    if list(value) != ["result"] or len(text) > 4 * MAX_STRUCTURED_TEXT:
        return False
    if value["result"] == text:
        return True
    try:
        return bool(json.loads(text) == value["result"])
    except ValueError:
        return False


def _same_json(text: str, value: Mapping[str, Any]) -> bool:
    """Whether ``text`` already says ``value``: as its JSON, or as a wrapped plain value."""
    if len(text) > 4 * MAX_STRUCTURED_TEXT:
        return False
    if wraps_text(value, text):
        return True
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False
