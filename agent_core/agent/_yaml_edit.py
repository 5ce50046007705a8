"""Editing a hand-written YAML mapping so that only the edited keys change on disk.

ruamel.yaml's round-trip mode makes the change (comments, key order, quoting, flow style, anchors
and unknown keys survive). Its output still normalises a few things the user wrote (spaces after a
colon, ``~``, list indentation), so the edit is then carried over to the original text as a line
patch: every line the edit did not touch keeps its bytes. When the patch cannot be placed, or would
mean something else than ruamel's text, ruamel's text is written: the data is the same either way.
"""

from __future__ import annotations

import copy
import difflib
import io
import itertools
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError as RuamelMarkedError
from ruamel.yaml.error import YAMLError as RuamelError
from ruamel.yaml.scalarstring import (
    DoubleQuotedScalarString,
    LiteralScalarString,
    SingleQuotedScalarString,
)

from agent_core.agent._text_file import FileRefused, read_bytes
from agent_core.agent._yaml_source import YamlSyntaxError, parse_yaml
from agent_core.errors import AgentFileError

__all__ = ["EditableYaml", "KeyStep", "read_text_for_edit", "refuse"]

# One step of a key path: the key, or the spellings a key may have in the file (the first is the
# one written when the key is new; pydantic sections accept both camelCase and snake_case).
KeyStep = str | tuple[str, ...]

_BOM = "\ufeff"
_MAX_NODES = 100_000  # aliases can make a few lines stand for billions of nodes
_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def refuse(path: Path, line: int | None, problem: str) -> AgentFileError:
    """The error for a file that cannot be saved over, naming the file and the line."""
    where = f"{path}:{line}" if line else str(path)
    return AgentFileError(
        f"cannot save {path.name}: {where}: {problem}. The file was left as it is: fix it in an "
        "editor (or run `contextdesk agent check` on the agent) and save again"
    )


def read_text_for_edit(path: Path) -> str:
    """The file's text, for a save that must not lose it.

    Raises:
        AgentFileError: the file cannot be read or is not UTF-8 (with the line of the first bad byte).
    """
    try:
        data = read_bytes(path)
    except FileRefused as error:
        raise refuse(path, None, f"{error.message} ({error.fix})") from error
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise refuse(path, line, f"not UTF-8 text (byte {error.start}); save it as UTF-8") from error


class EditableYaml:
    """A YAML mapping read for editing; ``render()`` gives the text with only the edits changed."""

    def __init__(self, text: str, path: Path, first_line: int = 1) -> None:
        """Parse ``text`` (the whole file, or a markdown header starting at ``first_line``).

        Raises:
            AgentFileError: the text is not valid YAML or not a mapping; nothing may be written.
        """
        self._bom = _BOM if text.startswith(_BOM) else ""
        self._original = text.removeprefix(_BOM)
        self._newline = "\r\n" if "\r\n" in self._original else "\n"
        try:
            parsed = parse_yaml(self._original, first_line=first_line)
        except YamlSyntaxError as error:
            raise refuse(path, error.line, str(error)) from error
        if parsed.data is not None and not isinstance(parsed.data, dict):
            kind = type(parsed.data).__name__
            raise refuse(path, first_line, f"the YAML is a {kind}, not a mapping of keys to values")
        self._yaml = _round_trip_yaml(self._original)
        try:
            root = self._yaml.load(self._original)
        except RuamelMarkedError as error:
            mark = error.problem_mark or error.context_mark
            line = None if mark is None else mark.line + first_line
            raise refuse(path, line, f"invalid YAML: {error.problem or error}") from error
        except RuamelError as error:
            raise refuse(path, None, f"invalid YAML: {error}") from error
        self.root: CommentedMap = root if isinstance(root, CommentedMap) else CommentedMap()
        # The data as the loader reads it (YAML 1.1, last duplicate wins), to compare with.
        self.data: dict[str, Any] = dict(parsed.data or {})
        self._before = self._dump()
        self._references = _count_references(self.root, path)

    # --- reading -----------------------------------------------------------------------------

    def get(self, path: Sequence[KeyStep]) -> Any:
        """The value at ``path`` as ruamel holds it, or None when a step is missing."""
        node: Any = self.root
        for step in path:
            if not isinstance(node, dict):
                return None
            key = _key_in(node, step)
            if key is None:
                return None
            node = node[key]
        return node

    # --- editing -----------------------------------------------------------------------------

    def set(self, path: Sequence[KeyStep], value: Any) -> None:
        """Set the value at ``path``, creating missing mappings; the key keeps its place and comment."""
        parent = self._parent(path, create=True)
        assert parent is not None
        step = path[-1]
        key = _key_in(parent, step)
        if key is None:
            key = _spelling(step)
        old = parent.get(key)
        if _plain(old) == value and type(_plain(old)) is type(value):
            return  # nothing changed: keep the text exactly as written
        parent[key] = _styled(old, value)

    def delete(self, path: Sequence[KeyStep]) -> None:
        """Remove the key at ``path``; a missing key is not an error."""
        parent = self._parent(path, create=False)
        if parent is not None and (key := _key_in(parent, path[-1])) is not None:
            del parent[key]

    def _parent(self, path: Sequence[KeyStep], *, create: bool) -> CommentedMap | None:
        node = self.root
        for step in path[:-1]:
            key = _key_in(node, step)
            child = None if key is None else node[key]
            if not isinstance(child, CommentedMap):
                if not create:
                    return None
                child = CommentedMap()
                node[key if key is not None else _spelling(step)] = child
            elif self._references[id(child)] > 1:
                # An anchored mapping used in several places: edit a copy here so the others keep
                # their values (the anchor moves to the next place that uses it).
                child = copy.deepcopy(child)
                child.yaml_set_anchor(None)
                node[key] = child
            node = child
        return node

    # --- writing -----------------------------------------------------------------------------

    @property
    def changed(self) -> bool:
        return self._dump() != self._before

    def render(self) -> str:
        """The text to write: the original lines with only the edited ones replaced."""
        after = self._dump()
        if after == self._before:
            return self._bom + self._original
        patched = _patch_lines(self._original, self._before, after, self._newline)
        if patched is None or not _same_data(patched, after):
            patched = after.replace("\n", self._newline)
        return self._bom + patched

    def _dump(self) -> str:
        if not self.root and not self.root.ca.comment:
            return ""
        stream = io.StringIO()
        self._yaml.dump(self.root, stream)
        return stream.getvalue()


def _round_trip_yaml(text: str) -> YAML:
    handler = YAML(typ="rt")
    handler.preserve_quotes = True
    handler.allow_duplicate_keys = True  # the loader warns about them; a save must not fail on them
    handler.width = 1_000_000  # never re-wrap a long line the user wrote on one line
    mapping_indent, sequence_offset = _guess_indent(text)
    handler.indent(mapping=mapping_indent, sequence=mapping_indent + sequence_offset, offset=sequence_offset)
    return handler


_KEY_LINE = re.compile(r"^( *)[^\s#-][^:#]*:(\s|$)")
_ITEM_LINE = re.compile(r"^( *)- ")


def _guess_indent(text: str) -> tuple[int, int]:
    """(mapping indent, list-item offset) as the file's author wrote them, for new lines."""
    mapping_indent, sequence_offset = 2, 0
    lines = text.splitlines()
    for previous, line in itertools.pairwise(lines):
        parent = _KEY_LINE.match(previous)
        if parent is None or previous.rstrip().split(":", 1)[1].strip():
            continue
        if (child := _KEY_LINE.match(line)) and len(child.group(1)) > len(parent.group(1)):
            mapping_indent = len(child.group(1)) - len(parent.group(1))
            break
    for previous, line in itertools.pairwise(lines):
        parent = _KEY_LINE.match(previous)
        if parent and (item := _ITEM_LINE.match(line)):
            sequence_offset = max(0, len(item.group(1)) - len(parent.group(1)))
            break
    return mapping_indent, sequence_offset


def _containers(node: Any, ancestors: tuple[int, ...] = ()) -> Iterator[Any]:
    """Every mapping and list in the tree, once per place it appears (aliases repeat it)."""
    if isinstance(node, dict | list) and id(node) not in ancestors:
        yield node
        children = node.values() if isinstance(node, dict) else node
        for child in children:
            yield from _containers(child, (*ancestors, id(node)))


def _count_references(root: Any, path: Path) -> Counter[int]:
    counts: Counter[int] = Counter()
    for visits, node in enumerate(_containers(root)):
        if visits > _MAX_NODES:
            raise refuse(path, None, f"its aliases expand to more than {_MAX_NODES} mappings and lists")
        counts[id(node)] += 1
        if node.anchor.value:
            # Keep a named anchor even when a save removes the last alias to it.
            node.yaml_set_anchor(node.anchor.value, always_dump=True)
    return counts


def _key_in(mapping: dict[Any, Any], step: KeyStep) -> Any:
    for spelling in (step,) if isinstance(step, str) else step:
        if spelling in mapping:
            return spelling
    return None


def _spelling(step: KeyStep) -> str:
    return step if isinstance(step, str) else step[0]


def _plain(value: Any) -> Any:
    """A ruamel value as plain Python, to compare with a new value."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return value


def _styled(old: Any, value: Any) -> Any:
    """``value`` ready for ruamel: strings keep the old quoting; text with newlines is a ``|`` block."""
    if isinstance(value, dict):
        mapping = CommentedMap()
        for key, item in value.items():
            mapping[key] = _styled(None, item)
        return mapping
    if isinstance(value, list):
        return CommentedSeq([_styled(None, item) for item in value])
    if not isinstance(value, str):
        return value
    if "\n" in value:
        return LiteralScalarString(value)
    if isinstance(old, SingleQuotedScalarString | DoubleQuotedScalarString):
        return type(old)(value)
    if _misread_when_plain(value):
        # ruamel reads YAML 1.2, the loader 1.1: 'yes', 'on', '0777' would come back as other types.
        return DoubleQuotedScalarString(value) if "'" in value else SingleQuotedScalarString(value)
    return value


def _misread_when_plain(text: str) -> bool:
    try:
        return bool(yaml.load(text, Loader=_SAFE_LOADER) != text)
    except yaml.YAMLError:
        return True


def _same_data(first: str, second: str) -> bool:
    try:
        return bool(yaml.load(first, Loader=_SAFE_LOADER) == yaml.load(second, Loader=_SAFE_LOADER))
    except yaml.YAMLError:
        return False


def _patch_lines(original: str, before: str, after: str, newline: str) -> str | None:
    """Carry the change ``before`` -> ``after`` (ruamel's texts) over to ``original``, line by line.

    Returns None when a changed line cannot be placed in the original without guessing.
    """
    original_lines = original.splitlines(keepends=True)
    original_content = [line.rstrip("\r\n") for line in original_lines]
    before_lines = before.splitlines()
    after_lines = after.splitlines()
    # Where each line of ruamel's unedited text is in the original (lines ruamel re-spaced have none).
    position: dict[int, int] = {}
    alignment = difflib.SequenceMatcher(None, before_lines, original_content, autojunk=False)
    for block in alignment.get_matching_blocks():
        for offset in range(block.size):
            position[block.a + offset] = block.b + offset
    edits: list[tuple[int, int, list[str]]] = []
    change = difflib.SequenceMatcher(None, before_lines, after_lines, autojunk=False)
    for tag, start, end, new_start, new_end in change.get_opcodes():
        if tag == "equal":
            continue
        new_lines = after_lines[new_start:new_end]
        if tag == "delete":
            end = _keep_following_comments(before_lines, start, end)
            if start == end:
                continue
        if start == end and (start in position or start == len(before_lines)):
            # Lines added before a known line (or at the end): nothing around them moves.
            at = position[start] if start in position else len(original_lines)
            edits.append((at, at, new_lines))
            continue
        # Widen the change to the nearest lines known in the original on both sides.
        low = start
        while low > 0 and low - 1 not in position:
            low -= 1
        high = end
        while high < len(before_lines) and high not in position:
            high += 1
        original_low = position[low - 1] + 1 if low > 0 else 0
        original_high = position[high] if high < len(before_lines) else len(original_lines)
        if high - low == original_high - original_low:
            # As many lines on both sides: only re-spaced, so they match one to one.
            edits.append((original_low + start - low, original_low + end - low, new_lines))
            continue
        replacement = before_lines[low:start] + new_lines + before_lines[end:high]
        edits.append((original_low, original_high, replacement))
    previous_end = -1
    for low, high, _ in edits:
        if low > high or low < previous_end:
            return None
        previous_end = high
    lines = list(original_lines)
    for low, high, replacement in reversed(edits):
        lines[low:high] = [line + newline for line in replacement]
    for index in range(len(lines) - 1):
        if not lines[index].endswith("\n"):
            lines[index] += newline
    return "".join(lines)


def _keep_following_comments(lines: list[str], start: int, end: int) -> int:
    """The end of a deleted block without the comments after it that introduce the next key.

    ruamel attaches a comment to the key before it, so deleting a key would also delete the
    comment the user wrote above the following one.
    """
    indent = len(lines[start]) - len(lines[start].lstrip(" "))
    while end > start:
        line = lines[end - 1]
        stripped = line.lstrip(" ")
        if stripped and not (stripped.startswith("#") and len(line) - len(stripped) <= indent):
            break
        end -= 1
    return end
