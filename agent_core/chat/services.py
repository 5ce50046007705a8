"""What a chat uses besides its agent and its store. One set is shared by every chat of a
workspace; the features that plug into a chat from the side (``tool_handlers``) come in here."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent_core.budget.overflow_advice import DEFAULT_OVERFLOW_FIXES, OverflowFixes
from agent_core.chat.reply_loop import Streamer
from agent_core.chat.resolved_model import ProviderResolver
from agent_core.chat.tool_handlers import MessageCommand, ToolHandlerFactory
from agent_core.context.selection import ContextSelector
from agent_core.memory.service import MemoryService
from agent_core.providers.retry import stream_with_retries
from agent_core.sampling_router import SamplingRouter
from agent_core.tools.runtime import NoTools, ToolRuntime

__all__ = ["ChatServices"]


@dataclass(frozen=True)
class ChatServices:
    """Models, selection, tools, streaming, memories, and the features a chat runs itself."""

    resolve_provider: ProviderResolver
    selector: ContextSelector | None = None
    tools: ToolRuntime = field(default_factory=NoTools)
    streamer: Streamer = stream_with_retries
    memories: MemoryService | None = None  # long-term memories; None: none are recalled
    sampling: SamplingRouter | None = None  # the tool servers' sampling requests; None: refused
    # Tool servers the chat runs itself (sub-agents, workflows) and commands typed as a message
    # (``/run``): wired in ``workspace.py``; none here means the chat offers none of them.
    tool_handlers: tuple[ToolHandlerFactory, ...] = ()
    commands: tuple[MessageCommand, ...] = ()
    overflow_fixes: OverflowFixes = (
        DEFAULT_OVERFLOW_FIXES  # the front end's words for taking items out of a chat
    )
