"""References to context items and the RequestContext recorded with every reply.

Contexts store names, not copies: an item is looked up in the agent when needed, and a stored
RequestContext still says what was used after the item changes (as in the anchor design).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent_core.context.provenance import Provenance

__all__ = [
    "SKILL_PARTS",
    "AppExchange",
    "ContextManifest",
    "ContextNotes",
    "Delegation",
    "ImageUse",
    "ItemRef",
    "ItemType",
    "ManifestPart",
    "NearMiss",
    "RequestContext",
    "RequestItem",
    "SamplingRecord",
    "SelectionRun",
    "SessionItem",
    "SkillState",
    "StoppedBy",
    "TokenUsage",
    "TrimAction",
    "WorkflowRunLink",
]

ItemType = Literal["rule", "reference", "tool", "memory", "skill"]
SessionMode = Literal["always", "manual"]
RequestMode = Literal["always", "manual", "agent"]
SelectionStatus = Literal["ok", "no_candidates", "model_loading", "failed", "disabled"]
# How much of a skill a request carries: its catalogue line (the model loads the body with
# ``skills.load`` when it needs it), its body (always, added by the user, or loaded by the model),
# or its body inline in the message (a model that cannot call tools).
SkillState = Literal["catalogue", "loaded", "inline"]


@dataclass(frozen=True, order=True)
class ItemRef:
    """Which item: a rule or reference by name, a tool by server and name."""

    type: ItemType
    name: str
    server: str | None = None

    @property
    def key(self) -> str:
        return f"tool:{self.server}/{self.name}" if self.type == "tool" else f"{self.type}:{self.name}"

    def label(self) -> str:
        return f"{self.server}.{self.name}" if self.type == "tool" else self.name


@dataclass(frozen=True)
class SessionItem:
    ref: ItemRef
    include_mode: SessionMode
    pinned: bool = False  # kept in full through trimming and compaction
    # A skill the model loaded (``skills.load``) while answering this user message (its id): it
    # stays in the chat until a compaction covers that message or the user removes it.
    loaded_at: int | None = None


@dataclass(frozen=True)
class RequestItem:
    ref: ItemRef
    include_mode: RequestMode
    score: float | None = None  # similarity, for agent-selected items
    reason: str = (
        ""  # why a recalled memory is in ("matched 'database' 0.81 · used 3 days ago · importance 4")
    )
    skill_state: SkillState | None = None  # for a skill: what of it the request carries


@dataclass(frozen=True)
class NearMiss:
    """An agent-mode item the selector considered and left out, and why; ``needed`` is the score
    it had to reach where a threshold left it out (the minimum score, or the routing threshold)."""

    ref: ItemRef
    score: float | None  # None: left out before it could be scored (e.g. selection failed)
    reason: str
    needed: float | None = None


@dataclass(frozen=True)
class SelectionRun:
    """The selection settings used for one request and how selection went."""

    top_k: int
    top_n: int
    include_score: float
    strategy: str = "default"
    status: SelectionStatus = "ok"
    detail: str = ""  # e.g. the error when status is "failed"
    elapsed_ms: float | None = None
    # Candidates judged on their name, description and examples only: their bodies were still
    # being indexed in the background (a large agent's first selections).
    description_only: tuple[ItemRef, ...] = ()
    # The hybrid's floor (minScore; None: not recorded, or a strategy without one), and what it was
    # raised by for this message, a question about how things are (0: not raised).
    min_score: float | None = None
    question_floor: float = 0.0


@dataclass(frozen=True)
class TokenUsage:
    """Tokens a request used, as the provider reported them (None: not reported)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cached_input_tokens: int | None = None
    # The provider answered without running a model (a routed tool that needs no arguments, a
    # tool's result shown as it is), so there are no tokens to report rather than zero.
    without_model: bool = False
    # Counted by ContextDesk, not reported: the reply stopped (the user's Stop, a time limit, an
    # error) before the provider sent its counts; the prompt as counted, the text received so far.
    estimated: bool = False

    @property
    def total(self) -> int:
        """Input and output tokens together (those not reported count as none)."""
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def plus(self, more: TokenUsage) -> TokenUsage:
        """Both requests' tokens: each count summed (None only when neither reported it), and
        ``without_model`` or ``estimated`` when either is."""

        def add(a: int | None, b: int | None) -> int | None:
            return b if a is None else a if b is None else a + b

        return TokenUsage(
            add(self.input_tokens, more.input_tokens),
            add(self.output_tokens, more.output_tokens),
            add(self.cached_input_tokens, more.cached_input_tokens),
            without_model=self.without_model or more.without_model,
            estimated=self.estimated or more.estimated,
        )


PartKind = Literal[
    "system_prompt",
    "rule",
    "reference",
    "summary",
    "tool",
    "history",
    "selected_rule",
    "selected_reference",
    "skill",  # a skill's body in the system message (always, added by the user, loaded by the model)
    "skill_catalogue",  # the catalogue line of a skill selected for this message
    "selected_skill",  # a skill's body inline in the message (a model that cannot call tools)
    "memory",
    "message",
    "current_turns",
    "framing",
]
SKILL_PARTS: tuple[PartKind, ...] = ("skill", "skill_catalogue", "selected_skill")
TrimKind = Literal[
    "history_dropped",
    "tool_result_summarized",
    "tool_result_cut",
    "reference_chunked",
    "compacted",
    "items_left_out",  # items selected for the message, left out (lowest score first) to fit
]


@dataclass(frozen=True)
class ManifestPart:
    """What one part of the request cost, in tokens."""

    kind: PartKind
    tokens: int
    name: str = ""
    detail: str = ""  # e.g. "chunks 2, 5 of 9" or "14 messages"


@dataclass(frozen=True)
class TrimAction:
    """Something left out or shortened to fit the window, and why."""

    kind: TrimKind
    detail: str
    tokens_saved: int = 0


@dataclass(frozen=True)
class ImageUse:
    """One image of a tool result in the request: passed to the model, or left to the one-line
    summary the result's text holds (``reason`` says why)."""

    call_id: str
    tool: str  # the tool's name as the model saw it
    number: int  # 1 for the result's first image
    mime_type: str
    size_bytes: int  # decoded
    passed: bool
    reason: str = ""


@dataclass(frozen=True)
class ContextManifest:
    """Exactly what was sent, part by part, and how it was made to fit."""

    window: int
    window_source: str
    reply_reserve: int
    counter: str  # which tokenizer counted
    exact: bool  # False: counts are estimates
    parts: tuple[ManifestPart, ...]
    trimmed: tuple[TrimAction, ...] = ()
    images: tuple[ImageUse, ...] = ()  # of tool results, newest last
    # What listing the catalogue line of every enabled skill would have cost (as Claude Code lists
    # every skill's description), to compare with what this request spent on skills.
    skills_listed_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return sum(part.tokens for part in self.parts)

    @property
    def budget(self) -> int:
        return self.window - self.reply_reserve

    @property
    def used_share(self) -> float:
        return self.total_tokens / self.budget if self.budget > 0 else 1.0

    @property
    def skill_tokens(self) -> int:
        """What this request spent on skills: catalogue lines and bodies."""
        return sum(part.tokens for part in self.parts if part.kind in SKILL_PARTS)

    @property
    def skill_tokens_saved(self) -> int:
        """Tokens selection saved against listing every enabled skill's description (0 when
        listing them would have cost no more)."""
        return max(0, self.skills_listed_tokens - self.skill_tokens)


@dataclass(frozen=True)
class ContextNotes:
    """Why a request got less than the chat holds, in words for the user (empty: nothing to say)."""

    tools: str = ""  # the model cannot call tools, so none were offered
    tool_routing: str = ""  # which tool was routed to a model that cannot choose tools, and why
    budget: str = ""  # why token counts are missing (what-if with an unusable model)
    memory: str = ""  # why no memories were recalled when memory is on (the embedding model is not ready)
    skills: str = ""  # the model cannot load skills: which one came inline, or why none did

    def topics(self) -> list[tuple[str, str]]:
        """The notes that say something, as (topic, text), in a fixed order."""
        return [(topic, text) for topic, text in vars(self).items() if text]


StoppedBy = Literal["", "maxTurns", "maxTokens", "timeout", "cancelled", "error"]


@dataclass(frozen=True)
class Delegation:
    """One sub-agent a reply delegated to: the exact task it sent, how the child's context was
    made, what it cost and how it ended. Its tokens are the child's own (and its children's),
    never counted in the parent's ``usage``."""

    call_id: str
    subagent: str
    task: str
    context_mode: str  # isolated, fork or summary
    child_session_id: str
    model: str = ""
    usage: TokenUsage = field(default_factory=TokenUsage)
    turns: int = 0
    elapsed_seconds: float = 0.0
    stopped_by: StoppedBy = ""  # "": finished by itself
    result: str = ""  # what went back to the parent (after validation)
    note: str = ""  # e.g. "the schema was not met after one repair"
    provenance: Provenance | None = None  # what produced the result (None: saved before it was kept)


@dataclass(frozen=True)
class WorkflowRunLink:
    """A workflow a reply ran (``/run`` or the model's call of its tool): which run, how it ended
    and what it cost. Every state of it is in the run store under ``run_id``."""

    call_id: str
    workflow: str
    run_id: str
    status: str  # finished, failed, stopped, cancelled
    steps: int = 0
    usage: TokenUsage = field(default_factory=TokenUsage)
    elapsed_seconds: float = 0.0
    error: str = ""


SamplingOutcome = Literal["answered", "denied", "refused", "failed"]


@dataclass(frozen=True)
class SamplingRecord:
    """A tool server asked the chat's model for a reply (MCP sampling) during tool call
    ``call_id``: who asked, exactly what it sent, what went back and what it cost. Its tokens are
    counted here, never in the reply's own ``usage``."""

    call_id: str
    server: str
    tool: str
    system_prompt: str
    prompt: str  # the server's messages, one "role: text" paragraph each (bounded)
    max_tokens: int  # as granted: the server's maxTokens within the server's cap
    outcome: SamplingOutcome
    approval: str = ""  # allowed_once, allowed_for_server, allowed_by_setting, denied, denied_by_setting
    model: str = ""  # provider:model that answered
    answer: str = ""
    usage: TokenUsage = field(default_factory=TokenUsage)
    elapsed_seconds: float = 0.0
    note: str = ""  # why it was refused or failed, or which model hint was honoured


AppExchangeKind = Literal["message", "model_context"]


@dataclass(frozen=True)
class AppExchange:
    """What a tool's UI (an MCP App view) sent for the conversation after call ``call_id``: a
    message for the chat (``ui/message``) or context for the model (``ui/update-model-context``,
    the latest one per call). Shown to the user; third-party text, bounded when kept."""

    call_id: str
    server: str
    tool: str
    kind: AppExchangeKind
    text: str


@dataclass(frozen=True)
class RequestContext:
    """Exactly what one request used; attached to the assistant message and stored with it."""

    items: tuple[RequestItem, ...]
    model: str  # provider:model
    selection: SelectionRun
    near_misses: tuple[NearMiss, ...] = ()
    usage: TokenUsage = field(default_factory=TokenUsage)
    manifest: ContextManifest | None = None
    notes: ContextNotes = field(default_factory=ContextNotes)
    delegations: tuple[Delegation, ...] = ()  # sub-agents this reply ran, in order
    workflow_runs: tuple[WorkflowRunLink, ...] = ()  # workflows this reply ran, in order
    samplings: tuple[SamplingRecord, ...] = ()  # replies tool servers asked the model for, in order
    app_exchanges: tuple[AppExchange, ...] = ()  # what the tools' UIs sent, in order
    provenance: Provenance | None = None  # a finished reply's: what produced its text

    def of_type(self, item_type: ItemType) -> list[RequestItem]:
        return [item for item in self.items if item.ref.type == item_type]
