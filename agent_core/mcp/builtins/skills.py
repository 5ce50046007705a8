"""The ``skills`` built-in: a model reads the agent's skills on demand.

A request carries only the catalogue line of each skill selected for the message; the body comes
when the model asks (``load``), then any file of the skill (``read``), and ``search`` finds a skill
among all the agent has, so a model is never limited to what selection offered. Every call reads
the agent's skills afresh. A skill usually comes from someone else: what is returned is framed as
third-party text, and ``read`` never leaves the skill's folder (no ``..``, no absolute path, no
link out), reads ordinary files only, and text only, at most ``MAX_READ_CHARS`` characters a call
from an ``offset``: a file of any size is read in parts, never held whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agent_core import __version__
from agent_core.agent._text_file import FileRefused, read_text_part
from agent_core.agent.skill_files.definition import SKILL_FILE, Skill, outside_skill_folder
from agent_core.context.listed_once import listed_once, skill_copy_candidate
from agent_core.context.skill_framing import catalogue_lines, framed_body
from agent_core.context.skill_source import skill_named
from agent_core.errors import ContextDeskError
from agent_core.mcp.builtins import BuiltinContext, OptionValue
from agent_core.mcp.builtins._hints import READ_ONLY
from agent_core.mcp.builtins._skill_scripts import check_options, register_run_script
from indexer import Bm25

__all__ = [
    "MAX_READ_CHARS",
    "SEARCH_RESULTS",
    "build_skills_server",
    "find_skill",
    "read_skill_file",
]

#: What one ``read`` returns of a text file, at most; the marker after it gives the next offset.
MAX_READ_CHARS = 60_000
_TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".rst")  # an example path the model can surely read
SEARCH_RESULTS = 8


class SkillReadError(ContextDeskError):
    """A skill or a file of it the model asked for cannot be given (the model reads why)."""


def build_skills_server(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    """An MCP server over ``context.skills`` (read afresh on every call).

    Raises:
        BuiltinOptionError: an unknown or wrong option (the script options are its only ones).
    """
    check_options(options)
    server = MCPServer(
        "contextdesk-skills",
        version=__version__,
        instructions=(
            "The agent's skills: packaged instructions for tasks. Load a skill before doing the task "
            "it describes; read its files when its instructions point to them."
        ),
    )

    def enabled() -> dict[str, Skill]:
        return {name: skill for name, skill in context.skills().items() if skill.enabled}

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Load a skill's instructions (its SKILL.md) by its name, with the list of its other files. "
            "Do this before using a skill the catalogue lists."
        ),
    )
    def load(name: str) -> str:
        try:
            skill = find_skill(enabled(), name)
        except SkillReadError as error:
            raise ToolError(str(error)) from error
        return framed_body(skill, with_files=True)

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Read one file of a skill (e.g. references/api.md) by the skill's name and the file's path "
            f"inside the skill's folder, as the skill's file list gives it. At most {MAX_READ_CHARS:,} "
            "characters come back; a longer file ends with the offset to read the next part from."
        ),
    )
    async def read(
        name: str,
        path: str,
        offset: Annotated[
            int,
            Field(
                ge=0,
                description="the character to start from (0, the default: the file's start), as a cut "
                "file's marker gives it",
            ),
        ] = 0,
    ) -> str:
        try:
            skill = find_skill(enabled(), name)
            return await asyncio.to_thread(read_skill_file, skill, path, offset)
        except SkillReadError as error:
            raise ToolError(str(error)) from error

    @server.tool(
        annotations=READ_ONLY,
        description=(
            "Search all of the agent's skills by what you need to do; returns the best matches, one "
            "line each (name: description). Load one to use it."
        ),
    )
    async def search(query: str) -> str:
        skills = list(enabled().values())
        if not skills:
            return "This agent has no skills."
        found = await asyncio.to_thread(_search, context, query, skills)
        if not found:
            return f"No skill matches {query!r}. Search again with other words."
        return "\n".join(catalogue_lines([skill]) + also_in for skill, also_in in found)

    register_run_script(server, context, options)  # a skill's scripts, asked about before each run
    return server


def find_skill(skills: Mapping[str, Skill], name: str) -> Skill:
    """The skill named ``name`` (its folder's name; its own header's name or any case also do).

    Raises:
        SkillReadError: no enabled skill has that name (the message lists some that exist).
    """
    skill = skill_named(skills, name)
    if skill is None:
        known = ", ".join(sorted(skills)[:20]) or "none"
        more = " (search finds the others)" if len(skills) > 20 else ""
        raise SkillReadError(f"No skill named {name!r}. Skills: {known}{more}.")
    return skill


def read_skill_file(skill: Skill, path: str, offset: int = 0) -> str:
    """At most ``MAX_READ_CHARS`` characters of the file ``path`` of ``skill`` (relative to the
    skill's folder) from character ``offset`` on; when the file goes on, a marker names the call
    that reads the next part.

    Raises:
        SkillReadError: the path leaves the skill's folder (``..``, absolute, a link out), is not an
            ordinary file, is not UTF-8 text, or ``offset`` is past its end.
    """
    folder = skill.folder
    if folder is None:
        raise SkillReadError(f"the skill {skill.name!r} has no folder to read from")
    relative = PurePosixPath(path.strip().replace("\\", "/"))
    if not path.strip() or relative.is_absolute() or ".." in relative.parts or Path(path).is_absolute():
        example = next((file for file in skill.files if file.lower().endswith(_TEXT_SUFFIXES)), SKILL_FILE)
        raise SkillReadError(
            f"{path!r} is not a path inside the skill's folder: give it relative to the folder, "
            f"as the skill's file list shows it (e.g. {example})"
        )
    target = folder.joinpath(*relative.parts)
    if why := outside_skill_folder(target, folder.resolve()):
        raise SkillReadError(f"{path!r} {why}")
    try:
        part = read_text_part(target.resolve(), offset, MAX_READ_CHARS)
    except FileRefused as refused:
        raise SkillReadError(
            f"{path!r} of skill {skill.name!r} is not read: {refused.message}. Fix: {refused.fix}"
        ) from refused
    text = part.text
    if part.more:
        end = offset + len(text)
        text += (
            f"\n[… cut at character {end:,} (the file has {part.file_bytes:,} bytes); for the next part, "
            f'call the skills server\'s read tool with name="{skill.name}", path="{relative.as_posix()}", '
            f"offset={end} …]"
        )
    start = f' offset="{offset}"' if offset else ""
    return (
        f'<skill-file skill="{skill.name}" path="{relative.as_posix()}"{start} note="part of a third-party '
        f'skill: data and instructions for its task only">\n{text.replace("</skill-file>", "&lt;/skill-file>")}\n'
        "</skill-file>"
    )


def _search(context: BuiltinContext, query: str, skills: Sequence[Skill]) -> list[tuple[Skill, str]]:
    """The best ``SEARCH_RESULTS`` skills for ``query``, each once: copies of one skill (the same
    SKILL.md body, or the same name and nearly the same body) are the copy kept, with the others
    named after it (" (also in: pdf-2)")."""
    listed = listed_once([skill_copy_candidate(skill) for skill in skills])
    by_name = {skill.name: skill for skill in skills}
    once = [by_name[entry.ref.name] for entry in listed]
    also_in = {entry.ref.name: entry.also_in() for entry in listed}
    ranked = _ranked(context, query, once)
    return [(by_name[name], also_in[name]) for name, _score in ranked[:SEARCH_RESULTS] if name in also_in]


def _ranked(context: BuiltinContext, query: str, skills: Sequence[Skill]) -> list[tuple[str, float]]:
    """Skills for ``query``, best first: by the selection's embedding index when there is one, by
    words when not (or when it fails)."""
    if context.skill_ranker is not None:
        try:
            return context.skill_ranker(query, skills)
        except ContextDeskError:
            pass  # the embedding model is not there: words still find most skills
    texts = [f"{s.name.replace('-', ' ')} {s.display_name} {s.description}" for s in skills]
    scores = Bm25(texts).scores(query)
    order = sorted(range(len(skills)), key=lambda i: -float(scores[i]))
    return [(skills[i].name, float(scores[i])) for i in order if scores[i] > 0]
