"""A tool's structured result: checked against its output schema, and written out for a model.

ContextDesk validates itself instead of letting the SDK do it: the SDK raises on a mismatch and
the whole result is lost, while a user should see what came back and why it is not valid.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import SchemaError, ValidationError
from jsonschema.exceptions import best_match
from jsonschema.validators import extend, validator_for
from referencing.exceptions import Unresolvable

__all__ = [
    "MAX_STRUCTURED_TEXT",
    "SCHEMA_CHECK_SECONDS",
    "checked_problem",
    "structured_problem",
    "structured_text",
    "wraps_text",
]

logger = logging.getLogger(__name__)

# How long checking one result against its schema may take; then it counts as not checked.
SCHEMA_CHECK_SECONDS = 5.0

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
        # ``pattern`` is not checked: Python's regular expressions cannot be stopped and hold the
        # interpreter while they run, so a server's pattern could freeze the app.
        checking = extend(validator_class, {"pattern": _pattern_not_checked})  # type: ignore[no-untyped-call]
        error = best_match(checking(document).iter_errors(value))
    except SchemaError as bad:
        return f"The tool's output schema is not valid JSON Schema ({bad.message}), so nothing was checked."
    except Unresolvable as missing:
        return f"The tool's output schema has a reference that does not resolve ({missing})."
    if error is None:
        return None
    where = "/".join(str(step) for step in error.absolute_path)
    return f"Does not match the tool's output schema{f' at {where}' if where else ''}: {error.message}"[:500]


async def checked_problem(
    schema: Mapping[str, Any] | None, value: Mapping[str, Any] | None, *, is_error: bool
) -> str | None:
    """:func:`structured_problem`, off the event loop and bounded in time.

    A big result can take seconds to check (``uniqueItems`` over thousands of objects compares every
    pair): the check runs in a daemon thread, which is left to finish (or to end with the process)
    once its time is up, rather than in a pool thread that would hold up the app's exit.
    """
    if schema is None or is_error:
        return None
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def deliver(problem: str | None) -> None:
        if not answer.done():
            answer.set_result(problem)

    def check() -> None:
        try:
            problem = structured_problem(schema, value, is_error=is_error)
        except Exception:  # the thread's top level: a strange schema must not leave the call waiting
            logger.exception("Checking structured content against its output schema failed")
            problem = "The tool's output schema could not be used to check it (the log says why)."
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is waiting
            loop.call_soon_threadsafe(deliver, problem)

    threading.Thread(target=check, name="mcp-output-schema-check", daemon=True).start()
    try:
        return await asyncio.wait_for(answer, SCHEMA_CHECK_SECONDS)
    except TimeoutError:
        return (
            f"Checking it against the tool's output schema took over {SCHEMA_CHECK_SECONDS:g} s: not checked."
        )


def _pattern_not_checked(*_: object) -> Iterator[ValidationError]:
    return iter(())


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
