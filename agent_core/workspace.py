"""An open agent with everything a front end needs to chat with it.

The desktop app and the CLI both open a Workspace: the agent, the chat store, the context
selector (one embedding model for the app), the tools and the model providers.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from agent_core.agent.agent import Agent
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import ensure_default_agent
from agent_core.agent.server_trust import TrustGate
from agent_core.agent.variables import variables_for
from agent_core.budget.overflow_advice import DEFAULT_OVERFLOW_FIXES, OverflowFixes
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.chat.tool_handlers import MessageCommand, ToolHandlerFactory
from agent_core.context.learned import LearnedSelections
from agent_core.context.selection import ContextSelector
from agent_core.context.skill_search import skill_ranker
from agent_core.context.skill_server import agent_servers
from agent_core.errors import UserDataError
from agent_core.memory.service import MemoryService
from agent_core.providers.pool import ProviderPool
from agent_core.sampling_router import SamplingRouter
from agent_core.store.chats import ChatStore
from agent_core.subagents.runner import Delegator
from agent_core.subagents.tools import WithSubagents
from agent_core.tools.runtime import NoTools, ToolRuntime
from agent_core.workflows.chat_runs import ChatWorkflows
from agent_core.workflows.run_command import RunCommand
from agent_core.workflows.tools import WithWorkflows

if TYPE_CHECKING:
    from agent_core.mcp import McpManager, ServerStatus
    from agent_core.mcp.elicitation import ElicitationHandler
    from agent_core.mcp.oauth import SignInHandler

__all__ = ["CHAT_COMMANDS", "CHAT_TOOL_HANDLERS", "Workspace"]

# The features a chat runs itself, plugged in from the side (chat/ imports none of them): the
# tool servers whose calls it hands to a handler, and the commands typed in place of a message.
# A new such feature adds its handler or command here, and its tools to ``chat_services``' runtime.
CHAT_TOOL_HANDLERS: tuple[ToolHandlerFactory, ...] = (Delegator, ChatWorkflows)
CHAT_COMMANDS: tuple[MessageCommand, ...] = (RunCommand(),)

logger = logging.getLogger(__name__)


class Workspace:
    def __init__(
        self,
        agent: Agent,
        *,
        store: ChatStore | None = None,
        selector: ContextSelector | None = None,
        tools: ToolRuntime | None = None,
        providers: ProviderPool | None = None,
        elicitation: ElicitationHandler | None = None,
        sign_in: SignInHandler | None = None,
        overflow_fixes: OverflowFixes = DEFAULT_OVERFLOW_FIXES,
    ) -> None:
        """``elicitation`` answers a server's request for the user's input (declined without it);
        ``sign_in`` shows an OAuth server's sign-in URL (without it such a server asks to sign in again);
        ``overflow_fixes`` words what to take out of a chat whose request cannot fit, as the front end does it."""
        self.agent = agent
        self.overflow_fixes = overflow_fixes
        self.store = store or ChatStore()
        try:
            self.store.recover_interrupted()
        except UserDataError as error:
            # Chats can still be read and started; the same error meets the first save that fails.
            logger.warning("could not mark interrupted replies: %s", error)
        self.selector = selector or ContextSelector()
        # What the user taught selection by adding and removing items, kept in the same database.
        self.learned = LearnedSelections(self.store.path)
        self.selector.learned = self.learned
        # Memories live in the chat database file and share the selector's embedding model.
        self.memories = MemoryService(self.store.path, self.selector)
        self.mcp: McpManager | None = None
        # The folder's servers start only once the user trusts what they run (server_trust).
        self.trust = TrustGate(agent.root)
        # The servers' sampling requests reach the chat whose tool call is running on them.
        self.sampling = SamplingRouter()
        servers = agent_servers(agent)  # with the skills built-in when the agent has skills
        if tools is None and servers:
            from agent_core.mcp import McpManager
            from agent_core.mcp.roots import agent_roots

            self.mcp = McpManager(
                servers,
                references_source=lambda: self.agent.references,
                memories_source=lambda: self.memories.book_for(self.agent),
                skills_source=lambda: self.agent.skills,
                skill_ranker=skill_ranker(self.selector),
                variables=variables_for(agent),
                elicitation=elicitation,
                sign_in=sign_in,
                roots=agent_roots(agent.config),
                sampling=self.sampling,
                trust=self.trust,
            )
        self.tools: ToolRuntime = tools or self.mcp or NoTools()
        self.providers = providers or ProviderPool(agent)

    async def start_tools(self) -> list[ServerStatus]:
        """Start the agent's MCP servers in parallel; returns when each is ready or has failed."""
        return [] if self.mcp is None else await self.mcp.start()

    @classmethod
    def open(
        cls,
        agent_dir: Path | None = None,
        *,
        elicitation: ElicitationHandler | None = None,
        sign_in: SignInHandler | None = None,
        overflow_fixes: OverflowFixes = DEFAULT_OVERFLOW_FIXES,
    ) -> Workspace:
        """The agent in ``agent_dir`` (the user's default agent when None).

        Raises:
            AgentFileError: the folder is not an agent.
        """
        agent = load_agent(agent_dir or ensure_default_agent())
        return cls(agent, elicitation=elicitation, sign_in=sign_in, overflow_fixes=overflow_fixes)

    @property
    def chat_services(self) -> ChatServices:
        """What every chat of this workspace shares (built anew: the agent's tools can change)."""
        # One tool per sub-agent and per workflow, beside the MCP ones.
        tools = WithWorkflows(WithSubagents(self.tools, lambda: self.agent), lambda: self.agent.workflows)
        return ChatServices(
            self.providers.resolve,
            self.selector,
            tools,
            memories=self.memories,
            sampling=self.sampling,
            tool_handlers=CHAT_TOOL_HANDLERS,
            commands=CHAT_COMMANDS,
            overflow_fixes=self.overflow_fixes,
        )

    def new_chat(self) -> ChatSession:
        return ChatSession.create(self.agent, self.store, self.chat_services)

    def open_chat(self, session_id: str) -> ChatSession:
        """Raises:
        ContextDeskError: no chat has that id."""
        return ChatSession.open(self.agent, self.store, session_id, self.chat_services)

    async def aclose(self) -> None:
        if self.mcp is not None:
            await self.mcp.aclose()
        await self.providers.aclose()
        self.memories.close()
        if self.selector.learned is self.learned:
            self.selector.learned = None
        self.learned.close()
        self.selector.indexer.close()
        self.store.close()
