"""The one line a user reads before a sub-agent, a workflow or a compaction runs on a model that
cannot do it reliably, with the choice to run anyway or pick another model (the front ends ask)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Literal

from agent_core.errors import ProviderError
from agent_core.providers.base import Provider
from agent_core.providers.capability import ModelCapability, known_capability
from agent_core.providers.capability_cache import CapabilityCache, model_capability

__all__ = ["TaskKind", "limit_warning", "model_limit_warning", "warning_for_ref"]

logger = logging.getLogger(__name__)

TaskKind = Literal["subagent", "workflow", "compaction"]

# What the task needs that a limited model may not do, and what ContextDesk does about it.
_RISK: dict[TaskKind, tuple[str, str]] = {
    "subagent": (
        "choose the tools the sub-agent needs, and may describe files it never read",
        "its card will say which tools it used, or that it used none",
    ),
    "workflow": (
        "give each workflow step the output the next one needs",
        "a step whose output does not fit the next one stops the run for review",
    ),
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
            else f"{model} does not choose its own tools"
        )
    elif capability.source == "probed":
        who = f"{model} {capability.note}"
    else:
        who = f"{model} could not be checked ({capability.note})"
    return f"{who}: it may not {risk}; {consequence}."


async def model_limit_warning(
    provider: Provider, model_id: str, model_ref: str, task: TaskKind, cache: CapabilityCache | None = None
) -> str | None:
    """The warning for running ``task`` on ``model_ref`` (probing it first if it was never checked),
    or None when it can do it. A test or demo provider (``Provider.internal``) plays back what it
    was told rather than being a model, so it is never probed (what its settings say still counts)."""
    if provider.internal and known_capability(provider, model_id, model_ref) is None:
        return None
    capability = await model_capability(provider, model_id, model_ref, cache or CapabilityCache())
    return limit_warning(capability, task)


async def warning_for_ref(
    resolve: Callable[[str], tuple[Provider, str]], model_ref: str, task: TaskKind
) -> str | None:
    """``model_limit_warning`` for a ``provider:model`` reference, resolved off the event loop (a
    provider's set-up may import an SDK). A reference that cannot be resolved gives None: the task
    itself then fails with the provider's own explanation."""
    try:
        provider, model_id = await asyncio.to_thread(resolve, model_ref)
    except ProviderError as error:
        logger.info("no model check for %s: %s", model_ref, error)
        return None
    return await model_limit_warning(provider, model_id, model_ref, task)
