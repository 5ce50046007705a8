"""What a workflow run keeps of every state it ran: enough to show it, debug it and re-run from it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from agent_core.context.items import RequestContext, TokenUsage
from agent_core.context.provenance import Provenance

__all__ = ["HistoryMessage", "RunStatus", "StepRecord", "StepStatus", "WorkflowRunRecord"]

# "interrupted": its program ended (a crash, a kill) while it ran; marked so when next opened.
# "needs_review": a state's output was not what was asked for (``output_review``); the run stopped there.
RunStatus = Literal["running", "finished", "failed", "cancelled", "stopped", "interrupted", "needs_review"]
StepStatus = Literal["done", "failed", "refused", "dry_run", "needs_review"]


@dataclass(frozen=True)
class HistoryMessage:
    """One message of the history the run's assistants see (CodeMie's message history)."""

    role: Literal["user", "assistant"]
    text: str
    state_id: str = ""


@dataclass(frozen=True)
class StepRecord:
    position: int
    state_id: str
    kind: Literal["assistant", "tool", "mock"]
    store_before: dict[str, Any]
    history_before: tuple[HistoryMessage, ...]
    rendered_task: str = ""
    rendered_args: dict[str, Any] | None = None
    item: Any = None  # the iteration item, when the state runs once per item
    raw_output: str = ""
    parsed_output: Any = None
    parse_path: str = ""
    store_after: dict[str, Any] = field(default_factory=dict)
    history_after: tuple[HistoryMessage, ...] = ()
    added: dict[str, int] = field(default_factory=dict)  # keys, with their size in tokens
    changed: dict[str, int] = field(default_factory=dict)
    removed: dict[str, int] = field(default_factory=dict)
    next_state: str = ""
    child_session_id: str = ""  # the chat an assistant state ran in (its View Context)
    request_context: RequestContext | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    elapsed_seconds: float = 0.0
    status: StepStatus = "done"
    error: str = ""
    provenance: Provenance | None = None  # what produced the output (None: saved before it was kept)
    # A delegation of an Autonomous run's supervisor: state_id is the assistant, rendered_task
    # the task it was given, raw_output its result.
    delegated: bool = False


@dataclass(frozen=True)
class WorkflowRunRecord:
    id: str
    agent_path: str
    workflow: str
    status: RunStatus
    input: Any
    store: dict[str, Any]
    started_at: float
    finished_at: float | None = None
    mocked: bool = False
    error: str = ""
    steps: tuple[StepRecord, ...] = ()
