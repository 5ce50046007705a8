"""TsAgent's legacy ``.mdt`` rule and reference files: a header between ``---`` lines, then markdown.

TsAgent parsed the header as YAML (so JSON headers, which it wrote, and hand-written YAML ones both
load) and wrote the closing fence straight after the JSON, as ``}---`` on the last header line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agent_core.agent._yaml_source import YamlSyntaxError, parse_yaml

__all__ = ["MdtError", "MdtFile", "split_mdt"]

_FENCE = "---"


class MdtError(ValueError):
    """The file cannot be read as an ``.mdt``; the message says why and how to fix it."""


@dataclass(frozen=True)
class MdtFile:
    header: dict[str, Any]
    body: str


def split_mdt(text: str) -> MdtFile:
    """The header (as data) and body of an ``.mdt`` file's text (BOM and CRLF already removed).

    Raises:
        MdtError: no header, a header never closed, or one that is not a YAML or JSON mapping.
    """
    lines = text.split("\n")
    if lines[0].rstrip() != _FENCE:
        raise MdtError("no '---' header: add one with at least a name, or save it as a rule in ContextDesk")
    for index in range(1, len(lines)):
        line = lines[index].rstrip()
        if line in (_FENCE, "..."):
            header_lines = lines[1:index]
        elif line.endswith("}" + _FENCE):  # TsAgent's own writer: '}---' closes the JSON header
            header_lines = [*lines[1:index], line.removesuffix(_FENCE)]
        else:
            continue
        return MdtFile(
            _header_data("\n".join(header_lines)), "\n".join(lines[index + 1 :]).removeprefix("\n")
        )
    raise MdtError("the '---' header is never closed: add a line '---' after the header")


def _header_data(header: str) -> dict[str, Any]:
    try:
        data: Any = json.loads(header)
    except RecursionError:
        raise MdtError(
            "the header is nested hundreds of levels deep, more than a header needs: correct it"
        ) from None
    except json.JSONDecodeError:
        try:
            data = parse_yaml(header, first_line=2).data
        except YamlSyntaxError as error:
            where = f" (line {error.line})" if error.line else ""
            raise MdtError(f"the header is neither JSON nor YAML{where}: {error}; correct it") from error
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise MdtError("the header is not a mapping of keys to values (name: ..., description: ...)")
    return data
