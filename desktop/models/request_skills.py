"""The skills of one request as View Context rows: each with what the request carried of it
(catalogue only, loaded, body inline), its tokens, include mode, score and why it is there (from the
core's :func:`~agent_core.context.skill_report.skill_uses`), and the tokens selection saved."""

from __future__ import annotations

from agent_core.agent.agent import Agent
from agent_core.agent.skill_files.hidden_text import escape_unseen
from agent_core.context.items import ItemRef, RequestContext
from agent_core.context.skill_disclosure import ADDED_REASON, LOADED_NOW_REASON
from agent_core.context.skill_report import STATE_WORDS, cut_words, skill_uses, tokens_saved_text
from desktop.models.context_items import ContextRow, shown_name

__all__ = [
    "OFFERED_THEN_LOADED",
    "STATE_BADGES",
    "involves_skills",
    "skill_request_rows",
    "skills_saved_line",
]

# A skill the model loaded during this reply after selection offered it: the record keeps its score
# and says it was loaded; the row says both steps, so the path from catalogue line to body shows.
OFFERED_THEN_LOADED = "Selected, then loaded (skills.load)"
# A skill added by hand got in as Manual whatever its include mode; the row says both, so it does not
# read as contradicting the Skills list, which shows the include mode.
ADDED_WITH_MODE = "Added by you to this chat (its include mode is {mode})"

# After the tokens saved, when a skill was loaded during the reply: its body came as a tool result.
LOADED_IN_HISTORY = "a skill loaded during this reply is counted with the history"

# The badge of each state: a body the model has (loaded, inline) stands out; a catalogue line is
# the quiet default.
STATE_BADGES = {
    STATE_WORDS["catalogue"]: "score",
    STATE_WORDS["loaded"]: "skill",
    STATE_WORDS["inline"]: "skill",
}


def involves_skills(context: RequestContext) -> bool:
    """Whether View Context has skills to show: the request had some, considered some, or its
    agent has skills (the tokens saved are worth a line even when none was needed)."""
    return (
        bool(context.of_type("skill"))
        or any(miss.ref.type == "skill" for miss in context.near_misses)
        or (context.manifest is not None and context.manifest.skills_listed_tokens > 0)
    )


def skill_request_rows(context: RequestContext, agent: Agent | None) -> list[ContextRow]:
    """One row per skill of the request, in its order. A skill the agent no longer has still
    shows, by name, marked removed."""
    rows = []
    for use in skill_uses(context):
        skill = None if agent is None else agent.skills.get(use.name)
        description = escape_unseen(" ".join(skill.description.split())) if skill is not None else ""
        reason = f"{use.reason[:1].upper()}{use.reason[1:]}" if use.reason else ""
        if use.reason == LOADED_NOW_REASON and use.include_mode == "agent" and use.score is not None:
            reason = OFFERED_THEN_LOADED
        if use.reason == ADDED_REASON and skill is not None and skill.include.value != use.include_mode:
            reason = ADDED_WITH_MODE.format(mode=skill.include.value.capitalize())
        if use.cut:  # the badge says "body inline": say it was only part of it
            cut = cut_words(use)
            reason = f"{reason}; {cut}" if reason else f"{cut[:1].upper()}{cut[1:]}"
        rows.append(
            ContextRow(
                ItemRef("skill", use.name),
                use.include_mode,
                use.score,
                skill.priority_level if skill is not None else None,
                " · ".join(part for part in (reason, description) if part),
                removed=agent is not None and skill is None,
                tokens=use.tokens,
                state=STATE_WORDS[use.state],
                title=shown_name(ItemRef("skill", use.name)),
            )
        )
    return rows


def skills_saved_line(context: RequestContext) -> str:
    """ "Skills: 106 tokens; listing every skill's description would cost 4,521 (4,415 saved)",
    or "" when the request has no token counts or the agent no skills. When the model loaded a
    skill during the reply, the line says where its body is counted (its tool result, in History),
    so a small figure is not read as all the skill cost."""
    line = "" if context.manifest is None else tokens_saved_text(context.manifest)
    if line and any(use.state == "loaded" and use.tokens is None for use in skill_uses(context)):
        line += f"; {LOADED_IN_HISTORY}"
    return line
