"""Elicitation: a server asks the user for a few values (a form) or to visit a URL.

The core turns the server's request into plain values (``FormElicitation``, ``UrlElicitation``)
and hands them to the front end's ``ElicitationHandler``; the desktop shows a form, the CLI asks
at the terminal. A server is untrusted: its schema is bounded and checked here, once, so every
front end gets the same fields and a malformed or oversized request is declined with a note, never
shown. Where no front end can ask (headless), every elicitation is declined.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from agent_core.errors import ContextDeskError
from agent_core.mcp.secret_fields import is_secret_schema

__all__ = [
    "MAX_FIELDS",
    "MAX_TEXT_ANSWER",
    "Choice",
    "ElicitationAnswer",
    "ElicitationField",
    "ElicitationHandler",
    "ElicitationRequest",
    "ElicitationSchemaError",
    "FieldKind",
    "FieldValue",
    "FormElicitation",
    "UrlElicitation",
    "answer_problems",
    "form_from_schema",
    "url_elicitation",
]

# Bounds on what a server may ask: a form is for a handful of values typed by a person.
MAX_FIELDS = 50
MAX_CHOICES = 200
MAX_SCHEMA_CHARS = 100_000
MAX_NAME = 100
MAX_LABEL = 200
MAX_DESCRIPTION = 2_000
MAX_MESSAGE = 4_000
MAX_URL = 4_096
MAX_TEXT_ANSWER = 10_000  # the longest string answer, whatever the schema allows

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "multi_choice"]
FieldValue = str | int | float | bool | list[str]
_FORMATS = {"email", "uri", "date", "date-time"}
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class ElicitationSchemaError(ContextDeskError):
    """A server's elicitation request cannot be shown (malformed, unsupported or too big)."""


@dataclass(frozen=True)
class Choice:
    value: str
    label: str


@dataclass(frozen=True)
class ElicitationField:
    """One value the server asks for."""

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    default: FieldValue | None = None
    choices: tuple[Choice, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    format: str | None = None  # email, uri, date, date-time
    min_items: int | None = None
    max_items: int | None = None
    secret: bool = False  # what is typed is hidden (agent_core.mcp.secret_fields)


@dataclass(frozen=True)
class FormElicitation:
    """A form: the server's message and the fields it asks for."""

    server: str
    message: str
    fields: tuple[ElicitationField, ...]
    mode: Literal["form"] = "form"

    @property
    def asks_for_secret(self) -> bool:
        return any(item.secret for item in self.fields)


@dataclass(frozen=True)
class UrlElicitation:
    """A URL the server wants the user to open (a sign-in, a payment): opened only if the user chooses."""

    server: str
    message: str
    url: str
    elicitation_id: str | None = None
    mode: Literal["url"] = "url"


ElicitationRequest = FormElicitation | UrlElicitation


@dataclass(frozen=True)
class ElicitationAnswer:
    """The user's answer: accept (with the values, for a form), decline, or cancel (dismissed)."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, FieldValue] = field(default_factory=dict)
    note: str = ""  # why it was declined without asking (for the server's log)

    @classmethod
    def decline(cls, note: str = "") -> ElicitationAnswer:
        return cls("decline", note=note)


class ElicitationHandler(Protocol):
    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Ask the user; never blocks the event loop (a GUI resolves a future)."""
        ...


def _text(value: Any, limit: int) -> str:
    text = value if isinstance(value, str) else ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(prop: Mapping[str, Any], key: str) -> float | None:
    value = prop.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ElicitationSchemaError(f"'{key}' must be a number")
    return value


def _count(prop: Mapping[str, Any], key: str) -> int | None:
    value = prop.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ElicitationSchemaError(f"'{key}' must be a whole number of at least 0")
    return value


def _choices(options: Any, labels: Any = None) -> tuple[Choice, ...]:
    """Choices from ``enum`` (+ legacy ``enumNames``) or from ``oneOf``/``anyOf`` of ``{const, title}``."""
    if not isinstance(options, list) or not options:
        raise ElicitationSchemaError("a choice needs a non-empty list of options")
    if len(options) > MAX_CHOICES:
        raise ElicitationSchemaError(f"{len(options)} options is more than the {MAX_CHOICES} a form can show")
    choices = []
    for index, option in enumerate(options):
        if isinstance(option, Mapping):
            value, label = option.get("const"), option.get("title", option.get("const"))
        else:
            value = option
            label = labels[index] if isinstance(labels, list) and index < len(labels) else option
        if not isinstance(value, str) or len(value) > MAX_LABEL:
            raise ElicitationSchemaError("every option must be a string")
        choices.append(Choice(value, _text(label, MAX_LABEL) or value))
    return tuple(choices)


def _field(name: str, prop: Any, required: bool) -> ElicitationField:
    if not isinstance(prop, Mapping):
        raise ElicitationSchemaError(f"field '{name}' is not a schema object")
    kind_name = prop.get("type")
    common: dict[str, Any] = {
        "name": name,
        "title": _text(prop.get("title"), MAX_LABEL) or name,
        "description": _text(prop.get("description"), MAX_DESCRIPTION),
        "required": required,
        "secret": is_secret_schema(name, prop),
    }
    default = prop.get("default")
    if kind_name == "string":
        if "enum" in prop or "oneOf" in prop:
            choices = _choices(prop.get("enum", prop.get("oneOf")), prop.get("enumNames"))
            good = isinstance(default, str) and default in {c.value for c in choices}
            return ElicitationField(
                kind="choice", choices=choices, default=default if good else None, **common
            )
        fmt = prop.get("format")
        if fmt is not None and fmt not in _FORMATS:
            fmt = None  # an unknown format is only a hint; the value is still a string
        return ElicitationField(
            kind="string",
            default=_text(default, MAX_TEXT_ANSWER) if isinstance(default, str) else None,
            min_length=_count(prop, "minLength"),
            max_length=_count(prop, "maxLength"),
            format=fmt,
            **common,
        )
    if kind_name in ("number", "integer"):
        good = isinstance(default, int | float) and not isinstance(default, bool)
        return ElicitationField(
            kind=kind_name,
            default=default if good else None,
            minimum=_number(prop, "minimum"),
            maximum=_number(prop, "maximum"),
            **common,
        )
    if kind_name == "boolean":
        return ElicitationField(
            kind="boolean", default=default if isinstance(default, bool) else None, **common
        )
    if kind_name == "array":
        items = prop.get("items")
        if not isinstance(items, Mapping):
            raise ElicitationSchemaError(f"field '{name}' is a list without a list of options")
        choices = _choices(items.get("enum", items.get("anyOf", items.get("oneOf"))), items.get("enumNames"))
        values = {c.value for c in choices}
        good = isinstance(default, list) and all(isinstance(v, str) and v in values for v in default)
        return ElicitationField(
            kind="multi_choice",
            choices=choices,
            default=[str(v) for v in default] if good and isinstance(default, list) else None,
            min_items=_count(prop, "minItems"),
            max_items=_count(prop, "maxItems"),
            **common,
        )
    raise ElicitationSchemaError(
        f"field '{name}' has type {kind_name!r}; a form takes only strings, numbers, integers, "
        "booleans and lists of options (no nested objects)"
    )


def form_from_schema(server: str, message: str, schema: Any) -> FormElicitation:
    """The form a server's ``requestedSchema`` describes.

    Raises:
        ElicitationSchemaError: the schema is malformed, uses what a flat form cannot show, or is too big.
    """
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        raise ElicitationSchemaError("the requested schema is not an object schema")
    try:
        size = len(json.dumps(schema))
    except (TypeError, ValueError) as error:
        raise ElicitationSchemaError(f"the requested schema is not JSON ({error})") from None
    if size > MAX_SCHEMA_CHARS:
        raise ElicitationSchemaError(f"the requested schema is {size} characters, over {MAX_SCHEMA_CHARS}")
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, Mapping) or not isinstance(required, list):
        raise ElicitationSchemaError("'properties' must be an object and 'required' a list")
    if len(properties) > MAX_FIELDS:
        raise ElicitationSchemaError(
            f"{len(properties)} fields is more than the {MAX_FIELDS} a form can show"
        )
    if not properties:
        raise ElicitationSchemaError("the requested schema asks for nothing")
    unknown = [name for name in required if name not in properties]
    if unknown:
        raise ElicitationSchemaError(
            f"required field(s) {', '.join(map(str, unknown))} are not in 'properties'"
        )
    fields = []
    for name, prop in properties.items():
        if not isinstance(name, str) or not name or len(name) > MAX_NAME:
            raise ElicitationSchemaError(f"a field name must be 1 to {MAX_NAME} characters")
        fields.append(_field(name, prop, name in required))
    return FormElicitation(server, _text(message, MAX_MESSAGE), tuple(fields))


def url_elicitation(server: str, message: str, url: str, elicitation_id: str | None) -> UrlElicitation:
    """A URL elicitation, checked: only an http(s) URL of bounded length is ever shown.

    Raises:
        ElicitationSchemaError: the URL is not http(s), has no host, or is too long.
    """
    if len(url) > MAX_URL:
        raise ElicitationSchemaError(f"the URL is {len(url)} characters, over {MAX_URL}")
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ElicitationSchemaError(f"only http(s) links are offered, not {url[:80]!r}")
    return UrlElicitation(server, _text(message, MAX_MESSAGE), url, elicitation_id)


def _problem(item: ElicitationField, value: FieldValue | None) -> str | None:
    if value is None or value == "" or value == []:
        return "required" if item.required else None
    if item.kind == "string":
        if not isinstance(value, str):
            return "must be text"
        limit = min(item.max_length if item.max_length is not None else MAX_TEXT_ANSWER, MAX_TEXT_ANSWER)
        if len(value) > limit:
            return f"at most {limit} characters"
        if item.min_length is not None and len(value) < item.min_length:
            return f"at least {item.min_length} characters"
        return _format_problem(item.format, value)
    if item.kind in ("number", "integer"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            return "must be a number"
        if item.kind == "integer" and not float(value).is_integer():
            return "must be a whole number"
        if item.minimum is not None and value < item.minimum:
            return f"at least {item.minimum:g}"
        if item.maximum is not None and value > item.maximum:
            return f"at most {item.maximum:g}"
        return None
    if item.kind == "boolean":
        return None if isinstance(value, bool) else "must be yes or no"
    values = {c.value for c in item.choices}
    if item.kind == "choice":
        return None if value in values else "pick one of the options"
    if not isinstance(value, list) or not all(v in values for v in value):
        return "pick from the options"
    if item.min_items is not None and len(value) < item.min_items:
        return f"pick at least {item.min_items}"
    if item.max_items is not None and len(value) > item.max_items:
        return f"pick at most {item.max_items}"
    return None


def _format_problem(fmt: str | None, value: str) -> str | None:
    if fmt == "email" and not _EMAIL.match(value):
        return "an email address, like name@example.com"
    if fmt == "uri" and not (urlsplit(value).scheme and urlsplit(value).netloc):
        return "a full address, like https://example.com"
    if fmt in ("date", "date-time"):
        try:
            (dt.date.fromisoformat if fmt == "date" else dt.datetime.fromisoformat)(value)
        except ValueError:
            return "a date like 2026-01-31" if fmt == "date" else "a date and time like 2026-01-31T09:30"
    return None


def answer_problems(
    fields: Sequence[ElicitationField], values: Mapping[str, FieldValue | None]
) -> dict[str, str]:
    """What is wrong with ``values`` for the form, by field name (empty when they can be sent)."""
    problems = {}
    for item in fields:
        problem = _problem(item, values.get(item.name))
        if problem:
            problems[item.name] = problem
    return problems
