"""What the files of an agent folder may contain, validated with pydantic at the edge.

Keys are camelCase on disk (``maxChatTurns``) and snake_case in Python. Unknown keys are errors,
so a typo is reported instead of silently ignored.
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidatorFunctionWrapHandler, field_validator

from agent_core.agent.file_globs import MAX_GLOBS, glob_problem, split_glob_list
from agent_core.agent.file_model import FileModel
from agent_core.agent.names import name_problem
from agent_core.agent.oauth_settings import OAuthConfig

__all__ = [
    "SERVER_MODELS",
    "AgentConfig",
    "ChatDefaults",
    "ContextConfig",
    "FileModel",
    "IncludeMode",
    "InternalServerConfig",
    "ItemFrontmatter",
    "ItemName",
    "McpServerConfig",
    "MemoryConfig",
    "OAuthConfig",
    "ProviderConfig",
    "SamplingPolicy",
    "SelectionConfig",
    "ServerLogLevel",
    "SkillSettings",
    "SseServerConfig",
    "StdioServerConfig",
    "StreamableHttpServerConfig",
    "ToolDefaults",
    "ToolPermissionPolicy",
    "ToolSettings",
]


class IncludeMode(StrEnum):
    """How an item gets into a chat's context."""

    ALWAYS = "always"  # added to every new session
    MANUAL = "manual"  # the user adds or removes it
    AGENT = "agent"  # chosen per message by semantic selection


class SamplingPolicy(StrEnum):
    """Whether a tool server may have the chat's model write a reply for it (MCP sampling)."""

    ASK = "ask"  # ask the user each time (or once for the server, if they say so)
    ALLOW = "allow"  # answer without asking, within the token caps
    DENY = "deny"  # refuse every request


class ToolPermissionPolicy(StrEnum):
    """Whether a chat asks before running tools."""

    TOOL = "tool"  # follow each tool's own permissionRequired
    ASK = "ask"  # ask before every tool call
    ALLOW = "allow"  # never ask


class ChatDefaults(FileModel):
    model: str = Field(
        default="local:smollm2-135m-instruct",
        description="provider:model, e.g. openai:gpt-4o-mini",
        pattern=r"^[A-Za-z0-9_.-]+:.+$",
    )
    max_chat_turns: int = Field(default=20, ge=1, le=200)
    max_output_tokens: int = Field(default=1000, ge=1, le=1_000_000)
    temperature: float = Field(default=0.5, ge=0.0, le=2.0)
    top_p: float = Field(default=0.9, gt=0.0, le=1.0)
    reply_timeout_seconds: float = Field(
        default=600, ge=1, le=86_400, description="a model turn that streams longer than this is stopped"
    )
    tool_permission: ToolPermissionPolicy = ToolPermissionPolicy.TOOL
    max_subagent_runs_per_message: int = Field(
        default=20, ge=1, le=1000, description="sub-agent runs one message may start, at every depth together"
    )
    max_subagent_tokens_per_message: int = Field(
        default=1_000_000,
        ge=1000,
        le=1_000_000_000,
        description="tokens the sub-agents of one message use together",
    )


class SelectionConfig(FileModel):
    """Per-message selection of agent-mode items. Defaults are the anchor's parameters."""

    top_k: int = Field(default=20, ge=1, le=1000, description="chunk matches considered")
    top_n: int = Field(
        default=5, ge=0, le=100, description="items selected per message, at most, whatever selected them"
    )
    include_score: float = Field(default=0.7, ge=0.0, le=1.0, description="include at or above, within topN")
    strategy: Literal["hybrid", "anchor"] = Field(
        default="hybrid", description="hybrid: dense + lexical with a score floor; anchor: TsAgent's ranking"
    )
    min_score: float | None = Field(
        default=None, ge=0.0, le=1.0, description="score floor; None uses the strategy's own"
    )
    tool_route_score: float = Field(
        default=0.5,
        ge=0.0,
        le=2.0,
        description="models that cannot choose tools (local): call the best-matching tool when it scores "
        "at least this; above 1.4 never",
    )
    skill_inline_score: float = Field(
        default=0.5,
        ge=0.0,
        le=2.0,
        description="models that cannot call tools (local): the best selected skill's instructions come "
        "inline when it scores at least this; above 1.4 never",
    )
    rare_name_weight: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="added for the share of an item's distinctive name words (used by few items) the "
        "message says; None uses the strategy's own",
    )
    rare_name_max_items: int | None = Field(
        default=None,
        ge=1,
        le=50,
        description="a name word is distinctive when at most this many items use it; None uses the "
        "strategy's own",
    )
    rare_name_proper: bool | None = Field(
        default=None,
        description="a distinctive name word must be written as a name (capitalised) in the item's "
        "description; None uses the strategy's own",
    )
    rare_name_lift: bool | None = Field(
        default=None,
        description="an item whose distinctive name words the message all says scores at least the floor; "
        "None uses the strategy's own",
    )
    head_lexical_weight: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="weight of word matches in names and descriptions alone (not bodies); None uses the "
        "strategy's own",
    )
    head_lexical_share: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="share of the word-match weight moved from whole texts to names and descriptions; "
        "None uses the strategy's own",
    )
    body_noise_slope: float | None = Field(
        default=None,
        ge=0.0,
        le=0.2,
        description="how much a body chunk's match is marked down per e-fold of body chunks past "
        "1,000 (large libraries match anything by chance); 0 turns it off; None uses the strategy's own",
    )
    head_agreement_slope: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="in a library of more than 1,000 body chunks, how much of a heading's or label's lead "
        "over its item's name and description is taken off per e-fold of body chunks (a few words far from "
        "what their item is about match by chance); 0 turns it off; None uses the strategy's own",
    )
    template_family_min: int | None = Field(
        default=None,
        ge=0,
        le=10_000,
        description='items described by one sentence with another name in it ("Automate Strava tasks via '
        '...") form a family when at least this many share it, and a member is chosen only when the message '
        "names it; 0 turns it off; None uses the strategy's own",
    )
    twin_similarity: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="a chosen item whose name and description are at least this alike to those of a "
        "better-scored chosen one is left out (near twins from two collections); 1 turns it off; None "
        "uses the strategy's own",
    )
    definition_top_n: int | None = Field(
        default=None,
        ge=0,
        le=50,
        description='a message that only asks what one thing is ("what\'s git", "explain oauth simply") gets '
        "at most this many items: the best about it, not every item named after it; topN or more turns it "
        "off; None uses the strategy's own",
    )
    second_opinion: bool = Field(
        default=True,
        description="models that choose tools: offer a catalogue of the agent-mode rules and references "
        "selection left out, and a tool to read one",
    )


class MemoryConfig(FileModel):
    """Long-term memories (docs/memory.md); every setting can be overridden per chat."""

    enabled: bool = Field(default=True, description="recall and save memories in this agent's chats")
    extraction: Literal["off", "rules", "model"] = Field(
        default="off",
        description="automatic proposals from the user's messages: off; rules (offline patterns); model "
        "(the chat's model, when it is capable; rules otherwise)",
    )
    auto_accept: bool = Field(
        default=False, description="memories from the model or the extractor are saved without asking"
    )
    max_tokens: int = Field(default=600, ge=0, le=20_000, description="recalled memories, at most")
    max_recalled: int = Field(default=5, ge=0, le=100)
    min_relevance: float = Field(
        default=0.33, ge=0.0, le=1.0, description="a memory must match the message this well to be recalled"
    )
    short_ttl_days: int = Field(default=30, ge=1, le=3650, description="short-tier memories expire unused")
    cap_per_scope: int = Field(default=2000, ge=10, le=100_000, description="active memories kept per scope")
    default_scope: Literal["agent", "global"] = "agent"

    @field_validator("extraction", mode="before")
    @classmethod
    def _yaml_off(cls, value: object) -> object:
        # YAML reads a bare `off` as false (and `on` as true): take them as the words meant.
        if value is False:
            return "off"
        if value is True:
            return "rules"
        return value


class ContextConfig(FileModel):
    """Context-window management; every limit can be overridden per chat."""

    window: int | None = Field(default=None, ge=512, description="tokens; None: from the model")
    reply_reserve: int | None = Field(
        default=None, ge=0, description="tokens kept for the reply; None: maxOutputTokens"
    )
    keep_tool_rounds: int = Field(default=2, ge=0, le=100, description="latest tool rounds kept in full")
    max_tool_result_tokens: int = Field(default=4000, ge=100, description="a longer tool result is cut")
    max_reference_share: float = Field(
        default=0.25, gt=0, le=1, description="share of the window one agent-selected reference may use"
    )
    compact_at: float = Field(default=0.8, gt=0, le=1, description="compact when history passes this share")
    keep_recent_turns: int = Field(default=4, ge=1, le=100, description="turns kept verbatim by compaction")
    auto_compact: bool = True


class ProviderConfig(FileModel):
    """One configured model provider. ``type`` defaults to the provider's id."""

    type: str | None = None
    api_key: str | None = Field(default=None, description="literal key, or env://VAR")
    base_url: str | None = None
    model_path: str | None = None
    threads: int | None = Field(default=None, ge=1, le=256)
    context_size: int | None = Field(default=None, ge=256)
    timeout_seconds: float | None = Field(default=None, gt=0)
    headers: dict[str, str] = Field(default_factory=dict)
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)
    vision_models: list[str] | None = Field(
        default=None,
        max_length=100,
        description='models that can see images, as glob patterns ("llava*", "*" for all, "!x" to leave '
        "one out); default: the provider's known vision models",
    )

    @field_validator("vision_models")
    @classmethod
    def _usable_patterns(cls, patterns: list[str] | None) -> list[str] | None:
        for pattern in patterns or ():
            if not pattern.strip() or len(pattern) > 200:
                raise ValueError(
                    f"vision model pattern {pattern!r} must be a model name or a glob like llava*"
                )
        return patterns


class ToolSettings(FileModel):
    """Per-tool overrides of a server's tool defaults."""

    include: IncludeMode | None = None
    permission_required: bool | None = None


class ToolDefaults(FileModel):
    include: IncludeMode = IncludeMode.ALWAYS
    permission_required: bool = True
    # Run tools the server marks read-only without asking, whatever ``permissionRequired`` says.
    # Off by default: the mark is the server's claim, so trusting it is the user's choice.
    allow_read_only: bool = False


# The MCP log levels (RFC 5424 severities), least severe first.
ServerLogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]


class _ServerBase(FileModel):
    tool_defaults: ToolDefaults = Field(default_factory=ToolDefaults)
    tools: dict[str, ToolSettings] = Field(default_factory=dict)
    start_timeout_seconds: float = Field(default=30.0, gt=0, le=600)
    call_timeout_seconds: float = Field(default=60.0, gt=0, le=3600)
    enabled: bool = True
    roots: list[str] | None = Field(
        default=None,
        max_length=64,
        description="folders the server may work in (MCP roots); default: the agent's workspace folder(s)",
    )
    # MCP sampling: the server asks the chat's model for a reply (docs/mcp.md#sampling).
    sampling: SamplingPolicy = SamplingPolicy.ASK
    sampling_model: str | None = Field(default=None, description="provider:model; default the chat's")
    sampling_max_tokens: int = Field(default=1000, ge=1, le=32_000)
    sampling_tokens_per_minute: int = Field(default=10_000, ge=1, le=1_000_000)
    # The least severe of the server's log messages to receive (sent as logging/setLevel).
    log_level: ServerLogLevel = "info"

    @field_validator("roots")
    @classmethod
    def _absolute_roots(cls, roots: list[str] | None) -> list[str] | None:
        for root in roots or ():
            if not root.strip() or not Path(root).expanduser().is_absolute():
                raise ValueError(
                    f"root {root!r} must be an absolute folder (or start with ~), e.g. ~/Projects"
                )
        return roots


class StdioServerConfig(_ServerBase):
    type: Literal["stdio"] = "stdio"
    command: str = Field(min_length=1)
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None


class SseServerConfig(_ServerBase):
    type: Literal["sse"]
    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)


class StreamableHttpServerConfig(_ServerBase):
    type: Literal["streamable-http"]
    url: str = Field(pattern=r"^https?://")
    headers: dict[str, str] = Field(default_factory=dict)
    # `true` or an object: the server requires OAuth sign-in. Never holds a token.
    oauth: bool | OAuthConfig = False

    @field_validator("oauth", mode="wrap")
    @classmethod
    def _oauth_block(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # An object is an oauth block: its own problems only, not also "should be a valid boolean".
        return OAuthConfig.model_validate(value) if isinstance(value, dict) else handler(value)

    @property
    def oauth_settings(self) -> OAuthConfig | None:
        """The OAuth settings, or None when the server does not use OAuth."""
        if isinstance(self.oauth, OAuthConfig):
            return self.oauth
        return OAuthConfig() if self.oauth else None


class InternalServerConfig(_ServerBase):
    """A server built into ContextDesk, run in-process (e.g. ``references``)."""

    type: Literal["internal"]
    tool: str = Field(min_length=1, description="which built-in server")
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)


McpServerConfig = Annotated[
    StdioServerConfig | SseServerConfig | StreamableHttpServerConfig | InternalServerConfig,
    Field(discriminator="type"),
]


SERVER_MODELS: dict[str, type[_ServerBase]] = {
    "stdio": StdioServerConfig,
    "sse": SseServerConfig,
    "streamable-http": StreamableHttpServerConfig,
    "internal": InternalServerConfig,
}


class SkillSettings(FileModel):
    """ContextDesk's own choices for one skill (``skills:`` in agent.yaml): the skill's folder
    stays exactly as the tools that share it write it."""

    include: IncludeMode = Field(
        default=IncludeMode.AGENT, description="agent: offered when a message needs it (the default)"
    )
    enabled: bool = True
    priority_level: int = Field(default=500, ge=0, le=999)


class AgentConfig(FileModel):
    """``agent.yaml``."""

    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    system_prompt: str = ""
    chat: ChatDefaults = Field(default_factory=ChatDefaults)
    selection: SelectionConfig = Field(default_factory=SelectionConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    memory: MemoryConfig = Field(default_factory=MemoryConfig)
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    model_aliases: dict[str, str] = Field(
        default_factory=dict,
        description="the provider:model a sub-agent's model alias stands for, e.g. sonnet: anthropic:claude-sonnet-4-5",
    )
    skills: dict[str, SkillSettings] = Field(
        default_factory=dict, description="per skill (by its folder's name): include mode, enabled, priority"
    )


def _checked_glob(pattern: str) -> str:
    if problem := glob_problem(pattern):
        raise ValueError(problem)
    return pattern


def _checked_name(name: str) -> str:
    if problem := name_problem(name):
        raise ValueError(problem)
    return name


#: An item's name, which doubles as its file's name: safe on every platform.
ItemName = Annotated[str, AfterValidator(_checked_name)]


class ItemFrontmatter(FileModel):
    """The YAML header of ``rules/<name>.md`` and ``references/<name>.md``."""

    name: ItemName | None = None
    description: str = ""
    priority_level: int = Field(default=500, ge=0, le=999)
    include: IncludeMode = IncludeMode.MANUAL
    #: typical requests that need the item, for selection (``include: agent``): each is matched
    #: against messages like the item's own text is.
    examples: list[Annotated[str, Field(min_length=1, max_length=500)]] = Field(
        default_factory=list, max_length=20
    )
    #: file patterns (``src/**/*.ts``): the item also joins a request that names a matching file,
    #: whatever its include mode; a catch-all (``**/*``) makes it ``always`` (docs/agent-format.md).
    globs: list[Annotated[str, AfterValidator(_checked_glob)]] = Field(
        default_factory=list, max_length=MAX_GLOBS
    )

    @field_validator("globs", mode="before")
    @classmethod
    def _one_line_globs(cls, value: object) -> object:
        # Cursor's form, `globs: "src/**/*.ts, *.py"`: one string of comma-separated patterns.
        if isinstance(value, str):
            return split_glob_list(value)
        return value
