"""The skills of one request as people read them (View Context, the CLI, the export): each with
its include mode, what of it the request carried, its score, why it is there and its tokens, and
the tokens selection saved against listing every skill's description."""

from __future__ import annotations

from dataclasses import dataclass

from agent_core.context.items import ContextManifest, RequestContext, RequestMode, SkillState

__all__ = ["STATE_WORDS", "SkillUse", "cut_words", "describe_skill_uses", "skill_uses", "tokens_saved_text"]

STATE_WORDS: dict[SkillState, str] = {
    "catalogue": "catalogue only",
    "loaded": "loaded",
    "inline": "body inline",
}
_PART_OF_STATE: dict[SkillState, str] = {
    "catalogue": "skill_catalogue",
    "loaded": "skill",
    "inline": "selected_skill",
}


@dataclass(frozen=True)
class SkillUse:
    """One skill in a request."""

    name: str
    include_mode: RequestMode
    state: SkillState
    score: float | None
    reason: str
    # What it cost in this request; None without a manifest, and for a skill loaded during the
    # reply (its body is in the reply's tool result, counted with the current turns).
    tokens: int | None
    # Which part of a body that came inline cut to its share of the window ("chunks 1, 9 of 116");
    # "" when the whole body came (or none did).
    cut: str = ""


def cut_words(use: SkillUse) -> str:
    """ "only the parts nearest the message came inline (chunks 1, 9 of 116), to fit its share of
    the window", or "" when nothing of it was cut."""
    if not use.cut:
        return ""
    return f"only the parts nearest the message came inline ({use.cut}), to fit its share of the window"


def skill_uses(context: RequestContext) -> list[SkillUse]:
    """The skills of ``context``, in the order they are in it."""
    uses = []
    for item in context.of_type("skill"):
        state: SkillState = item.skill_state or "catalogue"
        tokens, cut = None, ""
        if context.manifest is not None:
            part = next(
                (
                    part
                    for part in context.manifest.parts
                    if part.kind == _PART_OF_STATE[state] and part.name == item.ref.name
                ),
                None,
            )
            if part is not None:
                tokens, cut = part.tokens, part.detail if state == "inline" else ""
        uses.append(SkillUse(item.ref.name, item.include_mode, state, item.score, item.reason, tokens, cut))
    return uses


def tokens_saved_text(manifest: ContextManifest) -> str:
    """ "Skills: 240 tokens; listing every skill's description would cost 46,000 (45,760 saved)";
    "" when the agent has no skills."""
    if not manifest.skills_listed_tokens:
        return ""
    return (
        f"Skills: {manifest.skill_tokens:,} tokens; listing every skill's description would cost "
        f"{manifest.skills_listed_tokens:,} ({manifest.skill_tokens_saved:,} saved)"
    )


def describe_skill_uses(context: RequestContext) -> list[str]:
    """One Markdown line per skill, then the tokens saved (empty when the request had no skills)."""
    lines = []
    for use in skill_uses(context):
        score = f" {use.score:.2f}" if use.score is not None else ""
        tokens = f", {use.tokens:,} tokens" if use.tokens is not None else ""
        reason = "; ".join(part for part in (use.reason, cut_words(use)) if part)
        reason = f": {reason}" if reason else ""
        lines.append(f"- `{use.name}` ({use.include_mode}{score}, {STATE_WORDS[use.state]}{tokens}){reason}")
    saved = tokens_saved_text(context.manifest) if context.manifest is not None else ""
    if saved:
        lines.append(saved)
    return lines
