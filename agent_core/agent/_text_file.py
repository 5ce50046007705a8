"""Reading a text file of an agent folder, turning failures into Problems."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.items import Problem

__all__ = ["read_text"]


def read_text(path: Path, problems: list[Problem]) -> str | None:
    """The file's UTF-8 text, or None with a Problem recorded."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        problems.append(
            Problem(path, f"not UTF-8 text (byte {error.start})", "save the file as UTF-8 in your editor")
        )
    except OSError as error:
        problems.append(
            Problem(
                path, f"cannot read the file: {error.strerror}", "check that it exists and you may read it"
            )
        )
    return None
