"""A state's output as data: CodeMie's chain (JSON, a Python literal, a ```json / ~~~json fenced
block, else the plain string), without ``eval``, plus JSON repair for what models really write
(prose around the JSON, trailing commas, single quotes, a truncated end). Which step succeeded is
recorded, for the run view. A JSON pointer then picks the part of the output a state keeps."""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

import json_repair

from agent_core.workflows.errors import WorkflowError

__all__ = ["MAX_PARSED_CHARS", "ParsePath", "Parsed", "parse_output", "pointed"]

ParsePath = Literal["json", "literal", "fenced", "repaired", "string"]

# Longer outputs are kept as text: parsing them (literal_eval above all) costs too much.
MAX_PARSED_CHARS = 2_000_000
MAX_LITERAL_CHARS = 100_000
MAX_NESTING = 200

_FENCED = re.compile(r"(?:```|~~~)[ \t]*(?:json|JSON|json5)?[ \t]*\n(.*?)\n?[ \t]*(?:```|~~~)", re.DOTALL)


@dataclass(frozen=True)
class Parsed:
    value: Any  # a dict, a list, a scalar, or the text itself
    path: ParsePath


def parse_output(text: str, *, repair: bool = True) -> Parsed:
    """``text`` parsed the way CodeMie does, then repaired if that fails (unless ``repair`` is
    False: a state that asks for plain text); the plain string when nothing in it is structured
    data."""
    stripped = text.strip()
    if not stripped or len(stripped) > MAX_PARSED_CHARS or _too_deep(stripped):
        return Parsed(text, "string")
    try:
        return Parsed(json.loads(stripped), "json")
    except ValueError:
        pass
    literal = _literal(stripped)
    if literal is not None:
        return Parsed(literal, "literal")
    for block in _FENCED.findall(stripped):
        block = block.strip()
        try:
            return Parsed(json.loads(block), "fenced")
        except ValueError:
            value = _literal(block) or _repaired(block)
            if value is not None:
                return Parsed(value, "fenced")
    value = _repaired(_json_span(stripped)) if repair else None
    if value is not None:
        return Parsed(value, "repaired")
    return Parsed(text, "string")


def _literal(text: str) -> Any:
    """A Python literal (dict or list) such as models print (``{'a': True}``), without ``eval``."""
    if len(text) > MAX_LITERAL_CHARS or text[:1] not in "{[(":
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict | list) else None


def _json_span(text: str) -> str:
    """From the first ``{`` or ``[`` to the last ``}`` or ``]`` (or the end, when truncated)."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return ""
    start = min(starts)
    end = max(text.rfind("}"), text.rfind("]"))
    return text[start : end + 1] if end > start else text[start:]


def _repaired(text: str) -> Any:
    """Repaired JSON when ``text`` holds an object or array worth keeping, else None."""
    if not text or text[0] not in "{[":
        return None
    try:
        value = json_repair.repair_json(text, return_objects=True, skip_json_loads=False)
    except (ValueError, RecursionError, MemoryError):
        return None
    return value if isinstance(value, dict | list) and value else None


def _too_deep(text: str) -> bool:
    """Nesting so deep that parsing it would recurse out of the stack (a hostile output)."""
    depth = deepest = 0
    for char in text[:MAX_LITERAL_CHARS]:
        if char in "{[(":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_NESTING:
                return True
        elif char in "}])":
            depth -= 1
    return False


def pointed(value: Any, pointer: str | None) -> Any:
    """RFC 6901: ``/items/0/name`` into parsed output (an empty pointer is the whole).

    Raises:
        WorkflowError: the pointer finds nothing in ``value``.
    """
    if not pointer:
        return value
    for raw in pointer.lstrip("/").split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            raise WorkflowError(f"the JSON pointer {pointer} finds nothing in the output")
    return value
