"""Skills as a kind of context item: the source that offers per-message selection the agent's
enabled agent-mode skills, and what of a skill the indexer ranks.

A skill is ranked by its name and description only. The Agent Skills standard makes the
description the part that says *when* a skill is needed (the catalogue other tools list); the body
says *how* (steps, code, long examples) and is often hundreds of lines: chunks of it would match
messages on incidental words (a skill about PDFs mentions "table", "image", "page"), and one long
body would weigh as many chunks as a dozen other skills' descriptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent_core.agent.agent import Agent
from agent_core.agent.schema import IncludeMode
from agent_core.agent.skill_files.definition import Skill
from agent_core.context.items import ItemRef, ItemType
from agent_core.context.selection import Candidate
from indexer import Document

if TYPE_CHECKING:
    from agent_core.context.sources import ContextRequest  # sources.py registers this module's source

__all__ = ["SkillSource", "enabled_skills", "skill_candidate", "skill_document", "skill_named"]


def enabled_skills(agent: Agent) -> list[Skill]:
    """The agent's enabled skills, by priority then name (a disabled skill never reaches a model)."""
    return sorted(
        (skill for skill in agent.skills.values() if skill.enabled),
        key=lambda skill: (skill.priority_level, skill.name),
    )


def skill_named(skills: Mapping[str, Skill], name: str) -> Skill | None:
    """The skill a model means by ``name``: by its folder's name, else its header's name, in any case."""
    wanted = name.strip()
    if wanted in skills:
        return skills[wanted]
    lowered = wanted.lower()
    return next((s for s in skills.values() if lowered in (s.name.lower(), s.display_name.lower())), None)


def skill_document(skill: Skill) -> Document:
    """What the indexer ranks of ``skill``: its name words, its display name, its description."""
    words = skill.name.replace("-", " ").replace("_", " ")
    head = f"{words} ({skill.display_name})" if skill.display_name else words
    return Document(
        key=ItemRef("skill", skill.name).key,
        kind="skill",
        name=head,
        description=" ".join(skill.description.split()),
        text="",
    )


def skill_candidate(skill: Skill) -> Candidate:
    return Candidate(ItemRef("skill", skill.name), skill_document(skill))


@dataclass(frozen=True)
class SkillSource:
    """The agent's enabled agent-mode skills not already in the request."""

    item_type: ItemType = "skill"

    def candidates(self, request: ContextRequest) -> list[Candidate]:
        taken = {item.ref for item in request.chat_items} | request.excluded
        return [
            skill_candidate(skill)
            for skill in enabled_skills(request.agent)
            if skill.include is IncludeMode.AGENT
            and skill.description
            and ItemRef("skill", skill.name) not in taken
        ]
