"""``{{var}}`` templates and condition expressions of workflows, in a sandbox.

A workflow file may come from someone else, and the values it renders come from models and tools:
templates run in Jinja2's immutable sandbox (no attribute walks to internals, no mutation), with
no includes or imports, a budget on loop iterations, size checks on ``*``, ``**`` and the width
arguments of filters, and a cap on the output. An undefined variable is an error naming it, the
state and the keys that do exist; ``undefined: keep`` renders it as the literal ``{{name}}``
CodeMie leaves (for workflows imported from it).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, Undefined, UndefinedError, meta
from jinja2.exceptions import SecurityError

from agent_core.workflows._sandbox import (
    MAX_ITERATIONS,
    MAX_VALUE_CHARS,
    MAX_WIDTH,
    Sandbox,
    TemplateProblem,
    WorkflowTemplateError,
    budget,
    guarded_filter,
    private_attribute,
    private_reads,
    reset_budget,
    spend,
    template_line,
)

__all__ = [
    "MAX_ITERATIONS",
    "MAX_OUTPUT_CHARS",
    "TemplateProblem",
    "UndefinedMode",
    "WorkflowTemplateError",
    "condition",
    "private_attributes",
    "render",
    "render_all",
    "variables_of",
]

UndefinedMode = Literal["error", "keep"]

MAX_OUTPUT_CHARS = MAX_VALUE_CHARS  # what one template may produce
MAX_TEMPLATE_CHARS = 200_000


def _checked_width(name: str, filter_: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(filter_)  # keeps jinja_pass_arg (truncate is given the environment first)
    def checked(*args: Any, **kwargs: Any) -> Any:
        for value in (*args[1:], *kwargs.values()):
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_WIDTH:
                raise TemplateProblem(f"the {name} filter was given {value:,} (at most {MAX_WIDTH:,})")
        return filter_(*args, **kwargs)

    return checked


def _safe_format(value: Any, *args: Any, **kwargs: Any) -> str:
    """``|format``: sized as the ``%`` operator is (a width like "%999999999s" would allocate first)."""
    text = str(value)
    return str(_ENVIRONMENTS["error"].call_binop(None, "%", text, kwargs or args))


class _KeepUndefined(Undefined):
    """CodeMie's behaviour: an undefined variable renders as the literal ``{{name}}``."""

    def __str__(self) -> str:
        return "{{" + (self._undefined_name or "") + "}}"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _KeepUndefined(name=f"{self._undefined_name}.{name}")

    def __getitem__(self, name: Any) -> Any:
        if isinstance(name, str) and name.startswith("__"):  # what the sandbox asks after getattr
            raise TemplateProblem(private_attribute(name))
        return _KeepUndefined(name=f"{self._undefined_name}.{name}")


def _as_text(value: Any) -> Any:
    """A dict or list printed whole (``{{files}}``) reads as JSON, which models read best, rather
    than as Python's repr; everything else prints as Jinja2 prints it."""
    if isinstance(value, dict | list):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except ValueError:  # a circular value: Jinja2's own way
            return value
    return value


def _environment(mode: UndefinedMode) -> Sandbox:
    env = Sandbox(
        undefined=_KeepUndefined if mode == "keep" else StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        finalize=_as_text,
    )
    # Its globals are range, dict and len: no lipsum, cycler, joiner, namespace.
    for name in ("center", "indent", "truncate", "wordwrap", "batch", "slice", "round"):
        env.filters[name] = _checked_width(name, env.filters[name])
    env.filters["format"] = _safe_format
    env.filters = {name: guarded_filter(name, filter_) for name, filter_ in env.filters.items()}
    return env


_ENVIRONMENTS = {mode: _environment(mode) for mode in ("error", "keep")}


def render(
    template: str,
    store: Mapping[str, Any],
    *,
    where: str,
    undefined: UndefinedMode = "error",
) -> str:
    """``template`` filled from the context ``store``; ``where`` names what is rendered (e.g.
    "state 'fetch', task") for the error message.

    Raises:
        WorkflowTemplateError: a syntax error, an undefined variable (naming the keys that exist),
            an unsafe access, or a budget exceeded; nothing partial is returned.
    """
    if "{" not in template:
        return template  # nothing to render: the common case costs nothing
    if len(template) > MAX_TEMPLATE_CHARS:
        raise WorkflowTemplateError(f"{where}: the template is longer than {MAX_TEMPLATE_CHARS:,} characters")
    env = _ENVIRONMENTS[undefined]
    try:
        compiled = env.from_string(template)
    except TemplateSyntaxError as error:
        raise WorkflowTemplateError(
            f"{where}: template syntax error on line {error.lineno}: {error.message}"
        ) from error
    token = budget()
    try:
        return _bounded("".join(_counted(compiled.generate(dict(store)))), where)
    except _FAILURES as error:
        raise _failure(error, where, store) from error
    finally:
        reset_budget(token)


def render_all(value: Any, store: Mapping[str, Any], *, where: str, undefined: UndefinedMode) -> Any:
    """Every string in ``value`` (a tool's arguments: nested dicts and lists) rendered from the
    ``store``; other values as they are.

    Raises:
        WorkflowTemplateError: as :func:`render`, for the first string that fails.
    """
    if isinstance(value, str):
        return render(value, store, where=where, undefined=undefined)
    if isinstance(value, dict):
        return {k: render_all(v, store, where=where, undefined=undefined) for k, v in value.items()}
    if isinstance(value, list):
        return [render_all(v, store, where=where, undefined=undefined) for v in value]
    return value


# What rendering may raise besides RenderTimeout (a TimeoutError, left to stop the run at its cap).
_FAILURES = (
    TemplateProblem, TemplateError, TypeError, ValueError, ZeroDivisionError, OverflowError, RecursionError,
    LookupError, AttributeError, AssertionError, MemoryError,
)  # fmt: skip


def _failure(
    error: BaseException, where: str, store: Mapping[str, Any], *, expression: bool = False
) -> WorkflowTemplateError:
    """The message for a rendering's failure: what, on which line, and the fix where it is known."""
    line = template_line(error)
    at = f"{where}{' (the condition)' if expression else ''}{f', line {line}' if line and not expression else ''}"
    if isinstance(error, UndefinedError):
        fix = (
            "" if expression
            else " Store it in an earlier state, give it as input, or set `undefined: keep` to leave it as text"
        )  # fmt: skip
        return WorkflowTemplateError(f"{at}: {error.message}. The context store holds: {_keys(store)}.{fix}")
    if isinstance(error, SecurityError | TemplateProblem):
        return WorkflowTemplateError(f"{at}: refused: {error}")
    if isinstance(error, RecursionError):
        return WorkflowTemplateError(f"{at}: refused: the template recurses too deeply")
    if isinstance(error, MemoryError):
        return WorkflowTemplateError(f"{at}: refused: it ran out of memory; make it build smaller values")
    return WorkflowTemplateError(f"{at}: {type(error).__name__}: {error}")


def _counted(chunks: Iterator[str]) -> Iterator[str]:
    """The rendered chunks, a loop step charged per chunk and the output capped as it grows."""
    size = 0
    for chunk in chunks:
        spend(1)
        size += len(chunk)
        if size > MAX_OUTPUT_CHARS:
            raise TemplateProblem(f"the output passed {MAX_OUTPUT_CHARS:,} characters")
        yield chunk


def _bounded(text: str, where: str) -> str:
    if len(text) > MAX_OUTPUT_CHARS:
        raise WorkflowTemplateError(f"{where}: refused: the output passed {MAX_OUTPUT_CHARS:,} characters")
    return text


def condition(expression: str, store: Mapping[str, Any], *, where: str) -> bool:
    """A transition's ``condition.expression`` (variables without braces: ``role == 'admin'``),
    evaluated in the sandbox against the store.

    Raises:
        WorkflowTemplateError: a syntax error, an undefined variable, or an unsafe access.
    """
    env = _ENVIRONMENTS["error"]
    try:
        compiled = env.compile_expression(expression, undefined_to_none=False)
    except TemplateSyntaxError as error:
        raise WorkflowTemplateError(f"{where}: the condition does not parse: {error.message}") from error
    token = budget()
    try:
        return bool(compiled(**dict(store)))
    except _FAILURES as error:
        raise _failure(error, where, store, expression=True) from error
    finally:
        reset_budget(token)


def variables_of(template: str, *, expression: bool = False) -> set[str]:
    """The root variables a template (or a condition expression) reads from the store.

    Raises:
        WorkflowTemplateError: it does not parse.
    """
    env = _ENVIRONMENTS["error"]
    source = f"{{{{ ({template}) }}}}" if expression else template
    try:
        parsed = env.parse(source)
    except TemplateSyntaxError as error:
        raise WorkflowTemplateError(f"line {error.lineno}: {error.message}") from error
    return set(meta.find_undeclared_variables(parsed)) - set(env.globals)


def private_attributes(template: str, *, expression: bool = False) -> list[tuple[str, int]]:
    """The private attributes a template (or a condition) reads, with their lines; none when it
    does not parse (that is reported on its own)."""
    source = f"{{{{ ({template}) }}}}" if expression else template
    try:
        return private_reads(_ENVIRONMENTS["error"].parse(source))
    except TemplateSyntaxError:
        return []


def _keys(store: Mapping[str, Any]) -> str:
    keys = sorted(store)
    if not keys:
        return "nothing yet"
    shown = ", ".join(keys[:30])
    return shown + (f" (and {len(keys) - 30} more)" if len(keys) > 30 else "")
