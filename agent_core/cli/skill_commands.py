"""``contextdesk skill list|show|set``, and the skills part of ``agent show``.

A skill is named by its folder (``skills/NAME/SKILL.md``); ContextDesk's choices for it (include
mode, enabled, priority) are agent.yaml's ``skills:`` entry, written by ``skill set`` through the
same key writer as ``agent set``, so the rest of agent.yaml stays as it was written.
"""

from __future__ import annotations

import argparse
import difflib
import json
import shutil
from pathlib import Path
from typing import Any

from agent_core.agent import AGENT_FILE, Agent, load_agent
from agent_core.agent.config_keys import read_setting, write_settings
from agent_core.agent.items import Problem
from agent_core.agent.scaffold import ensure_default_agent
from agent_core.agent.schema import IncludeMode
from agent_core.agent.skill_files.definition import Skill
from agent_core.agent.skill_files.hidden_text import escape_unseen
from agent_core.agent.skill_files.trust_check import skill_trust_problems
from agent_core.errors import AgentFileError

__all__ = ["check_skill_key", "print_skills", "register", "skill_summary"]

_NAME_COLUMN = 32


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("skill", help="list, show and configure an agent's skills")
    commands = parser.add_subparsers(dest="skill_command", metavar="ACTION", required=True)
    agent_help = "the agent folder (default: your default agent)"

    listing = commands.add_parser("list", help="one line per skill: name, include mode, enabled, description")
    listing.add_argument("--agent", type=Path, default=None, help=agent_help)
    listing.add_argument("--json", action="store_true", help="print JSON for scripts")
    listing.set_defaults(handler=run_list)

    show = commands.add_parser(
        "show", help="a skill's header, settings, files, trust warnings and instructions"
    )
    show.add_argument("name", help="the skill's folder name (skills/NAME/SKILL.md)")
    show.add_argument("--agent", type=Path, default=None, help=agent_help)
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    show.set_defaults(handler=run_show)

    setter = commands.add_parser(
        "set",
        help="change the agent's settings for a skill (agent.yaml's skills: entry)",
        description="Writes agent.yaml's skills.NAME entry, changing only those lines; the skill's "
        "own folder is never touched. Include mode agent (the default) offers the skill when a "
        "message needs it; always offers it with every message; manual only when you add it to a chat.",
    )
    setter.add_argument("name", help="the skill's folder name")
    setter.add_argument("--agent", type=Path, default=None, help=agent_help)
    setter.add_argument("--include", choices=[mode.value for mode in IncludeMode])
    setter.add_argument("--enabled", choices=["true", "false"])
    setter.add_argument("--priority", type=int, metavar="N", help="0-999; lower comes first")
    setter.set_defaults(handler=run_set)


def run_list(args: argparse.Namespace) -> int:
    agent = _load(args.agent)
    skills = _sorted(agent)
    if args.json:
        print(
            json.dumps([skill_summary(skill, agent.root) for skill in skills], indent=2, ensure_ascii=False)
        )
        return 0
    if not skills:
        print(
            f"{agent.root} has no skills: add skills/NAME/SKILL.md, or import some with "
            f"`contextdesk agent import SRC {agent.root}`"
        )
        return 0
    width = shutil.get_terminal_size().columns
    name_width = min(_NAME_COLUMN, max(len(skill.name) for skill in skills))
    for skill in skills:
        start = (
            f"{skill.name:<{name_width}}  {skill.include.value:<6}  {'on' if skill.enabled else 'off':<3}  "
        )
        print(start + _cut(skill.description, max(width - len(start), 20)))
    return 0


def run_show(args: argparse.Namespace) -> int:
    agent = _load(args.agent)
    skill = _find(agent, args.name)
    problems = [p for p in agent.problems if _belongs_to(p, skill)] + skill_trust_problems(skill)
    summary = skill_summary(skill, agent.root)
    if args.json:
        summary["license"] = skill.license
        summary["compatibility"] = skill.compatibility
        summary["allowedTools"] = list(skill.allowed_tools)
        summary["metadata"] = dict(skill.metadata)
        summary["body"] = skill.body
        summary["problems"] = [_problem(p) for p in problems]
        print(json.dumps(summary, indent=2, ensure_ascii=False, default=str))
        return 0
    title = f"  ({escape_unseen(skill.display_name)})" if skill.display_name else ""
    print(f"{skill.name}{title}  {summary['path']}")
    print(f"  {escape_unseen(skill.description) or '(no description)'}")
    header = [
        ("License", skill.license),
        ("Compatibility", skill.compatibility),
        ("Allowed tools", " ".join(skill.allowed_tools)),
    ]
    for label, value in header:
        if value:
            print(f"  {label}: {escape_unseen(value)}")
    print(
        f"\nSettings: include {skill.include.value}, {'enabled' if skill.enabled else 'disabled'}, "
        f"priority {skill.priority_level}  (change with `contextdesk skill set {skill.name} "
        f"--agent {agent.root} --include always|agent|manual`)"
    )
    print(f"\nFiles ({len(skill.files)})")
    for name in skill.files:
        print(f"  {name}" + ("  (script: runs only with your approval)" if name in skill.scripts else ""))
    if problems:
        print(f"\nProblems and trust warnings ({len(problems)})")
        for problem in problems:
            print(f"  {problem.describe(agent.root)}")
    print(f"\n--- {summary['path']} (after its header) ---")
    print(escape_unseen(skill.body.rstrip("\n")))
    return 0


def run_set(args: argparse.Namespace) -> int:
    changes = [
        (key, value)
        for key, value in (
            ("include", args.include),
            ("enabled", args.enabled),
            ("priorityLevel", None if args.priority is None else str(args.priority)),
        )
        if value is not None
    ]
    if not changes:
        raise AgentFileError(
            "nothing to set: give --include agent|always|manual, --enabled true|false or --priority N"
        )
    agent = _load(args.agent)
    skill = _find(agent, args.name)
    agent_file = agent.root / AGENT_FILE
    settings = [(f"skills.{skill.name}.{key}", value) for key, value in changes]
    before = [read_setting(agent_file, key).value for key, _ in settings]
    if not write_settings(agent_file, settings):  # all checked first: all are written or none
        print(f"no change: skill '{skill.name}' already has these settings")
        return 0
    for (key, value), old in zip(settings, before, strict=True):
        if _word(old) != value:
            print(f"{key}: {_word(old)} -> {value}")
    return 0


def skill_summary(skill: Skill, root: Path) -> dict[str, Any]:
    """A skill as ``agent show --json`` and ``skill list --json`` give it."""
    summary: dict[str, Any] = {"name": skill.name}
    if skill.display_name:
        summary["displayName"] = skill.display_name
    path = skill.path
    summary.update(
        {
            "description": skill.description,
            "include": skill.include.value,
            "enabled": skill.enabled,
            "priorityLevel": skill.priority_level,
            "path": path.relative_to(root).as_posix() if path and path.is_relative_to(root) else str(path),
            "files": list(skill.files),
            "scripts": list(skill.scripts),
        }
    )
    return summary


def print_skills(skills: list[dict[str, Any]]) -> None:
    """The skills section of the plain ``agent show``."""
    if not skills:
        return
    print(f"\nSkills ({len(skills)})")
    width = shutil.get_terminal_size().columns
    for skill in skills:
        state = "" if skill["enabled"] else " (off)"
        # The header's own name beside the folder's, escaped (someone else's text) and cut to keep the columns.
        title = f" ({_cut(skill['displayName'], 40)})" if skill.get("displayName") else ""
        start = f"  {skill['priorityLevel']:03d}  {skill['name'] + title + state:<32} {skill['include']:<7} "
        print(start + _cut(skill["description"], max(width - len(start), 20)))


def _load(folder: Path | None) -> Agent:
    return load_agent(folder or ensure_default_agent())


def _sorted(agent: Agent) -> list[Skill]:
    return sorted(agent.skills.values(), key=lambda skill: (skill.priority_level, skill.name.lower()))


def _find(agent: Agent, name: str) -> Skill:
    """The agent's skill ``name``, or an error naming the close matches."""
    if name in agent.skills:
        return agent.skills[name]
    names = sorted(agent.skills)
    lowered = {known.lower(): known for known in names}
    close = [lowered[hit] for hit in difflib.get_close_matches(name.lower(), lowered, n=5, cutoff=0.6)]
    close += [known for known in names if name.lower() in known.lower() and known not in close][:5]
    if close:
        hint = f"did you mean {', '.join(close[:5])}?"
    elif names:
        hint = f"it has {len(names)} skills; list them with `contextdesk skill list --agent {agent.root}`"
    else:
        hint = f"it has none: add skills/{name}/SKILL.md, or import one with `contextdesk agent import SRC {agent.root}`"
    raise AgentFileError(f"the agent in {agent.root} has no skill named '{name}': {hint}")


def check_skill_key(folder: Path, key: str) -> None:
    """Refuse a ``skills.NAME...`` key of ``agent set`` whose NAME is not one of the agent's skills
    (a misspelt name would write an entry no skill reads), as ``skill set`` does.

    Raises:
        AgentFileError: no such skill; the message names the close matches.
    """
    section, _, rest = key.partition(".")
    if section == "skills" and rest:
        _find(load_agent(folder), rest.split(".")[0])


def _belongs_to(problem: Problem, skill: Skill) -> bool:
    folder = skill.folder
    return folder is not None and (problem.path == folder or problem.path.is_relative_to(folder))


def _problem(problem: Problem) -> dict[str, Any]:
    return {
        "file": str(problem.path),
        "line": problem.line,
        "severity": problem.severity,
        "message": problem.message,
        "fix": problem.fix,
    }


def _cut(text: str, width: int) -> str:
    text = " ".join(escape_unseen(text).split())
    return text if len(text) <= width else text[: width - 3].rstrip() + "..."


def _word(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value.value if isinstance(value, IncludeMode) else value)
