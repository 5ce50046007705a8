"""A server's elicitation schema, bounded and checked before any front end sees it."""

from __future__ import annotations

from typing import Any

import pytest

from agent_core.mcp.elicitation import (
    MAX_FIELDS,
    ElicitationSchemaError,
    answer_problems,
    form_from_schema,
    url_elicitation,
)


def schema(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": ["name"] if "name" in properties else []}


@pytest.mark.parametrize(
    "bad",
    [
        "not a schema",
        {"type": "array"},
        {"type": "object", "properties": {}},
        {"type": "object", "properties": {"a": {"type": "object", "properties": {}}}},
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["b"]},
        {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(MAX_FIELDS + 1)}},
        {"type": "object", "properties": {"a": {"type": "string", "enum": [str(i) for i in range(1000)]}}},
        {"type": "object", "properties": {"a": {"type": "string", "description": "x" * 200_000}}},
        {"type": "object", "properties": {"a": {"type": "integer", "minimum": "one"}}},
    ],
)
def test_a_malformed_unsupported_or_oversized_schema_is_refused(bad: Any) -> None:
    with pytest.raises(ElicitationSchemaError):
        form_from_schema("s", "m", bad)


def test_long_texts_from_the_server_are_cut() -> None:
    form = form_from_schema("s", "m" * 10_000, schema(name={"type": "string", "title": "t" * 1000}))
    assert len(form.message) <= 4_000 and len(form.fields[0].title) <= 200


def test_answers_are_checked_against_the_form() -> None:
    form = form_from_schema(
        "s",
        "m",
        schema(
            name={"type": "string", "maxLength": 5},
            email={"type": "string", "format": "email"},
            age={"type": "integer", "minimum": 1, "maximum": 9},
            pets={"type": "array", "items": {"enum": ["cat", "dog"]}, "maxItems": 1},
        ),
    )
    assert answer_problems(form.fields, {"name": "Ada"}) == {}
    problems = answer_problems(form.fields, {"name": "", "email": "nope", "age": 2.5, "pets": ["cat", "dog"]})
    assert set(problems) == {"name", "email", "age", "pets"}
    assert problems["name"] == "required"
    assert answer_problems(form.fields, {"name": "Ada Lovelace"}) == {"name": "at most 5 characters"}


@pytest.mark.parametrize("url", ["javascript:alert(1)", "file:///etc/passwd", "https://" + "a" * 5000])
def test_only_bounded_http_links_are_offered(url: str) -> None:
    with pytest.raises(ElicitationSchemaError):
        url_elicitation("s", "m", url, None)
