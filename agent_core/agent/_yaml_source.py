"""YAML parsing that remembers where each value came from, to report problems by line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

__all__ = [
    "MAX_EXPANDED_NODES",
    "YamlDocument",
    "YamlSyntaxError",
    "close_match",
    "describe_validation_error",
    "parse_yaml",
]

# libyaml's loader is ~10x faster (an agent's front matter is parsed at every start); same results.
_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# Aliases let a few hundred bytes stand for billions of values ("billion laughs"); anything that
# walks the data (duplicate keys, validation, saving) would expand them. An agent file has hundreds.
MAX_EXPANDED_NODES = 100_000


class YamlSyntaxError(ValueError):
    """Text that is not YAML, with the 1-based line of the fault when known, and a fix if specific."""

    def __init__(
        self, message: str, line: int | None, fix: str | None = None, *, hostile: bool = False
    ) -> None:
        super().__init__(message)
        self.line = line
        self.fix = fix
        # Valid YAML refused because reading it would not end or would fill memory (an alias bomb,
        # nesting hundreds deep): such a header is refused, never read another way.
        self.hostile = hostile


@dataclass(frozen=True)
class YamlDocument:
    """Parsed YAML plus the node tree, so a key path can be mapped back to a line."""

    data: Any
    root: yaml.Node | None
    first_line: int = 1  # line of the document's first line in the enclosing file

    def line_of(self, path: Sequence[str | int]) -> int | None:
        """1-based line of the value at ``path``, or of its nearest ancestor that exists."""
        node = self.root
        line = None if node is None else node.start_mark.line
        for part in path:
            child = _child(node, part)
            if child is None:
                break
            key_node, node = child
            line = key_node.start_mark.line
        return None if line is None else line + self.first_line

    def duplicate_keys(self) -> list[tuple[str, int]]:
        """Keys given twice in one mapping (YAML keeps the last silently), with their lines."""
        found: list[tuple[str, int]] = []
        _collect_duplicates(self.root, found, self.first_line)
        return found


def parse_yaml(text: str, first_line: int = 1) -> YamlDocument:
    """Parse one YAML document safely (no arbitrary objects).

    Raises:
        YamlSyntaxError: the text is not valid YAML.
    """
    try:
        loader = _SAFE_LOADER(text)  # a safe loader: no arbitrary objects
        try:
            root = loader.get_single_node()
            if "*" in text:  # only an alias (*name) can expand: most files have none
                _check_expansion(root, first_line)  # before anything walks the data
            data = loader.construct_document(root) if root is not None else None
        finally:
            loader.dispose()
    except RecursionError as error:
        raise YamlSyntaxError(
            "the YAML is nested too deeply to read", None, "flatten the nesting to a few levels", hostile=True
        ) from error
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = None if mark is None else mark.line + first_line
        problem = error.problem or "invalid YAML"
        raise YamlSyntaxError(f"invalid YAML: {problem}", line) from error
    except yaml.YAMLError as error:
        raise YamlSyntaxError(f"invalid YAML: {error}", None) from error
    return YamlDocument(data=data, root=root, first_line=first_line)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _check_expansion(root: yaml.Node | None, first_line: int) -> None:
    """Refuse a node graph whose aliases expand past ``MAX_EXPANDED_NODES``, or refer to themselves.

    Counts each shared node once per use without expanding anything: linear in the file's size.

    Raises:
        YamlSyntaxError: the aliases expand too far, or an anchor contains an alias to itself.
    """
    if root is None:
        return
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()  # the nodes being counted: an alias back to one is a cycle
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        key = id(node)
        if children_done:
            open_nodes.discard(key)
            total = 1 + sum(sizes[id(child)] for child in _children(node))
            if total > MAX_EXPANDED_NODES:
                raise YamlSyntaxError(
                    f"its aliases (*name) expand to more than {MAX_EXPANDED_NODES:,} values, the limit, "
                    "so it is not read",
                    node.start_mark.line + first_line,
                    "write the values out instead of repeating aliases of aliases",
                    hostile=True,
                )
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise YamlSyntaxError(
                "an alias (*name) refers to the anchor it is inside, so the value never ends",
                node.start_mark.line + first_line,
                "remove the alias or point it at another anchor",
                hostile=True,
            )
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


def _child(node: yaml.Node | None, part: str | int) -> tuple[yaml.Node, yaml.Node] | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == str(part):
                return key_node, value_node
    elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        item = node.value[part]
        return item, item
    return None


def _collect_duplicates(node: yaml.Node | None, found: list[tuple[str, int]], first_line: int) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                if key_node.value in seen:
                    found.append((key_node.value, key_node.start_mark.line + first_line))
                seen.add(key_node.value)
            _collect_duplicates(value_node, found, first_line)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _collect_duplicates(item, found, first_line)


def close_match(word: str, choices: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def describe_validation_error(error: dict[str, Any], model: type[BaseModel]) -> tuple[str, str]:
    """A pydantic error as (message, fix) in the words of someone editing the file."""
    loc = [str(part) for part in error["loc"] if not str(part).startswith("function-")]
    where = ".".join(loc) if loc else "the file"
    kind = error["type"]
    if kind == "extra_forbidden":
        key = loc[-1] if loc else "?"
        known = [field.alias or name for name, field in _fields_at(model, loc[:-1]).items()]
        suggestion = close_match(key, known)
        fix = f"did you mean '{suggestion}'?" if suggestion else f"remove it; known keys: {', '.join(known)}"
        return f"unknown key '{where}'", fix
    if kind == "missing":
        return f"'{where}' is required", f"add '{loc[-1] if loc else where}'"
    message = error.get("msg", "invalid value")
    value = error.get("input")
    shown = f" (got {value!r})" if value is not None and not isinstance(value, dict | list) else ""
    return f"'{where}': {message}{shown}", f"correct the value of '{where}'"


def _fields_at(model: type[BaseModel], loc: Sequence[str]) -> dict[str, Any]:
    """The fields of the (nested) model found at ``loc``, best effort for error messages."""
    current: type[BaseModel] = model
    for part in loc:
        field = next(
            (f for name, f in current.model_fields.items() if part in (name, f.alias)),
            None,
        )
        annotation = getattr(field, "annotation", None)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            current = annotation
        else:
            return dict(current.model_fields)
    return dict(current.model_fields)


def validation_errors(error: ValidationError) -> list[dict[str, Any]]:
    return [dict(item) for item in error.errors(include_url=False)]
