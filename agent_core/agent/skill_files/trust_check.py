"""What a reviewer of a skill should know before trusting it: its scripts, hidden characters, and
instructions that work against the user. Each is a located warning with its fix.

A skill is usually someone else's text (a public collection, a colleague's folder) that the model
will follow. The checks read every text file of the skill, so they run when asked for (``agent
check``, ``skill show``), not on every load.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from pathlib import Path

from agent_core.agent._text_file import MAX_FILE_BYTES, FileRefused, read_bytes
from agent_core.agent.items import Problem
from agent_core.agent.skill_files.definition import SKILL_FILE, Skill
from agent_core.agent.skill_files.hidden_text import find_hidden_lines
from agent_core.agent.skill_files.instruction_check import CODE_SUFFIXES, find_instructions

__all__ = [
    "MAX_CHECKED_FILE_BYTES",
    "MAX_CHECKED_SKILL_BYTES",
    "TrustCache",
    "checked_texts",
    "content_problems",
    "file_text",
    "file_trust_problems",
    "skill_trust_problems",
    "trust_problems",
]

MAX_CHECKED_FILE_BYTES = 1024 * 1024  # a larger file of the skill is data, not instructions: skipped
MAX_CHECKED_SKILL_BYTES = 8 * 1024 * 1024  # read per skill; past it, a warning says what was left
MAX_HIDDEN_LINES_SHOWN = 5  # per file; more lines are counted in one more warning
_SCRIPTS_SHOWN = 10
_READ_AS_TEXT = (".md", ".markdown", ".mdx", ".txt", ".rst", *CODE_SUFFIXES)

_FIXES = {
    "exfiltration": "remove the sentence, or the skill if you do not trust where it came from",
    "credential-read": "remove the instruction, or the skill if you do not trust where it came from",
    "hiding": "remove the instruction: a skill should not keep anything from you",
    "override": "remove the instruction, or the skill if you do not trust where it came from",
}
_KIND_WORDS = {
    "exfiltration": "tells the model to send private data out",
    "credential-read": "tells the model to read a private key or stored credentials",
    "hiding": "tells the model to hide what it does from you",
    "override": "tells the model to ignore its other instructions",
}


def trust_problems(skills: Iterable[Skill]) -> list[Problem]:
    """The trust warnings of every skill, in the order given."""
    return [problem for skill in skills for problem in skill_trust_problems(skill)]


def skill_trust_problems(skill: Skill) -> list[Problem]:
    """The trust warnings of one skill: its scripts, hidden characters and hostile instructions."""
    if skill.path is None:
        return []
    problems: list[Problem] = []
    if skill.scripts:
        shown = ", ".join(skill.scripts[:_SCRIPTS_SHOWN])
        more = len(skill.scripts) - _SCRIPTS_SHOWN
        problems.append(
            Problem(
                skill.path,
                f"skill '{skill.name}' has {len(skill.scripts)} script{'s' if len(skill.scripts) > 1 else ''} "
                f"({shown}{f' and {more} more' if more > 0 else ''}); a script runs only when the model "
                "asks and you approve the exact command",
                "read the scripts before approving a run; remove the skill if you do not trust where it came from",
                severity="warning",
            )
        )
    return problems + content_problems(skill)


def content_problems(skill: Skill) -> list[Problem]:
    """What the text of a skill's files hides or asks of the model (hidden characters, hostile
    instructions); its scripts, which a front end may show otherwise, are not among them."""
    if skill.path is None:
        return []
    problems: list[Problem] = []
    folder = skill.path.parent
    unchecked: list[str] = []
    for relative, text in checked_texts(
        (SKILL_FILE, *skill.files), lambda relative, limit: _text_of(folder / relative, limit), unchecked
    ):
        problems.extend(file_trust_problems(folder / relative, relative, text))
    if unchecked:
        problems.append(
            Problem(
                folder,
                f"skill '{skill.name}' holds more than {MAX_CHECKED_SKILL_BYTES // (1024 * 1024)} MB of text; "
                f"{len(unchecked)} files were not checked ({', '.join(unchecked[:5])}...)",
                "move data the skill does not need out of its folder",
                severity="warning",
            )
        )
    return problems


class TrustCache:
    """Each skill's :func:`content_problems`, kept while none of its files changed (size and
    modification time): an agent reloaded after one edit reads again only the skill that changed.

    A front end that shows warnings on every reload keeps one; looking up a skill costs a ``stat``
    of each of its files, reading them costs far more (a 1.6 MB SKILL.md takes seconds)."""

    def __init__(self) -> None:
        self._kept: dict[Path, tuple[tuple[object, ...], list[Problem]]] = {}

    def problems(self, skill: Skill) -> list[Problem]:
        """The content problems of ``skill``, read again only when its files changed."""
        if skill.path is None:
            return []
        stamp = (skill.name, _stamp(skill.path.parent, (SKILL_FILE, *skill.files)))
        kept = self._kept.get(skill.path)
        if kept is not None and kept[0] == stamp:
            return list(kept[1])
        problems = content_problems(skill)
        self._kept[skill.path] = (stamp, problems)
        return list(problems)

    def forget_all_but(self, paths: Iterable[Path]) -> None:
        """Drop what was kept for skills no longer there (``paths``: the SKILL.md files kept)."""
        keep = set(paths)
        for path in [path for path in self._kept if path not in keep]:
            del self._kept[path]


def _stamp(folder: Path, names: Iterable[str]) -> tuple[tuple[str, int, int], ...]:
    stamps = []
    for name in names:
        try:
            status = (folder / name).stat()
        except OSError:
            stamps.append((name, -1, -1))
            continue
        stamps.append((name, status.st_size, status.st_mtime_ns))
    return tuple(stamps)


def checked_texts(
    relatives: Iterable[str], read: Callable[[str, int], str | None], unchecked: list[str]
) -> Iterator[tuple[str, str]]:
    """The texts of a skill's files a trust check reads, as ``read(relative, limit)`` gives them
    (None: not a text file within ``limit``): SKILL.md whole (up to the loader's limit: it is what
    the model is given), other files up to ``MAX_CHECKED_FILE_BYTES`` (larger ones are data), and at
    most ``MAX_CHECKED_SKILL_BYTES`` in all; the files past that are added to ``unchecked``."""
    budget = MAX_CHECKED_SKILL_BYTES
    for relative in relatives:
        if budget <= 0:
            unchecked.append(relative)
            continue
        limit = MAX_FILE_BYTES if relative == SKILL_FILE else MAX_CHECKED_FILE_BYTES
        text = read(relative, min(limit, budget))
        if text is not None:
            budget -= len(text)
            yield relative, text


def file_text(data: bytes) -> str | None:
    """A file's bytes as text; None for a binary file (a NUL near its start) or one not in UTF-8."""
    if b"\0" in data[:8192]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _text_of(path: Path, limit: int) -> str | None:
    """The file's text when it is a text file no larger than ``limit``; None for anything else."""
    try:
        return file_text(read_bytes(path, limit))
    except FileRefused:  # too large, gone or not a regular file: the loader reports what matters
        return None


def file_trust_problems(path: Path, relative: str, text: str) -> list[Problem]:
    """The hidden characters and hostile instructions in ``text``, the file ``relative`` of a skill
    (at ``path``, for the messages); an import checks a skill's bytes before writing them."""
    problems: list[Problem] = []
    hidden = find_hidden_lines(text)
    for line in hidden[:MAX_HIDDEN_LINES_SHOWN]:
        problems.append(
            Problem(
                path,
                f"{relative} has {line.describe()}",
                "delete them (an editor that shows invisible characters, or `cat -A`, reveals them); "
                "if you did not expect them, do not trust the skill",
                line.line,
                "warning",
            )
        )
    if len(hidden) > MAX_HIDDEN_LINES_SHOWN:
        rest = hidden[MAX_HIDDEN_LINES_SHOWN:]
        problems.append(
            Problem(
                path,
                f"{relative} has hidden characters on {len(rest)} more lines "
                f"({', '.join(str(h.line) for h in rest[:10])}{'...' if len(rest) > 10 else ''})",
                "delete them, or do not trust the skill",
                rest[0].line,
                "warning",
            )
        )
    # Instructions are looked for where a model reads them: Markdown and text, and the scripts;
    # data files (JSON, XML, fonts' metadata) are only looked at for hidden characters.
    findings = find_instructions(text, relative) if relative.lower().endswith(_READ_AS_TEXT) else []
    for line in hidden:
        # Tag characters spell text the reader cannot see; what it says is checked as well.
        if line.hidden_text:
            findings += [replace(f, line=line.line) for f in find_instructions(line.hidden_text, relative)]
    for finding in findings:
        problems.append(
            Problem(
                path,
                f'{relative} {_KIND_WORDS[finding.kind]}: {finding.what} in "{finding.excerpt}"',
                _FIXES[finding.kind],
                finding.line,
                "warning",
            )
        )
    return problems
