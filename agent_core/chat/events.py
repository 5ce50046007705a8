"""What a chat session reports while it answers, for each front end to render its own way.

Events are dataclasses told apart by ``type``. Approvals are events too: the front end answers
one by calling :meth:`ApprovalRequest.decide`; the session waits for that answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from agent_core.context.items import (
    Delegation,
    ItemRef,
    RequestContext,
    SamplingRecord,
    TokenUsage,
    WorkflowRunLink,
)
from agent_core.errors import ProviderError
from agent_core.memory.book import WriteOutcome
from agent_core.sampling_router import SamplingRequest
from agent_core.store.chats import StoredMessage, ToolCallRecord
from agent_core.tools.progress import ToolProgress

__all__ = [
    "APP_ORIGIN",
    "WORKFLOW_GATE",
    "WORKFLOW_ORIGIN",
    "ApprovalDecision",
    "ApprovalRequest",
    "ChatEvent",
    "Compacted",
    "ContextBuilt",
    "ItemPulled",
    "MemoriesWritten",
    "MessagesReplaced",
    "PromptProgress",
    "ReplyDelta",
    "ReplyFinished",
    "RequestSent",
    "RetryScheduled",
    "SamplingAnswered",
    "SubagentFinished",
    "SubagentProgress",
    "SubagentStarted",
    "ToolCallFinished",
    "ToolCallProgress",
    "ToolCallStarted",
    "TurnSaved",
    "UserMessageSaved",
    "WorkflowProgress",
    "WorkflowRunFinished",
]


#: ``origin`` of a workflow's approvals, before its name.
WORKFLOW_ORIGIN = "workflow "
APP_ORIGIN = "app view"  # a tool's UI (MCP Apps) asks to call one of its server's tools
#: ``server`` of a workflow's state gate (``approve: true``): ``tool`` is the state's id.
WORKFLOW_GATE = "workflow"


class ApprovalDecision(StrEnum):
    ALLOW_ONCE = "allow_once"
    ALLOW_FOR_CHAT = "allow_for_chat"
    DENY = "deny"


@dataclass(frozen=True)
class UserMessageSaved:
    message: StoredMessage
    type: Literal["user_message_saved"] = "user_message_saved"


@dataclass(frozen=True)
class MemoriesWritten:
    """Memories a message wrote or proposed, and ``notes`` on ones not saved (sensitive data).
    Proposals wait for the user's Accept (or ``memory.autoAccept``)."""

    outcomes: tuple[WriteOutcome, ...]
    notes: tuple[str, ...] = ()
    type: Literal["memories_written"] = "memories_written"


@dataclass(frozen=True)
class ContextBuilt:
    context: RequestContext
    type: Literal["context_built"] = "context_built"


@dataclass(frozen=True)
class PromptProgress:
    """How far the model has read the prompt before its first words (providers that can tell: a
    local model): ``done`` of ``total`` new tokens; ``cached`` ones were kept from the last request."""

    done: int
    total: int
    cached: int = 0
    type: Literal["prompt_progress"] = "prompt_progress"


@dataclass(frozen=True)
class ReplyDelta:
    text: str
    type: Literal["reply_delta"] = "reply_delta"


@dataclass(frozen=True)
class RetryScheduled:
    attempt: int
    delay: float
    error: ProviderError
    type: Literal["retry_scheduled"] = "retry_scheduled"


@dataclass
class ApprovalRequest:
    """A tool call waiting for the user's permission, or (``sampling`` set) a tool server that
    asks for a model reply while the call ``call_id`` runs: there ALLOW_FOR_CHAT means "always
    for this server" (in this chat)."""

    call_id: str
    server: str
    tool: str
    arguments: Mapping[str, Any]
    # Who asks: "" for this chat's model, the sub-agent path ("researcher", "researcher › reader"),
    # or "workflow NAME" for a workflow's state gate (server WORKFLOW_GATE) or tool state.
    origin: str = ""
    # What the call acts on beyond its arguments, when its server can tell: "in your workspace
    # folder ~/Documents" (a call with no arguments still reads somewhere).
    target: str = ""
    sampling: SamplingRequest | None = None
    # A warning to read before answering: "its server marks it destructive: …" ("" for none).
    caution: str = ""
    # Asked before every call of this tool (a skill's script): "allow for this chat" is not offered.
    every_call: bool = False
    # The caution is about the model's limits (a sub-agent or workflow on a small model): a front
    # end may also offer to pick another model, which answers DENY.
    model_limited: bool = False
    type: Literal["approval_requested"] = "approval_requested"
    _answer: asyncio.Future[ApprovalDecision] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._answer = asyncio.get_running_loop().create_future()

    def decide(self, decision: ApprovalDecision) -> None:
        """Answer the request; safe to call from any thread, and only the first answer counts."""
        loop = self._answer.get_loop()
        loop.call_soon_threadsafe(self._set, decision)

    def _set(self, decision: ApprovalDecision) -> None:
        if not self._answer.done():
            self._answer.set_result(decision)

    @property
    def decided(self) -> bool:
        return self._answer.done()

    @property
    def asker(self) -> str:
        """Who asks, capitalised for a question: "" (the chat's model), "Workflow triage" or
        "Sub-agent researcher"."""
        if not self.origin:
            return ""
        if self.origin == APP_ORIGIN:
            return f"The app view of {self.server}"
        if self.origin.startswith(WORKFLOW_ORIGIN):
            return f"Workflow {self.origin.removeprefix(WORKFLOW_ORIGIN)}"
        return f"Sub-agent {self.origin}"

    @property
    def action(self) -> str:
        """What it asks to run: ``server.tool(arguments)`` and what it acts on, or a workflow's state."""
        if self.server == WORKFLOW_GATE:
            return f"the state '{self.tool}'"
        if self.sampling is not None:
            return (
                f"the MCP server '{self.server}' (during {self.server}.{self.tool}) to have the model write "
                f"a reply of up to {self.sampling.max_tokens:,} tokens to its prompt"
            )
        arguments = json.dumps(dict(self.arguments), ensure_ascii=False, default=str)
        target = f" {self.target}" if self.target else ""
        return f"{self.server}.{self.tool}({arguments}){target}"

    async def wait(self) -> ApprovalDecision:
        return await asyncio.shield(self._answer)


@dataclass(frozen=True)
class SamplingAnswered:
    """A tool server's sampling request ended (answered, denied, refused or failed); the record
    goes into the reply's RequestContext."""

    record: SamplingRecord
    type: Literal["sampling_answered"] = "sampling_answered"


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    server: str
    tool: str
    arguments: Mapping[str, Any]
    type: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True)
class ToolCallProgress:
    """A running tool call's server reported progress (coalesced: a few a second at most)."""

    call_id: str
    progress: ToolProgress
    type: Literal["tool_call_progress"] = "tool_call_progress"


@dataclass(frozen=True)
class ToolCallFinished:
    record: ToolCallRecord
    type: Literal["tool_call_finished"] = "tool_call_finished"


@dataclass(frozen=True)
class SubagentStarted:
    """A tool call of this reply started sub-agent ``subagent`` in chat ``child_session_id``."""

    call_id: str
    subagent: str
    task: str
    context_mode: str
    child_session_id: str
    origin: str = ""  # the sub-agent path that started it; "" when this chat's model did
    type: Literal["subagent_started"] = "subagent_started"


@dataclass(frozen=True)
class SubagentProgress:
    """A running sub-agent's use so far (after each of its model turns, and its tool calls)."""

    call_id: str
    subagent: str
    turns: int
    usage: TokenUsage
    elapsed_seconds: float
    activity: str = ""  # e.g. "calling workspace.read_file"
    origin: str = ""
    type: Literal["subagent_progress"] = "subagent_progress"


@dataclass(frozen=True)
class SubagentFinished:
    """A sub-agent ended; ``delegation`` is what the parent's RequestContext records of it."""

    delegation: Delegation
    origin: str = ""
    type: Literal["subagent_finished"] = "subagent_finished"


@dataclass(frozen=True)
class WorkflowProgress:
    """A state of a workflow the reply runs started or ended (for live progress)."""

    call_id: str
    workflow: str
    run_id: str
    state_id: str
    status: Literal["started", "done", "failed", "refused", "dry_run", "needs_review"]
    steps_done: int
    item: Any = None
    error: str = ""
    type: Literal["workflow_progress"] = "workflow_progress"


@dataclass(frozen=True)
class WorkflowRunFinished:
    """A workflow the reply ran has ended; its link goes into the reply's RequestContext."""

    link: WorkflowRunLink
    store: Mapping[str, Any] = field(default_factory=dict)  # the final context store
    type: Literal["workflow_run_finished"] = "workflow_run_finished"


@dataclass(frozen=True)
class ItemPulled:
    """A tool call put an item in the reply: a rule or reference the model read (a tool the
    request answers itself, ``context.request_tools``) joins its RequestContext marked "requested
    by the model"; a skill it loaded stays in the chat."""

    ref: ItemRef
    call_id: str
    type: Literal["item_pulled"] = "item_pulled"


@dataclass(frozen=True)
class MessagesReplaced:
    """Regenerate or edit-and-resend replaced the chat's messages from ``from_id`` on: they are
    kept but no longer sent to the model. A Regenerate's are shown as replaced; an edit's
    (``versions``: the edited message's versions so far, oldest first) go onto a branch of their
    own, and the next UserMessageSaved is the new version."""

    from_id: int
    versions: tuple[int, ...] = ()
    type: Literal["messages_replaced"] = "messages_replaced"


@dataclass(frozen=True)
class Compacted:
    """Older turns were summarized into ``message`` (role "summary") before this reply."""

    message: StoredMessage
    automatic: bool
    type: Literal["compacted"] = "compacted"


@dataclass(frozen=True)
class RequestSent:
    """A model turn's request is on its way: its reply ``message`` is saved (streaming) with the
    RequestContext it was built from, including what each part of the request cost."""

    message: StoredMessage
    type: Literal["request_sent"] = "request_sent"


@dataclass(frozen=True)
class TurnSaved:
    """A model turn that called tools, saved with its calls; the reply goes on with another turn."""

    message: StoredMessage
    type: Literal["turn_saved"] = "turn_saved"


@dataclass(frozen=True)
class ReplyFinished:
    """The assistant message as saved: complete, or partial/cancelled/error with the reason."""

    message: StoredMessage
    type: Literal["reply_finished"] = "reply_finished"


ChatEvent = (
    UserMessageSaved
    | MemoriesWritten
    | ContextBuilt
    | Compacted
    | RequestSent
    | PromptProgress
    | ReplyDelta
    | RetryScheduled
    | ApprovalRequest
    | SamplingAnswered
    | ToolCallStarted
    | ToolCallProgress
    | ToolCallFinished
    | WorkflowProgress
    | WorkflowRunFinished
    | ItemPulled
    | MessagesReplaced
    | SubagentStarted
    | SubagentProgress
    | SubagentFinished
    | TurnSaved
    | ReplyFinished
)
