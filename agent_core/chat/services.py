"""What a chat uses besides its agent and its store. One set is shared by every chat of a
workspace."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_core.chat.reply_loop import Streamer
from agent_core.chat.resolved_model import ProviderResolver
from agent_core.context.selection import ContextSelector
from agent_core.memory.service import MemoryService
from agent_core.providers.retry import stream_with_retries
from agent_core.tools.runtime import NoTools, ToolRuntime
from agent_core.tools.sampling_router import SamplingRouter

__all__ = ["ChatServices"]


@dataclass(frozen=True)
class ChatServices:
    """Models, selection, tools, streaming and memories."""

    resolve_provider: ProviderResolver
    selector: ContextSelector | None = None
    tools: ToolRuntime = field(default_factory=NoTools)
    streamer: Streamer = stream_with_retries
    memories: MemoryService | None = None  # long-term memories; None: none are recalled
    sampling: SamplingRouter | None = None  # the tool servers' sampling requests; None: refused
