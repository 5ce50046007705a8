"""The one line a user reads before a sub-agent, a workflow or a compaction runs on a model that
cannot do it reliably, with the choice to run anyway or pick another model (the front ends ask)."""

from __future__ import annotations

from typing import Literal

from agent_core.providers.capability import ModelCapability

__all__ = ["TaskKind", "limit_warning"]

TaskKind = Literal["subagent", "workflow", "compaction"]

# What the task needs that a limited model may not do, and what ContextDesk does about it.
_RISK: dict[TaskKind, tuple[str, str]] = {
    "subagent": (
        "choose the tools the sub-agent needs, and may describe files it never read",
        "results will be marked unverified",
    ),
    "workflow": ("follow the workflow's JSON steps", "results will be marked unverified"),
    "compaction": (
        "write a faithful summary",
        "the summary will be built from facts found in the messages, which are kept",
    ),
}


def limit_warning(capability: ModelCapability, task: TaskKind) -> str | None:
    """The warning for running ``task`` on the model, or None when it passed the check."""
    if capability.capable:
        return None
    risk, consequence = _RISK[task]
    model = capability.model
    if capability.source == "known":
        who = (
            f"{model} is small"
            if capability.json_schema is False
            else f"{model} is limited ({capability.note})"
        )
    elif capability.source == "probed":
        who = f"{model} {capability.note}"
    else:
        who = f"{model} could not be checked ({capability.note})"
    return f"{who}: it may not {risk}; {consequence}."
