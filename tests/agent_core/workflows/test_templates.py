"""Workflow templates: CodeMie's {{var}} with nested access, undefined variables as errors (or
kept as text on request), sandboxed conditions, the variables a template reads, and a corpus of
injection and denial-of-service attempts that are all refused with a clear error."""

from __future__ import annotations

import time

import pytest

from agent_core.agent.workflow_files.templates import WorkflowTemplateError, condition, render, variables_of

STORE = {
    "user_id": "12345",
    "config": {"max_items": 10, "format": "json"},
    "user": {"profile": {"name": "Alice"}},
    "files": [{"name": "a.txt", "size": 100}, {"name": "b.txt", "size": 200}],
    "role": "admin",
    "items": [1, 2, 3],
}


def test_variables_nested_values_and_arrays_render_as_codemie_documents_them() -> None:
    assert render("Process user {{user_id}}", STORE, where="t") == "Process user 12345"
    assert render("Fetch {{config.max_items}} in {{config.format}}", STORE, where="t") == "Fetch 10 in json"
    assert render("Welcome {{user.profile.name}}", STORE, where="t") == "Welcome Alice"
    assert (
        render("First: {{files[0].name}} ({{files[0].size}} bytes)", STORE, where="t")
        == "First: a.txt (100 bytes)"
    )
    loop = "{% for f in files %}- {{f.name}}: {{f.size}}\n{% endfor %}"
    assert render(loop, STORE, where="t") == "- a.txt: 100\n- b.txt: 200\n"
    assert render("no braces at all", {}, where="t") == "no braces at all"


def test_an_undefined_variable_is_an_error_naming_it_the_place_and_the_keys() -> None:
    with pytest.raises(WorkflowTemplateError) as raised:
        render("Hello {{nmae}}", {"name": "Alice", "id": 1}, where="state 'greet', task")
    message = str(raised.value)
    assert "state 'greet', task" in message and "'nmae' is undefined" in message
    assert "holds: id, name" in message
    with pytest.raises(WorkflowTemplateError, match="'dict object' has no attribute 'email'"):
        render("{{user.profile.email}}", STORE, where="t")


def test_undefined_keep_renders_the_literal_as_codemie_does() -> None:
    assert render("Hi {{who}} and {{a.b}}", {}, where="t", undefined="keep") == "Hi {{who}} and {{a.b}}"


def test_conditions_read_variables_without_braces_in_the_sandbox() -> None:
    assert condition("role == 'admin'", STORE, where="c") is True
    assert condition("config.max_items > 20 or len(items) == 3", STORE, where="c") is True
    assert condition("'x' in items", STORE, where="c") is False
    with pytest.raises(WorkflowTemplateError, match="'missing' is undefined"):
        condition("missing == 1", STORE, where="c")
    with pytest.raises(WorkflowTemplateError, match="does not parse"):
        condition("role ==", STORE, where="c")


def test_the_variables_a_template_reads_are_found_without_rendering() -> None:
    assert variables_of("{{a}} {{b.c}} {% for x in items %}{{x}}{{y}}{% endfor %}") == {
        "a",
        "b",
        "items",
        "y",
    }
    assert variables_of("user_role == 'admin' and len(tags) > 0", expression=True) == {"user_role", "tags"}
    with pytest.raises(WorkflowTemplateError, match="line 1"):
        variables_of("{{ unclosed")


ATTACKS = [
    "{{ ''.__class__ }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ config.__class__.__init__.__globals__ }}",
    "{{ user.__class__.__bases__ }}",
    "{{ files.__class__.__base__.__subclasses__() }}",
    "{{ ''|attr('__class__') }}",
    "{{ (''|attr('__class__'))|attr('__mro__') }}",
    "{{ range.__globals__ }}",
    "{{ len.__self__ }}",
    "{{ dict.__init__.__globals__['__builtins__'] }}",
    "{{ self.__init__.__globals__ }}",
    "{{ lipsum.__globals__ }}",
    "{{ cycler.__init__.__globals__.os }}",
    "{{ joiner.__init__.__globals__ }}",
    "{{ namespace.__init__.__globals__ }}",
    "{{ request.application.__globals__ }}",
    "{{ ''.format.__globals__ }}",
    "{{ '{0.__class__}'.format(items) }}",
    "{{ '{0.__class__.__mro__}'.format('') }}",
    "{{ items.append(4) }}",
    "{{ config.update({'x': 1}) }}",
    "{{ config.pop('format') }}",
    "{{ items.clear() }}",
    "{% set x = items.extend([1]) %}{{ x }}",
    "{{ range(10**9)|list }}",
    "{{ range(999999999)|length }}",
    "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}",
    "{% for i in range(20000) %}{% for j in range(20000) %}{% endfor %}{% endfor %}",
    "{{ 'a' * 1000000000 }}",
    "{{ items * 100000000 }}",
    "{{ (2 ** 1000) ** 1000 }}",
    "{{ 10 ** 100000 }}",
    "{{ 'x'|center(1000000000) }}",
    "{{ 'x'|indent(1000000000) }}",
    "{{ 'x'|wordwrap(1000000000) }}",
    "{{ '%999999999s'|format('x') }}",
    "{{ '%*s'|format(999999999, 'x') }}",
    "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}",
    "{% include '/etc/passwd' %}",
    "{% import 'os' as os %}",
    "{% extends '/etc/hostname' %}",
    "{% from 'x' import y %}",
    "{{ cycler('a') }}",
    "{{ lipsum(1000000) }}",
]


@pytest.mark.parametrize("attack", ATTACKS)
def test_injection_and_denial_of_service_attempts_are_refused(attack: str) -> None:
    started = time.monotonic()
    with pytest.raises(WorkflowTemplateError) as raised:
        render(attack, STORE, where="state 'x', task")
    assert "state 'x', task" in str(raised.value)
    assert time.monotonic() - started < 5  # refused, not run to exhaustion
    assert STORE["items"] == [1, 2, 3] and STORE["config"] == {"max_items": 10, "format": "json"}


def test_the_corpus_is_large_enough() -> None:
    assert len(ATTACKS) >= 40


def test_a_list_or_dict_printed_whole_reads_as_json_and_its_parts_as_themselves() -> None:
    store = {"files": ["a.txt", "b.txt"], "user": {"name": "Zoë", "tags": []}, "n": 3}
    assert (
        render("{{files}} / {{user}}", store, where="t") == '["a.txt", "b.txt"] / {"name": "Zoë", "tags": []}'
    )
    assert render("{{files[0]}} {{user.name}} {{n}} {{files | length}}", store, where="t") == "a.txt Zoë 3 2"
    assert render("{% for f in files %}{{f}};{% endfor %}", store, where="t") == "a.txt;b.txt;"
