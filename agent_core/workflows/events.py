"""What a workflow run reports as it goes: a state started, a step finished, the run ended (and,
from its assistant states, the events of the sub-agent chats they run in)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent_core.subagents.runner import DelegationEvent
from agent_core.workflows.records import StepRecord, WorkflowRunRecord

__all__ = ["StepFinished", "StepStarted", "WorkflowEvent", "WorkflowFinished"]


@dataclass(frozen=True)
class StepStarted:
    run_id: str
    state_id: str
    item: Any = None


@dataclass(frozen=True)
class StepFinished:
    run_id: str
    step: StepRecord


@dataclass(frozen=True)
class WorkflowFinished:
    run: WorkflowRunRecord


WorkflowEvent = StepStarted | StepFinished | WorkflowFinished | DelegationEvent
