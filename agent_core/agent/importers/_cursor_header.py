"""The header of a Cursor rule (``.mdc``): ``key: value`` lines, read as Cursor writes them.

Cursor's header is not strict YAML (``globs: *.ts`` is an alias error in YAML, ``description: a: b``
a mapping error), so it is read line by line, as Claude Code reads an agent file's header
(``_loose_header``). A value is unquoted only when it is quoted as a whole: an unquoted description
that ends in a quote keeps it.
"""

from __future__ import annotations

from agent_core.agent._loose_header import read_loose_header

__all__ = ["read_cursor_header"]


def read_cursor_header(header: str) -> dict[str, str]:
    """The ``key: value`` pairs of a Cursor rule header (later keys win, as in YAML); a value
    written as ``- item`` lines is given as one comma list, as Cursor writes ``globs``."""
    return {
        key: value if isinstance(value, str) else ", ".join(value)
        for key, value in read_loose_header(header).items()
    }
