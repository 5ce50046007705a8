"""The main window's changes to the agent's settings: the chat settings saved as the agent's
defaults, and the folder the workspace tools may read (picked, noted in a new chat's welcome)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtWidgets import QWidget

from agent_core.agent.schema import InternalServerConfig
from agent_core.agent.variables import workspace_folder_of
from desktop.bridge import CoreBridge
from desktop.controllers.agent_config import save_config_change
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.views.chat_view import ChatView
from desktop.views.file_dialogs import choose_folder
from desktop.views.welcome import examples_served_by

if TYPE_CHECKING:
    from agent_core.agent.schema import (
        AgentConfig,
        ChatDefaults,
        ContextConfig,
        MemoryConfig,
        SelectionConfig,
    )
    from agent_core.workspace import Workspace

__all__ = ["AgentSettingsActions"]


class AgentSettingsActions:
    """Part of MainWindow (a mixin): the changes it writes to agent.yaml, then reloads the agent."""

    bridge: CoreBridge
    host: WorkspaceHost

    if TYPE_CHECKING:

        @property
        def workspace(self) -> Workspace | None: ...

        def show_error(self, error: BaseException) -> None: ...

    def _save_defaults(
        self, chat: ChatDefaults, selection: SelectionConfig, context: ContextConfig, memory: MemoryConfig
    ) -> None:
        workspace = self.workspace
        if workspace is None:
            return

        def change(config: AgentConfig) -> None:
            config.chat, config.selection, config.context, config.memory = chat, selection, context, memory

        self.bridge.call(
            save_config_change,
            workspace.agent,
            change,
            on_result=lambda _: self.host.reload_agent(),
            on_error=self.show_error,
        )

    def choose_workspace_folder(self) -> None:
        """Pick the folder the built-in workspace tools may read (the welcome's button)."""
        chosen = choose_folder(cast(QWidget, self), "The folder your assistant's tools may read")
        if chosen is not None:
            self.set_workspace_folder(chosen)

    def _note_workspace_folder(self, view: ChatView) -> None:
        """Tell a new chat's welcome which examples the agent can answer, and whether the
        workspace folder its tool example reads exists."""
        workspace = self.workspace
        if workspace is None:
            return
        view.conversation.offer_examples(examples_served_by(workspace.agent))
        folder = workspace_folder_of(workspace.agent.config)
        exists = not folder or Path(folder).expanduser().is_dir()
        view.conversation.note_workspace_folder(folder, exists)

    def set_workspace_folder(self, folder: Path) -> None:
        """Write ``folder`` as the workspace server's root in agent.yaml (adding the server if the
        agent has none), then reload the agent."""
        workspace = self.workspace
        if workspace is None:
            return

        def change(config: AgentConfig) -> None:
            server = config.mcp_servers.get("workspace")
            if isinstance(server, InternalServerConfig) and server.tool == "workspace":
                config.mcp_servers["workspace"] = server.model_copy(
                    update={"options": {**server.options, "root": str(folder)}}
                )
            else:
                config.mcp_servers["workspace"] = InternalServerConfig(
                    type="internal", tool="workspace", options={"root": str(folder)}
                )

        self.bridge.call(
            save_config_change, workspace.agent, change,
            on_result=lambda _: self.host.reload_agent(), on_error=self.show_error,
        )  # fmt: skip
