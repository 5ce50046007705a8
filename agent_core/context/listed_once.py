"""Each item once in a list a model reads (the second opinion's catalogue and search,
``skills.search``): copies of one item (by ``duplicates.py``'s rule) are listed as the copy
selection keeps, which names the others ("also in: X"), so nothing is hidden and no place is
spent twice."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from agent_core.agent.agent import Agent
from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import IncludeMode
from agent_core.agent.skill_files.definition import Skill
from agent_core.context.duplicates import fold_duplicates
from agent_core.context.items import ItemRef
from agent_core.context.selection import Candidate, document_candidate
from agent_core.context.skill_source import enabled_skills, skill_candidate

__all__ = ["COPIES_NAMED", "LeftOut", "Listed", "left_out", "listed_once", "skill_copy_candidate"]

#: copies named on one line at most; more are counted ("and 3 more").
COPIES_NAMED = 3


@dataclass(frozen=True)
class Listed:
    """An item as a list shows it, with the other copies of it folded into its line."""

    candidate: Candidate
    copies: tuple[ItemRef, ...] = ()

    @property
    def ref(self) -> ItemRef:
        return self.candidate.ref

    def also_in(self) -> str:
        """`` (also in: a, b)`` naming the copies, or "" when there are none."""
        if not self.copies:
            return ""
        names = ", ".join(copy.name for copy in self.copies[:COPIES_NAMED])
        more = len(self.copies) - COPIES_NAMED
        return f" (also in: {names}{f' and {more} more' if more > 0 else ''})"


def skill_copy_candidate(skill: Skill) -> Candidate:
    """``skill`` as duplicates are found among skills: its SKILL.md body is what two copies share
    (selection ranks a skill by its description, so its own candidate has no body)."""
    candidate = skill_candidate(skill)
    return replace(candidate, document=replace(candidate.document, text=skill.body))


def listed_once(candidates: Sequence[Candidate], taken: Collection[ItemRef] = ()) -> list[Listed]:
    """``candidates`` with each group of copies as the one kept (in their order), naming the
    others; a group one of whose copies is in ``taken`` (already in the request, or turned off
    for it) is left out whole: its text is there already, or the user did not want it."""
    kept, folded = fold_duplicates(candidates)
    copies: defaultdict[ItemRef, list[ItemRef]] = defaultdict(list)
    for copy, original in folded.copies.items():
        copies[original].append(copy)
    listed = []
    for candidate in kept:
        others = sorted(copies.get(candidate.ref, ()), key=lambda ref: ref.name)
        if candidate.ref in taken or any(copy in taken for copy in others):
            continue
        listed.append(Listed(candidate, tuple(others)))
    return listed


@dataclass(frozen=True)
class LeftOut:
    """The agent-mode rules, references and skills one request does not hold, each once."""

    listed: tuple[Listed, ...]  # in the agent's order: rules, references, then skills
    documents: dict[ItemRef, DocumentItem]  # every agent-mode rule and reference, by ref
    descriptions: dict[ItemRef, str]  # of every item, by ref
    ranked: dict[ItemRef, Candidate]  # what selection ranks of each item (a skill: no body)


def left_out(agent: Agent, taken: Collection[ItemRef]) -> LeftOut:
    """``agent``'s agent-mode rules and references and its enabled agent-mode skills with a
    description (what selection chooses from), without those in ``taken`` and their copies."""
    documents = {
        ItemRef(item.kind, item.name): item
        for kind in ("rule", "reference")
        for item in agent.documents(kind).values()
        if item.include is IncludeMode.AGENT
    }
    skills = [s for s in enabled_skills(agent) if s.include is IncludeMode.AGENT and s.description]
    ranked = {ref: document_candidate(item) for ref, item in documents.items()}
    compared = [*ranked.values(), *map(skill_copy_candidate, skills)]
    ranked |= {candidate.ref: candidate for candidate in map(skill_candidate, skills)}
    descriptions = {ref: item.description for ref, item in documents.items()} | {
        ItemRef("skill", s.name): s.description for s in skills
    }
    return LeftOut(tuple(listed_once(compared, taken)), documents, descriptions, ranked)
