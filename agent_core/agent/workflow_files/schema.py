"""``workflows/NAME.yaml``: CodeMie's workflow schema (snake_case, as its documentation writes it)
and ContextDesk's additions (camelCase ``limits``, ``inputs``, ``approve``, ``parallel``…).

Every CodeMie field is declared, so that a typo is an error on its line rather than silently
ignored; the fields ContextDesk cannot honour are reported by ``workflow check`` (see
docs/workflows.md for the compatibility table). A file may hold CodeMie's template form, with the
workflow under ``execution_config``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "WorkflowAssistantConfig",
    "WorkflowCondition",
    "WorkflowFile",
    "WorkflowInput",
    "WorkflowLimits",
    "WorkflowMcpServer",
    "WorkflowNext",
    "WorkflowServerSettings",
    "WorkflowState",
    "WorkflowSwitch",
    "WorkflowToolConfig",
]

ClearStore = bool | Literal["keep_current"]
MergeRule = Literal["append", "last", "error"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class WorkflowCondition(_Model):
    expression: str
    then: str
    otherwise: str


class WorkflowSwitchCase(_Model):
    condition: str
    state_id: str


class WorkflowSwitch(_Model):
    cases: list[WorkflowSwitchCase]
    default: str


class WorkflowNext(_Model):
    """A state's ``next``: where to go, and what the output does to the store and the history."""

    state_id: str | None = None
    state_ids: list[str] | None = None
    condition: WorkflowCondition | None = None
    switch: WorkflowSwitch | None = None
    iter_key: str | None = None
    output_key: str | None = None
    store_in_context: bool = True
    include_in_llm_history: bool = True
    keep_history: bool | None = None  # CodeMie's older name for include_in_llm_history
    clear_prior_messages: bool = False
    clear_context_store: ClearStore = False
    reset_keys_in_context_store: list[str] | None = None
    include_in_iterator_context: list[str] = Field(default_factory=lambda: ["*"])
    append_to_context: bool = False
    override_task: bool = False

    @model_validator(mode="after")
    def _one_way_on(self) -> WorkflowNext:
        ways = [w for w in ("state_id", "state_ids", "condition", "switch") if getattr(self, w) is not None]
        if len(ways) != 1:
            raise ValueError(
                "next needs exactly one of state_id, state_ids, condition or switch"
                + (f" (it has {', '.join(ways)})" if ways else "")
            )
        if self.keep_history is not None:
            self.include_in_llm_history = self.keep_history
        return self


class WorkflowState(_Model):
    id: str
    assistant_id: str | None = None
    tool_id: str | None = None
    custom_node_id: str | None = None  # CodeMie's custom nodes: not supported (workflow check says so)
    task: str = ""
    tool_args: dict[str, Any] | None = None
    next: WorkflowNext
    output_schema: dict[str, Any] | str | None = None  # a JSON schema (CodeMie writes it as a string)
    resolve_dynamic_values_in_prompt: bool = True
    finish_iteration: bool = False
    interrupt_before: bool = False  # CodeMie's human gate: the same as approve
    result_as_human_message: bool = False
    retry_policy: dict[str, Any] | None = None
    # ContextDesk's additions
    approve: bool = False
    parallel: int | None = Field(default=None, ge=1, le=16)
    merge: MergeRule | None = None
    output_pointer: str | None = Field(default=None, alias="outputPointer")
    # Go on with output that had to be repaired into JSON, or that a routed tool gave in the
    # model's place (by default such a state stops the run for review).
    accept_unchecked_output: bool = False

    @model_validator(mode="after")
    def _one_kind(self) -> WorkflowState:
        kinds = [k for k in ("assistant_id", "tool_id", "custom_node_id") if getattr(self, k)]
        if len(kinds) > 1:
            raise ValueError(f"a state is an assistant, a tool or a custom node, not {' and '.join(kinds)}")
        if self.output_pointer is not None and not (
            self.output_pointer == "" or self.output_pointer.startswith("/")
        ):
            raise ValueError("outputPointer is a JSON pointer: empty, or starting with '/' (e.g. /items/0)")
        return self


class WorkflowServerSettings(_Model):
    """An assistant's MCP server's ``config``: a command to start (stdio), with its arguments and
    environment. With no ``command``, the agent's own server of that name is started with these
    arguments (its command, environment and folder kept)."""

    command: str | None = None
    args: list[str] | None = None
    env: dict[str, str] = Field(default_factory=dict)


class WorkflowMcpServer(_Model):
    """An ``assistants[].mcp_servers`` entry: a server started for that assistant's states only,
    its arguments and environment filled from the context store when
    ``resolve_dynamic_values_in_arguments`` is true."""

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")
    description: str = ""
    config: WorkflowServerSettings = Field(default_factory=WorkflowServerSettings)
    resolve_dynamic_values_in_arguments: bool = False


class WorkflowAssistantConfig(_Model):
    """An ``assistants`` entry: which agent answers (this one, a sub-agent, an agent folder)."""

    id: str
    assistant_id: str | None = None  # CodeMie's id of a saved assistant: a sub-agent's name here
    name: str | None = None
    model: str | None = None
    temperature: float | None = None
    system_prompt: str | None = None
    limit_tool_output_tokens: int | None = None
    tools: list[dict[str, Any]] = Field(default_factory=list)
    datasource_ids: list[str] = Field(default_factory=list)
    exclude_extra_context_tools: bool = False
    mcp_servers: list[WorkflowMcpServer] = Field(default_factory=list)
    skill_ids: list[str] = Field(default_factory=list)
    agent: str | None = None  # ContextDesk: an agent folder inside this one


class WorkflowToolConfig(_Model):
    """A ``tools`` entry: an MCP tool ``server.tool`` of this agent."""

    id: str
    tool: str
    tool_args: dict[str, Any] | None = None
    integration_alias: str | None = None
    tool_result_json_pointer: str | None = None
    trace: bool = False
    mcp_server: dict[str, Any] | None = None
    resolve_dynamic_values_in_response: bool = False
    input_key: str | None = None
    tokens_size_limit: int | None = None


class WorkflowInput(_Model):
    type: Literal["string", "number", "integer", "boolean", "object", "array"] = "string"
    required: bool = True
    default: Any = None
    description: str = ""


HARD_MAX_STEPS = 10_000
HARD_MAX_STORED_BYTES = 1024 * 1_048_576  # 1 GB of run records: beyond it, split the workflow
HARD_MAX_STEP_BYTES = 64 * 1_048_576
HARD_MAX_TIMEOUT_SECONDS = 86_400.0  # no run lives longer (an older "running" run was interrupted)


class WorkflowLimits(_Model):
    """A run's caps (docs/workflows.md#limits); each has a default and a hard upper cap."""

    max_steps: int = Field(default=50, ge=1, le=HARD_MAX_STEPS, alias="maxSteps")
    max_tokens: int = Field(default=200_000, ge=100, alias="maxTokens")
    timeout_seconds: float = Field(default=900, gt=0, le=HARD_MAX_TIMEOUT_SECONDS, alias="timeoutSeconds")
    # What the run's step records may store in the database, in all and per step.
    max_stored_bytes: int = Field(
        default=64 * 1_048_576, ge=65_536, le=HARD_MAX_STORED_BYTES, alias="maxStoredBytes"
    )
    max_step_bytes: int = Field(
        default=4 * 1_048_576, ge=16_384, le=HARD_MAX_STEP_BYTES, alias="maxStepBytes"
    )


class WorkflowFile(_Model):
    """A whole workflow file."""

    name: str | None = None
    description: str = ""
    slug: str | None = None
    mode: str | None = None  # CodeMie's Sequential (states) or Autonomous (a supervisor delegating)
    supervisor_prompt: str | None = None  # Autonomous: what the supervisor is told to do
    start_hint: str | None = None
    assistants: list[WorkflowAssistantConfig] = Field(default_factory=list)
    tools: list[WorkflowToolConfig] = Field(default_factory=list)
    custom_nodes: list[dict[str, Any]] = Field(default_factory=list)
    states: list[WorkflowState] = Field(default_factory=list)  # none in Autonomous mode
    enable_summarization_node: bool | None = None
    messages_limit_before_summarization: int | None = None
    tokens_limit_before_summarization: int | None = None
    recursion_limit: int | None = None
    max_concurrency: int | None = None
    max_iteration_key_output_limit: int | None = None
    retry_policy: dict[str, Any] | None = None
    verbose: bool | None = None
    # ContextDesk's additions
    inputs: dict[str, WorkflowInput] = Field(default_factory=dict)
    limits: WorkflowLimits = Field(default_factory=WorkflowLimits)
    undefined: Literal["error", "keep"] = "error"
    include: Literal["always", "manual", "agent"] = "agent"

    @model_validator(mode="before")
    @classmethod
    def _execution_config(cls, data: Any) -> Any:
        """CodeMie's template form keeps the workflow under ``execution_config``."""
        if isinstance(data, dict) and isinstance(data.get("execution_config"), dict):
            inner = dict(data["execution_config"])
            outer = {k: v for k, v in data.items() if k != "execution_config"}
            return {**outer, **inner}
        return data

    @property
    def autonomous(self) -> bool:
        """CodeMie's Autonomous mode: a supervisor delegates to the assistants, no states."""
        return (self.mode or "").strip().lower() == "autonomous"

    @model_validator(mode="after")
    def _something_to_run(self) -> WorkflowFile:
        if self.autonomous and not self.assistants:
            raise ValueError("an Autonomous workflow needs assistants for its supervisor to delegate to")
        if not self.autonomous and not self.states:
            raise ValueError(
                "a workflow needs at least one state (or mode: Autonomous, a supervisor_prompt and assistants)"
            )
        return self

    @field_validator("states")
    @classmethod
    def _states(cls, states: list[WorkflowState]) -> list[WorkflowState]:
        seen: set[str] = set()
        for state in states:
            if state.id in seen:
                raise ValueError(f"two states have the id {state.id!r}")
            if state.id == "end":
                raise ValueError("'end' is where a workflow stops: no state may have that id")
            seen.add(state.id)
        return states
