"""The skills of a request as parts of the prompt, each with its own line in the manifest.

The bodies of the chat's skills (always on, added by the user, loaded by the model earlier) go in
the system message after the references: they change rarely, so they stay in the cached prefix.
The catalogue lines of the skills selected for this message, or the one body that comes inline for
a model that cannot call tools, go with the message. A skill the model loaded during this reply
adds nothing here: its body is in the reply's own tool result.
"""

from __future__ import annotations

from agent_core.agent.agent import Agent
from agent_core.agent.skill_files.definition import Skill
from agent_core.budget.counting import TokenCounter
from agent_core.budget.fitting import Block
from agent_core.budget.reference_chunks import relevant_chunks
from agent_core.context.items import RequestContext
from agent_core.context.skill_framing import (
    CATALOGUE_CLOSING,
    CATALOGUE_OPENING,
    INLINE_OPENING,
    SKILLS_CLOSING,
    SKILLS_OPENING,
    catalogue_lines,
    framed_body,
)
from agent_core.context.skill_source import enabled_skills

__all__ = ["selected_skill_blocks", "session_skill_blocks", "skills_listed_tokens"]


def _skills(agent: Agent, context: RequestContext, *, session: bool, state: str) -> list[Skill]:
    found = [
        skill
        for item in context.of_type("skill")
        if item.skill_state == state
        and (item.include_mode != "agent") is session
        and (skill := agent.skills.get(item.ref.name)) is not None
        and skill.enabled
    ]
    return sorted(found, key=lambda skill: (skill.priority_level, skill.name))


def session_skill_blocks(agent: Agent, context: RequestContext) -> list[Block]:
    """The bodies of the chat's skills, framed as third-party instructions."""
    skills = _skills(agent, context, session=True, state="loaded")
    if not skills:
        return []
    return [
        Block("framing", SKILLS_OPENING),
        *(Block("skill", framed_body(skill), skill.name) for skill in skills),
        Block("framing", SKILLS_CLOSING),
    ]


def selected_skill_blocks(
    agent: Agent, context: RequestContext, message: str, max_tokens: int, counter: TokenCounter
) -> list[Block]:
    """The catalogue of the skills selected for this message, then a body that comes inline: cut,
    when longer than ``max_tokens`` (a selected reference's share of the room), to the chunks
    that share most words with ``message`` (a small local window must still hold the request)."""
    blocks: list[Block] = []
    listed = _skills(agent, context, session=False, state="catalogue")
    if listed:
        blocks.append(Block("framing", CATALOGUE_OPENING))
        blocks += [Block("skill_catalogue", catalogue_lines([skill]), skill.name) for skill in listed]
        blocks.append(Block("framing", CATALOGUE_CLOSING))
    inline = _skills(agent, context, session=False, state="inline")
    if inline:
        blocks.append(Block("framing", INLINE_OPENING))
        for skill in inline:
            body, detail = relevant_chunks(skill.body.strip(), message, max_tokens, counter)
            blocks.append(Block("selected_skill", framed_body(skill, body=body), skill.name, detail))
        blocks.append(Block("framing", SKILLS_CLOSING))
    return blocks


def skills_listed_tokens(agent: Agent, counter: TokenCounter) -> int:
    """What listing every enabled skill's catalogue line would cost, as a tool that lists them all
    does (0 when the agent has none)."""
    skills = enabled_skills(agent)
    if not skills:
        return 0
    return counter.count(f"{CATALOGUE_OPENING}\n{catalogue_lines(skills)}\n{CATALOGUE_CLOSING}")
