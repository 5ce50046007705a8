"""What to read before trusting an imported skill, said in the import's report: the checks of
``agent check`` (hidden characters, instructions that work against the user: sending data out,
reading keys, overriding the user) run on the bytes being imported, before any model is offered
the skill.

Scripts are not listed: a script never runs without the user approving its exact command line,
and a collection has hundreds. The lines are capped, so a huge collection's report stays readable;
the rest are counted, and ``agent check`` lists them all.
"""

from __future__ import annotations

from pathlib import Path

from agent_core.agent.importers._skill_read import ImportedSkill
from agent_core.agent.items import Problem
from agent_core.agent.skill_files.trust_check import checked_texts, file_text, file_trust_problems

__all__ = ["MAX_TRUST_LINES", "skill_trust_lines"]

MAX_TRUST_LINES = 30


def skill_trust_lines(skills: list[ImportedSkill], target: Path) -> list[str]:
    """One line per trust warning of ``skills`` (as they will be named in the agent at
    ``target``): what was found, where, and what to do; at most ``MAX_TRUST_LINES``, then a count."""
    lines: list[str] = []
    more = 0
    for skill in skills:
        for problem in _problems(skill):
            if len(lines) >= MAX_TRUST_LINES:
                more += 1
                continue
            where = f" (line {problem.line})" if problem.line else ""
            lines.append(
                f"skill '{skill.name}' (from {skill.source}): {problem.message}{where}. Read the skill before "
                f"using it: {problem.fix}; to turn it off meanwhile: "
                f"`contextdesk agent set {target} skills.{skill.name}.enabled false`"
            )
    if more:
        lines.append(f"and {more} more: run `contextdesk agent check {target}` to see them all")
    return lines


def _problems(skill: ImportedSkill) -> list[Problem]:
    # The same files and bounds as `agent check` (checked_texts), read from the bytes imported.
    def read(relative: str, limit: int) -> str | None:
        data = skill.files[relative].data
        return file_text(data) if len(data) <= limit else None

    problems: list[Problem] = []
    for relative, text in checked_texts(skill.files, read, []):
        problems += file_trust_problems(Path(skill.source, relative), relative, text)
    return problems
