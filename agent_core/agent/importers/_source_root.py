"""The folder an import reads from: nothing is read through a link that leads out of it.

A cloned project is untrusted: a ``.cursor/rules/passwd.mdc`` linking to ``/etc/passwd`` would
otherwise be copied into the agent, and from there into every request to the model. While an
importer reads (:func:`reading_from`), each file it finds must really be inside the folder of the
source the user named; the file the user named itself is read even when it is a link (they chose it).

The agent folder the import goes into is never read from either (:func:`is_import_target`): when it
lies inside the source (``agent import proj proj/myagent``), its own skills would be imported again,
and with ``--keep-duplicates`` once more on every run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

__all__ = ["is_import_target", "link_out_problem", "reading_from"]


@dataclass(frozen=True)
class _Source:
    named: Path  # the path the user gave, as given (absolute)
    real_root: Path  # the real folder everything read must be in
    target: Path | None  # the real path of the agent folder the import goes into, when known


_SOURCE: ContextVar[_Source | None] = ContextVar("import_source", default=None)


@contextmanager
def reading_from(source: Path, target: Path | None = None) -> Iterator[None]:
    """Within the block, :func:`link_out_problem` checks files against ``source``'s folder and
    :func:`is_import_target` knows ``target``, the agent folder the import goes into."""
    named = source.absolute()
    folder = named if named.is_dir() else named.parent
    real_target = None if target is None else target.expanduser().resolve()
    token = _SOURCE.set(_Source(named=named, real_root=folder.resolve(), target=real_target))
    try:
        yield
    finally:
        _SOURCE.reset(token)


def link_out_problem(path: Path) -> str | None:
    """Why ``path`` must not be read (it leads out of the source's folder), or None."""
    source = _SOURCE.get()
    if source is None or path.absolute() == source.named:
        return None
    try:
        real = path.resolve()
    except (OSError, RuntimeError) as error:  # a symlink loop
        return f"cannot follow the link ({error}); replace it with the file itself"
    if real.is_relative_to(source.real_root):
        return None
    return (
        f"it links to {real}, outside the folder being imported ({source.real_root}), so it is not read "
        "(a project from someone else could otherwise copy your files into the agent and on to the "
        "model); if you mean to import that file, copy it into the folder instead of linking to it"
    )


def is_import_target(folder: Path) -> bool:
    """Whether ``folder``, found in the source, is the agent folder the import goes into."""
    source = _SOURCE.get()
    if source is None or source.target is None or folder.name != source.target.name:
        return False  # the name first: a path is resolved only for the one folder that may match
    return folder.resolve() == source.target
