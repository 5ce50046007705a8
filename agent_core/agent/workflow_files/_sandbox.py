"""The sandbox workflow templates and condition expressions run in.

Jinja2's immutable sandbox refuses attribute walks to internals and mutation; on top of it, every
operation that can make a string or a list grow (``*``, ``+``, ``%``, ``~``, ``ljust``, ``center``,
``zfill``, ``replace``, ``join``, ``format``, ``expandtabs``, ``translate``, the ``indent``,
``replace``, ``join`` and ``sum`` filters, a block ``set``, a macro's body) is sized BEFORE it
allocates and refused past MAX_VALUE_CHARS; any other call or filter that returns something larger
than its inputs and than the cap is refused too. Every loop iteration, range() item and call is
charged to a budget, and checks the run's deadline (``limits.timeoutSeconds``), which an
``asyncio.timeout`` cannot enforce while the event loop is busy rendering.
"""

from __future__ import annotations

import contextvars
import functools
import math
import operator
import re
import string
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import _PassArg
from jinja2.visitor import NodeTransformer

from agent_core.errors import ContextDeskError

__all__ = [
    "MAX_ITERATIONS",
    "MAX_VALUE_CHARS",
    "MAX_WIDTH",
    "RenderTimeout",
    "Sandbox",
    "TemplateProblem",
    "WorkflowTemplateError",
    "bounded_join",
    "budget",
    "guarded_filter",
    "private_attribute",
    "private_reads",
    "range_",
    "reset_budget",
    "set_deadline",
    "spend",
    "template_line",
]

MAX_VALUE_CHARS = 1_000_000  # what one template, or one string or list it makes, may hold
MAX_ITERATIONS = 100_000  # loop steps, range() items, calls and output chunks of one rendering
MAX_WIDTH = 10_000  # widths and counts given to filters (center, indent, truncate, wordwrap…)

_LOOP_GUARD = "_cd_each"  # the names the guarded AST calls (globals of the environment)
_CONCAT = "_cd_concat"


class WorkflowTemplateError(ContextDeskError):
    """A template or condition could not be rendered; the message names what and how to fix it."""


class TemplateProblem(WorkflowTemplateError):
    """Raised by the sandbox's own checks (an unsafe access, a budget exceeded)."""


class RenderTimeout(TimeoutError):
    """The run's deadline passed while a template rendered: the run stops as at its time cap."""


_budget: contextvars.ContextVar[list[int]] = contextvars.ContextVar("template_budget")
_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar("template_deadline", default=None)


def set_deadline(at: float | None) -> None:
    """Renderings in this context (a run's task) stop at ``at`` (time.monotonic()), or never."""
    _deadline.set(at)


def budget() -> contextvars.Token[list[int]]:
    """A fresh budget for one rendering; give the token back to ``reset_budget``."""
    return _budget.set([MAX_ITERATIONS])


def reset_budget(token: contextvars.Token[list[int]]) -> None:
    _budget.reset(token)


def spend(steps: int) -> None:
    """Charge ``steps`` to the rendering's budget and check the run's deadline."""
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise RenderTimeout("the run's time ran out while a template rendered")
    left = _budget.get(None)
    if left is None:
        return
    left[0] -= steps
    if left[0] < 0:
        raise TemplateProblem(f"the template loops more than {MAX_ITERATIONS:,} times in all")


def _refuse_over(size: int, what: str) -> None:
    if size > MAX_VALUE_CHARS:
        raise TemplateProblem(
            f"{what} would make {size:,} characters or items, more than the {MAX_VALUE_CHARS:,} a "
            "template may build: make it build a smaller value (e.g. a slice: text[:1000])"
        )


def _size(value: Any) -> int:
    return len(value) if isinstance(value, str | list | tuple | dict) else 0


def _check_grown(result: Any, inputs: Iterable[Any], what: str) -> Any:
    """``result`` unless it passed the cap and grew past its inputs (shrinking a large store value
    is fine; making a larger one is not)."""
    size = _size(result)
    if size > MAX_VALUE_CHARS and size > max((_size(v) for v in inputs), default=0):
        _refuse_over(size, what)
    return result


def range_(*args: int) -> range:
    items = range(*args)
    spend(len(items))
    return items


def _each(iterable: Iterable[Any]) -> Iterator[Any]:
    """A template loop's items, each charged to the budget (a loop without output is counted too)."""
    for item in iterable:
        spend(1)
        yield item


def _listed(iterable: Iterable[Any]) -> list[Any] | tuple[Any, ...]:
    return iterable if isinstance(iterable, list | tuple) else list(_each(iterable))


def _joined(separator: str, items: list[Any] | tuple[Any, ...]) -> None:
    texts = sum(len(v) if isinstance(v, str) else len(str(v)) for v in items)
    _refuse_over(texts + len(separator) * max(len(items) - 1, 0), "a join")


def bounded_join(chunks: Iterable[str]) -> str:
    """The environment's ``concat`` (a block ``set``, a macro's body), sized before it joins."""
    items = _listed(chunks)
    _joined("", items)
    return "".join(items)


def _concat(items: list[Any]) -> str:
    """``a ~ b ~ c``, sized before it joins."""
    texts = [str(v) for v in items]
    _joined("", texts)
    return "".join(texts)


def _percent_size(text: str, right: Any) -> int:
    """An upper bound of ``text % right``'s length (refusing huge and ``*`` widths)."""
    if "*" in text:
        raise TemplateProblem("'*' widths are not allowed in % formatting")
    values = right.values() if isinstance(right, Mapping) else right if isinstance(right, tuple) else (right,)
    longest = max((len(str(v)) for v in values), default=0)
    size = len(text)
    for found in re.finditer(r"%(?:\([^)]*\))?[-+ #0]*(\d*)(?:\.(\d+))?", text):
        widths = [int(number) for number in found.groups() if number]
        if any(w > MAX_WIDTH for w in widths):
            raise TemplateProblem(f"a format width of {max(widths):,} (at most {MAX_WIDTH:,})")
        size += max([longest, *widths])
        if size > MAX_VALUE_CHARS:
            break  # refused already: no need to read the rest
    return size


def _format_size(text: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> int | None:
    """An upper bound of ``text.format(...)``'s length, or None when it does not parse."""
    values = (*args, *kwargs.values())
    longest = max((len(str(v)) for v in values), default=0)
    size = 0
    try:
        for literal, field, spec, _ in string.Formatter().parse(text):
            size += len(literal)
            if field is None:
                continue
            widths = [int(n) for n in re.findall(r"\d+", spec or "")]
            if "{" in (spec or ""):
                widths += [v for v in values if isinstance(v, int) and not isinstance(v, bool)]
            if any(w > MAX_WIDTH for w in widths):
                raise TemplateProblem(f"a format width of {max(widths):,} (at most {MAX_WIDTH:,})")
            size += max([longest, *widths])
            if size > MAX_VALUE_CHARS:
                break  # refused already: no need to read the rest
    except ValueError:
        return None  # the call itself says what is wrong with it
    return size


def _str_call_size(text: str, name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> int | None:
    """An upper bound of the length a growing ``str`` method returns, or None (not a grower, or
    arguments the call itself will refuse)."""
    first = args[0] if args else next(iter(kwargs.values()), None)
    if name in ("ljust", "rjust", "center", "zfill"):
        return max(len(text), first) if isinstance(first, int) else None
    if name == "expandtabs":
        tab = 8 if first is None else first
        return len(text) + text.count("\t") * max(tab, 0) if isinstance(tab, int) else None
    if name == "replace" and len(args) >= 2 and isinstance(args[0], str) and isinstance(args[1], str):
        old, new = args[0], args[1]
        count = args[2] if len(args) > 2 else kwargs.get("count", -1)
        hits = text.count(old) if old else len(text) + 1
        if isinstance(count, int) and count >= 0:
            hits = min(hits, count)
        return len(text) + hits * max(len(new) - len(old), 0)
    if name == "translate" and isinstance(first, Mapping):
        longest = max((len(v) if isinstance(v, str) else 1 for v in first.values()), default=1)
        return len(text) * max(longest, 1)
    if name in ("format", "format_map"):
        given = (first,) if name == "format_map" and isinstance(first, Mapping) else ()
        return _format_size(text, args if not given else (), first if given else kwargs)  # type: ignore[arg-type]
    return None


def _checked_args(target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """The call's arguments, after its result's size is checked where it can be known before."""
    method = getattr(target, "__wrapped__", target)  # the sandbox wraps str.format
    owner, name = getattr(method, "__self__", None), getattr(method, "__name__", "")
    if isinstance(owner, str):
        if name == "join" and args:
            items = _listed(args[0])
            _joined(owner, items)
            return (items, *args[1:])
        size = _str_call_size(owner, name, args, kwargs)
        if size is not None:
            _refuse_over(size, f"str.{name}")
    return args


def _pre_filter(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, ...]:
    """Size the filters whose growth has no fixed bound before they run."""
    value, rest = (args[0], args[1:]) if args else (None, ())
    if name == "join" and value is not None and not isinstance(value, str):
        items = _listed(value)
        separator = rest[0] if rest else kwargs.get("d", "")
        _joined(str(separator), items)
        return (items, *rest)
    if name == "replace" and isinstance(value, str) and len(rest) >= 2:
        size = _str_call_size(value, "replace", tuple(str(v) for v in rest[:2]) + rest[2:], kwargs)
        _refuse_over(size or 0, "the replace filter")
    if name == "indent" and isinstance(value, str):
        width = rest[0] if rest else kwargs.get("width", 4)
        extra = width if isinstance(width, int) else len(str(width))
        _refuse_over(len(value) + (value.count("\n") + 1) * extra, "the indent filter")
    if name == "sum" and value is not None:
        items = _listed(value)
        _refuse_over(sum(_size(v) for v in items), "the sum filter")
        return (items, *rest)
    return args


def guarded_filter(name: str, filter_: Callable[..., Any]) -> Callable[..., Any]:
    """``filter_`` sized before it runs (where it can grow without bound) and after."""
    passes = _PassArg.from_obj(filter_) is not None

    @functools.wraps(filter_)  # keeps jinja_pass_arg: the environment or context still comes first
    def guarded(*args: Any, **kwargs: Any) -> Any:
        head, own = (args[:1], args[1:]) if passes else ((), args)
        own = _pre_filter(name, own, kwargs)
        return _check_grown(filter_(*head, *own, **kwargs), own[:1], f"the {name} filter")

    return guarded


class _Guarded(NodeTransformer):
    """Every loop's items go through the budget; every ``~`` is sized before it joins."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Call(
            nodes.Name(_LOOP_GUARD, "load"), [node.iter], [], None, None, lineno=node.lineno
        )
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        items = nodes.List(list(node.nodes), lineno=node.lineno)
        return nodes.Call(nodes.Name(_CONCAT, "load"), [items], [], None, None, lineno=node.lineno)


class Sandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset(["*", "**", "+", "%"])
    concat = staticmethod(bounded_join)

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.globals = {"range": range_, "dict": dict, "len": len, _LOOP_GUARD: _each, _CONCAT: _concat}

    def _generate(
        self, source: nodes.Template, name: str | None, filename: str | None, defer_init: bool = False
    ) -> str:
        return super()._generate(_Guarded().visit(source), name, filename, defer_init=defer_init)

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        spend(1)
        args = _checked_args(__obj, args, kwargs)
        result = ImmutableSandboxedEnvironment.call(__self, __context, __obj, *args, **kwargs)
        name = getattr(getattr(__obj, "__wrapped__", __obj), "__name__", "a call")
        return _check_grown(result, (getattr(__obj, "__self__", None), *args, *kwargs.values()), name)

    def unsafe_undefined(self, obj: Any, attribute: str) -> Any:
        raise TemplateProblem(private_attribute(attribute, obj))

    def call_binop(self, context: Any, operator_: str, left: Any, right: Any) -> Any:
        if operator_ == "*":
            for sized, count in ((left, right), (right, left)):
                repeats = isinstance(count, int) and hasattr(sized, "__len__") and not isinstance(sized, bool)
                if repeats:
                    _refuse_over(len(sized) * count, "a repetition ('*')")
            return operator.mul(left, right)
        if operator_ == "**":
            numbers = isinstance(left, int | float) and isinstance(right, int | float)
            if numbers and (
                abs(right) > 1000 or (abs(left) > 1 and abs(right) * math.log10(abs(left) + 1) > 1000)
            ):
                raise TemplateProblem("a power ('**') too large to compute")
            return operator.pow(left, right)
        if operator_ == "+" and isinstance(left, str | list | tuple) and type(left) is type(right):
            _refuse_over(len(left) + len(right), "an addition ('+')")
        if operator_ == "%" and isinstance(left, str):
            _refuse_over(_percent_size(left, right), "a % formatting")
        return super().call_binop(context, operator_, left, right)


def private_attribute(attribute: str, obj: Any = None) -> str:
    of = f" of a {type(obj).__name__}" if obj is not None else ""
    return (
        f"the template uses a private attribute '{attribute}'{of}: templates may read the context "
        "store's values, their keys and items, never Python's internals; remove it"
    )


def private_reads(parsed: nodes.Template) -> list[tuple[str, int]]:
    """The Python internals (``x.__class__``, ``x['__globals__']``) a parsed template reads, with
    their lines: refused when it renders, so ``workflow check`` reports them first. A key with one
    leading underscore (``doc._id``) is a store key like any other."""
    found = [
        (node.attr, node.lineno) for node in parsed.find_all(nodes.Getattr) if node.attr.startswith("__")
    ]
    found += [
        (node.arg.value, node.lineno)
        for node in parsed.find_all(nodes.Getitem)
        if isinstance(node.arg, nodes.Const)
        and isinstance(node.arg.value, str)
        and node.arg.value.startswith("__")
    ]
    return sorted(found, key=lambda pair: pair[1])


def template_line(error: BaseException) -> int | None:
    """The template line ``error`` was raised on (Jinja2 rewrites its traceback to the template's
    lines), or None."""
    line, tb = None, error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line
