"""What a front end shows of a chat's sub-agents: one row per run, kept up to date from the
chat's events while it runs and read back from the saved replies' delegations afterwards."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent_core.context.items import Delegation, TokenUsage
from agent_core.context.provenance import Provenance
from agent_core.subagents.runner import PATH_SEPARATOR

__all__ = ["RunStatus", "SubagentRun", "path_of", "run_of"]

RunStatus = Literal["running", "finished", "stopped", "cancelled", "failed"]


@dataclass(frozen=True)
class SubagentRun:
    call_id: str
    subagent: str
    path: str  # "researcher", or "researcher › reader" for a sub-agent's own sub-agent
    task: str
    context_mode: str
    child_session_id: str
    status: RunStatus = "running"
    turns: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)
    elapsed_seconds: float = 0.0
    activity: str = ""  # what it is doing now ("calling workspace.read_file")
    model: str = ""
    note: str = ""  # why it stopped, and notes on its context or model
    provenance: Provenance | None = None  # what produced its result, once it ended

    @property
    def tokens(self) -> int:
        return (self.usage.input_tokens or 0) + (self.usage.output_tokens or 0)

    @property
    def top_level(self) -> bool:
        return PATH_SEPARATOR not in self.path


def path_of(origin: str, subagent: str) -> str:
    return f"{origin}{PATH_SEPARATOR}{subagent}" if origin else subagent


def run_of(delegation: Delegation, origin: str = "") -> SubagentRun:
    """A finished run, as a reply's saved delegation records it."""
    stopped = delegation.stopped_by
    status: RunStatus = (
        "finished"
        if not stopped
        else "cancelled"
        if stopped == "cancelled"
        else "failed"
        if stopped == "error"
        else "stopped"
    )
    path = path_of(origin, delegation.subagent)
    return SubagentRun(
        call_id=delegation.call_id,
        subagent=delegation.subagent,
        path=path,
        task=delegation.task,
        context_mode=delegation.context_mode,
        child_session_id=delegation.child_session_id,
        status=status,
        turns=delegation.turns,
        usage=delegation.usage,
        elapsed_seconds=delegation.elapsed_seconds,
        model=delegation.model,
        note=delegation.note,
        provenance=delegation.provenance,
    )
