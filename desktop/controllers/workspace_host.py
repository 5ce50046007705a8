"""The open agent's Workspace, owned by the core thread, and what the GUI needs to know about it.

The host opens an agent off the GUI thread, starts its MCP servers in the background (their status
arrives as a signal), reloads the agent when its files change, and closes it all at exit.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from agent_core.agent.agent import Agent
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import ensure_default_agent
from agent_core.agent.server_trust import TrustGate
from agent_core.agent.variables import variables_for, workspace_root_of
from agent_core.budget.overflow_advice import OverflowFixes
from agent_core.context.skill_search import skill_ranker
from agent_core.context.skill_server import agent_servers
from agent_core.errors import ContextDeskError
from agent_core.tools.runtime import NoTools, ToolDescriptor, ToolOutcome, ToolRuntime
from agent_core.workflows.server_trust import servers_to_trust
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.elicitation import ElicitationAsker
from desktop.controllers.input_values import InputAsker
from desktop.controllers.server_trust import TrustAsker
from desktop.controllers.sign_in import SignInAsker

if TYPE_CHECKING:
    # Imported on the core thread when an agent opens: the chat engine and the MCP SDK take
    # most of a second to import, which must not delay the first window.
    from agent_core.workspace import Workspace

__all__ = [
    "DESKTOP_OVERFLOW_FIXES",
    "SwitchableTools",
    "WorkspaceFactory",
    "WorkspaceHost",
    "desktop_workspace",
]

#: What to take out of a chat whose request cannot fit, where the window lets you do it.
DESKTOP_OVERFLOW_FIXES = OverflowFixes(
    rules_and_references=(
        "remove some of the chat's rules and references in the Context panel, or shorten them "
        "(always-on ones are set in the agent)"
    ),
    skills=(
        "remove skill '{name}' from the chat in the Context panel's Skills section (Remove from chat); "
        "if it is always on, set its Included to Agent there to keep it out of new chats"
    ),
)

logger = logging.getLogger(__name__)

# Builds the Workspace for a loaded agent (tests pass one with a scripted provider pool).
WorkspaceFactory = Callable[[Agent, ToolRuntime], "Workspace"]


class SwitchableTools:
    """The ToolRuntime every chat holds; the MCP manager behind it is replaced when servers change."""

    def __init__(self) -> None:
        self.runtime: Any = NoTools()

    def tools(self) -> Sequence[ToolDescriptor]:
        return self.runtime.tools()  # type: ignore[no-any-return]

    async def call_tool(self, server: str, tool: str, arguments: Mapping[str, Any]) -> ToolOutcome:
        return await self.runtime.call_tool(server, tool, arguments)  # type: ignore[no-any-return]

    # Attached resources kept current (agent_core.chat.attached_updates): passed on to the manager.

    def resource_version(self, server: str, uri: str) -> int | None:
        version = getattr(self.runtime, "resource_version", None)
        return version(server, uri) if version is not None else None

    async def subscribe_resource(self, server: str, uri: str) -> bool:
        subscribe = getattr(self.runtime, "subscribe_resource", None)
        return bool(await subscribe(server, uri)) if subscribe is not None else False

    async def read_resource(self, server: str, uri: str) -> Any:
        return await self.runtime.read_resource(server, uri)


def desktop_workspace(agent: Agent, tools: ToolRuntime) -> Workspace:
    """The workspace the app runs an agent in: its chats word their fixes for the window."""
    from agent_core.workspace import Workspace

    return Workspace(agent, tools=tools, overflow_fixes=DESKTOP_OVERFLOW_FIXES)


def preload_core() -> None:
    """Import the chat engine; run on the core thread while the GUI thread builds the window."""
    importlib.import_module("agent_core.workspace")


class WorkspaceHost(QObject):
    opened = Signal(object)  # Workspace
    open_failed = Signal(str)
    agent_changed = Signal(object)  # Agent, after a reload
    servers_changed = Signal(object)  # list[ServerStatus]

    def __init__(
        self, bridge: CoreBridge, factory: WorkspaceFactory | None = None, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self._factory = factory or desktop_workspace
        self.workspace: Workspace | None = None
        self.tools = SwitchableTools()
        # A tool server whose settings use ${input:id} asks the user once (the keyring keeps it).
        self.input_asker = InputAsker(bridge)
        # A tool server's form or link (MCP elicitation) is shown in a dialog the core awaits.
        self.elicitation_asker = ElicitationAsker(bridge)
        self.sign_in_asker = SignInAsker(bridge)
        # A server of the agent's folder starts only once the user trusts what it runs.
        self.trust_asker = TrustAsker(bridge)
        self.mcp: Any = None  # McpManager when the mcp extra is installed
        self._generation = Generation()
        self._reload_generation = Generation()
        self._server_start: asyncio.Task[None] | None = None

    @property
    def agent(self) -> Agent | None:
        return None if self.workspace is None else self.workspace.agent

    # --- opening ------------------------------------------------------------------------------

    def open(self, agent_dir: Path | None = None) -> None:
        """Open an agent (the user's default when None); ``opened`` or ``open_failed`` follows."""
        token = self._generation.next()

        def done(workspace: Workspace) -> None:
            if not self._generation.is_current(token):
                self.bridge.submit(self._close(workspace, None))
                return
            self.workspace = workspace
            self.opened.emit(workspace)

        def failed(error: BaseException) -> None:
            if self._generation.is_current(token):
                self.open_failed.emit(_describe(error))

        self.bridge.submit(self._open(agent_dir), done, failed)

    async def _open(self, agent_dir: Path | None) -> Workspace:
        previous, self.workspace = self.workspace, None
        if previous is not None:
            await self._close(previous, self.mcp)
            self.mcp = None
        path = agent_dir if agent_dir is not None else await asyncio.to_thread(ensure_default_agent)
        agent = await asyncio.to_thread(load_agent, path)
        self.tools = SwitchableTools()
        workspace = await asyncio.to_thread(self._factory, agent, self.tools)
        # Servers start in the background: chats do not wait for them (their always-mode tools
        # join each chat as they become ready).
        task = asyncio.get_running_loop().create_task(self._start_servers(workspace))
        self._server_start = task
        return workspace

    async def _start_servers(self, workspace: Workspace) -> None:
        servers = agent_servers(workspace.agent)  # with the skills built-in when the agent has skills
        try:
            mcp = await asyncio.to_thread(importlib.import_module, "agent_core.mcp")
        except ImportError:
            logger.warning("the mcp extra is not installed: tools are off")
            return
        if self.workspace is not None and self.workspace is not workspace:
            return
        manager = mcp.McpManager(
            servers,
            references_source=lambda: workspace.agent.references,
            memories_source=lambda: workspace.memories.book_for(workspace.agent),
            skills_source=lambda: workspace.agent.skills,
            skill_ranker=skill_ranker(workspace.selector),
            on_status=lambda _status: self._report_servers(),
            variables=variables_for(workspace.agent, ask_input=self.input_asker),
            elicitation=self.elicitation_asker,
            sign_in=self.sign_in_asker,
            roots=mcp.agent_roots(workspace.agent.config),
            sampling=workspace.sampling,
            trust=(gate := TrustGate(workspace.agent.root)),
        )
        self.mcp = manager
        self.tools.runtime = manager
        self._report_servers()
        # The user is asked about the servers not trusted yet while the trusted ones start.
        self.trust_asker.ask_for(gate, manager, servers_to_trust(workspace.agent))
        await manager.start()
        self._report_servers()

    def ask_trust(self) -> None:
        """Ask again about the servers not trusted (a server declined before included)."""
        manager, workspace = self.mcp, self.workspace
        if manager is not None and workspace is not None:
            gate, servers = TrustGate(workspace.agent.root), servers_to_trust(workspace.agent)
            self.bridge.submit(self.trust_asker.ask_again(gate, manager, servers))

    def _report_servers(self) -> None:
        manager = self.mcp
        if manager is not None:
            self.bridge.emit_to_gui(self.servers_changed.emit, manager.statuses())

    # --- reloading ----------------------------------------------------------------------------

    def reload_agent(self) -> None:
        """Read the agent folder again (after an edit here or elsewhere); ``agent_changed`` follows."""
        workspace = self.workspace
        if workspace is None:
            return
        token = self._reload_generation.next()

        def done(agent: Agent) -> None:
            if self._reload_generation.is_current(token) and self.workspace is workspace:
                self.agent_changed.emit(agent)

        def failed(error: BaseException) -> None:
            self.open_failed.emit(_describe(error))

        self.bridge.submit(self._reload(workspace), done, failed)

    async def _reload(self, workspace: Workspace) -> Agent:
        old = workspace.agent
        agent = await asyncio.to_thread(load_agent, old.root)
        workspace.agent = agent
        workspace.providers.agent = agent
        if agent.config.providers != old.config.providers:
            # New keys or URLs: the pool creates its providers again on next use.
            await workspace.providers.aclose()
        if agent_servers(agent) != agent_servers(old) and not await self._update_servers(old, agent):
            previous = self.mcp
            await self._start_servers(workspace)
            if previous is not None:
                await previous.aclose()
        return agent

    async def _update_servers(self, old: Agent, new: Agent) -> bool:
        """Apply a change of built-in servers only (a new workspace folder) without restarting the
        others, which are told their new roots; False when the change needs a full restart."""
        manager, before, after = self.mcp, agent_servers(old), agent_servers(new)
        if manager is None or before.keys() != after.keys():
            return False
        changed = [name for name in after if after[name] != before[name]]
        if not all(after[name].type == "internal" and before[name].type == "internal" for name in changed):
            return False
        if workspace_root_of(old) != workspace_root_of(new) and any(
            "${workspace" in after[name].model_dump_json() for name in after if name not in changed
        ):
            return False  # a server started with the old ${workspaceFolder} must start again
        for name in changed:
            await manager.replace(name, after[name])
        mcp = importlib.import_module("agent_core.mcp")
        await manager.set_roots(mcp.agent_roots(new.config))
        self._report_servers()
        return True

    # --- closing ------------------------------------------------------------------------------

    async def _close(self, workspace: Workspace, mcp: Any) -> None:
        self.trust_asker.cancel()  # a question still open is about servers that are going away
        starting, self._server_start = self._server_start, None
        if starting is not None and not starting.done():
            starting.cancel()
            try:
                await starting
            except (asyncio.CancelledError, ContextDeskError, OSError) as error:
                logger.info("server start stopped: %r", error)
        mcp = mcp or self.mcp
        if mcp is not None:
            try:
                await asyncio.wait_for(mcp.aclose(), 10)
            except (TimeoutError, ContextDeskError, OSError) as error:
                logger.warning("MCP servers did not stop cleanly: %s", error)
        await workspace.aclose()

    async def aclose(self) -> None:
        """Stop servers and providers and close the store; awaited at exit."""
        self._generation.next()
        if self.workspace is not None:
            await self._close(self.workspace, self.mcp)
            self.workspace = None
            self.mcp = None


def _describe(error: BaseException) -> str:
    if isinstance(error, ContextDeskError):
        return str(error)
    return f"Something went wrong opening the agent ({error!r}). Check the folder and try again."
