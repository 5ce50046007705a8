"""Reading a text file of an agent folder, turning failures into Problems."""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.items import Problem

__all__ = ["outside_problem", "read_text"]


def outside_problem(path: Path, root: Path) -> Problem | None:
    """A Problem when ``path`` really is (through a symlink) outside the agent folder ``root``.

    An agent folder may come from someone else: a link in it must not hand the user's own files
    to the model.
    """
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop
        return Problem(path, f"cannot follow the link: {error}", "replace it with the file itself")
    if real.is_relative_to(root.resolve()):
        return None
    return Problem(
        path,
        f"links to {real}, outside the agent folder, so it is not read "
        "(an agent folder from someone else could otherwise hand your files to the model)",
        f"copy the file into the agent folder instead of linking to it (cp --remove-destination "
        f"'{real}' '{path}')",
    )


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
