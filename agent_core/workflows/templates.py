"""``{{var}}`` templates and condition expressions of workflows, in a sandbox.

A workflow file may come from someone else, and the values it renders come from models and tools:
templates run in Jinja2's immutable sandbox (no attribute walks to internals, no mutation), with
no includes or imports, a budget on loop iterations, size checks on ``*``, ``**`` and the width
arguments of filters, and a cap on the output. An undefined variable is an error naming it, the
state and the keys that do exist; ``undefined: keep`` renders it as the literal ``{{name}}``
CodeMie leaves (for workflows imported from it).
"""

from __future__ import annotations

import contextvars
import json
import math
import operator
import re
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal

from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, Undefined, UndefinedError, meta
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from agent_core.errors import ContextDeskError

__all__ = [
    "MAX_ITERATIONS",
    "MAX_OUTPUT_CHARS",
    "TemplateProblem",
    "UndefinedMode",
    "WorkflowTemplateError",
    "condition",
    "render",
    "variables_of",
]

UndefinedMode = Literal["error", "keep"]

MAX_OUTPUT_CHARS = 1_000_000  # what one template may produce
MAX_ITERATIONS = 100_000  # loop steps and range() items in one rendering, together
MAX_WIDTH = 10_000  # widths and counts given to filters (center, indent, truncate, wordwrap…)
MAX_TEMPLATE_CHARS = 200_000


class WorkflowTemplateError(ContextDeskError):
    """A template or condition could not be rendered; the message names what and how to fix it."""


class TemplateProblem(WorkflowTemplateError):
    """Raised by the sandbox's own checks (an unsafe access, a budget exceeded)."""


_budget: contextvars.ContextVar[list[int]] = contextvars.ContextVar("template_budget")


def _spend(steps: int) -> None:
    left = _budget.get(None)
    if left is None:
        return
    left[0] -= steps
    if left[0] < 0:
        raise TemplateProblem(f"the template loops more than {MAX_ITERATIONS:,} times in all")


def _range(*args: int) -> range:
    items = range(*args)
    _spend(len(items))
    return items


def _checked_width(name: str, filter_: Callable[..., Any]) -> Callable[..., Any]:
    def checked(*args: Any, **kwargs: Any) -> Any:
        for value in (*args[1:], *kwargs.values()):
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_WIDTH:
                raise TemplateProblem(f"the {name} filter was given {value:,} (at most {MAX_WIDTH:,})")
        return filter_(*args, **kwargs)

    return checked


def _safe_format(value: Any, *args: Any, **kwargs: Any) -> str:
    """``|format`` with widths checked: "%999999999s" would allocate before any cap."""
    text = str(value)
    for width in re.findall(r"%[-+ #0]*(\d+)", text):
        if int(width) > MAX_WIDTH:
            raise TemplateProblem(f"a format width of {int(width):,} (at most {MAX_WIDTH:,})")
    if "*" in text:
        raise TemplateProblem("'*' widths are not allowed in |format")
    return text % (kwargs or args)


class _Sandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset(["*", "**"])

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        if operator_ == "*":
            for sized, count in ((left, right), (right, left)):
                repeats = isinstance(count, int) and hasattr(sized, "__len__") and not isinstance(sized, bool)
                if repeats and len(sized) * count > MAX_OUTPUT_CHARS:
                    raise TemplateProblem("a repetition ('*') would make more than the output cap")
            return operator.mul(left, right)
        if operator_ == "**":
            numbers = isinstance(left, int | float) and isinstance(right, int | float)
            if numbers and (
                abs(right) > 1000 or (abs(left) > 1 and abs(right) * math.log10(abs(left) + 1) > 1000)
            ):
                raise TemplateProblem("a power ('**') too large to compute")
            return operator.pow(left, right)
        return super().call_binop(context, operator_, left, right)


class _KeepUndefined(Undefined):
    """CodeMie's behaviour: an undefined variable renders as the literal ``{{name}}``."""

    def __str__(self) -> str:
        return "{{" + (self._undefined_name or "") + "}}"

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _KeepUndefined(name=f"{self._undefined_name}.{name}")

    __getitem__ = __getattr__


def _as_text(value: Any) -> Any:
    """A dict or list printed whole (``{{files}}``) reads as JSON, which models read best, rather
    than as Python's repr; everything else prints as Jinja2 prints it."""
    if isinstance(value, dict | list):
        try:
            return json.dumps(value, ensure_ascii=False, default=str)
        except ValueError:  # a circular value: Jinja2's own way
            return value
    return value


def _environment(mode: UndefinedMode) -> _Sandbox:
    env = _Sandbox(
        undefined=_KeepUndefined if mode == "keep" else StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        finalize=_as_text,
    )
    env.globals = {"range": _range, "dict": dict, "len": len}  # no lipsum, cycler, joiner, namespace
    for name in ("center", "indent", "truncate", "wordwrap", "batch", "slice", "round"):
        env.filters[name] = _checked_width(name, env.filters[name])
    env.filters["format"] = _safe_format
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
    token = _budget.set([MAX_ITERATIONS])
    try:
        return _bounded("".join(_counted(compiled.generate(dict(store)))), where)
    except UndefinedError as error:
        raise WorkflowTemplateError(
            f"{where}: {error.message}. The context store holds: {_keys(store)}. Store it in an earlier "
            "state, give it as input, or set `undefined: keep` to leave it as text"
        ) from error
    except (SecurityError, TemplateProblem) as error:
        raise WorkflowTemplateError(f"{where}: refused: {error}") from error
    except RecursionError as error:
        raise WorkflowTemplateError(f"{where}: refused: the template recurses too deeply") from error
    except (TemplateError, TypeError, ValueError, ZeroDivisionError, OverflowError) as error:
        raise WorkflowTemplateError(f"{where}: {type(error).__name__}: {error}") from error
    finally:
        _budget.reset(token)


def _counted(chunks: Iterator[str]) -> Iterator[str]:
    """The rendered chunks, a loop step charged per chunk and the output capped as it grows."""
    size = 0
    for chunk in chunks:
        _spend(1)
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
    token = _budget.set([MAX_ITERATIONS])
    try:
        return bool(compiled(**dict(store)))
    except UndefinedError as error:
        raise WorkflowTemplateError(
            f"{where}: {error.message} in the condition. The context store holds: {_keys(store)}"
        ) from error
    except (SecurityError, TemplateProblem) as error:
        raise WorkflowTemplateError(f"{where}: refused: {error}") from error
    except (TemplateError, TypeError, ValueError, ZeroDivisionError, OverflowError, RecursionError) as error:
        raise WorkflowTemplateError(
            f"{where}: the condition failed: {type(error).__name__}: {error}"
        ) from error
    finally:
        _budget.reset(token)


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


def _keys(store: Mapping[str, Any]) -> str:
    keys = sorted(store)
    if not keys:
        return "nothing yet"
    shown = ", ".join(keys[:30])
    return shown + (f" (and {len(keys) - 30} more)" if len(keys) > 30 else "")
