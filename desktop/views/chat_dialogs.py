"""The dialogs the main window opens for the current chat: View Context, What if…, attaching a
tool server's resource and inserting one of its prompts.

Each is opened window-modal and deletes itself on close; the newest of each kind is kept in a
``last_*_dialog`` attribute so tests (and people debugging) can reach it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt

from desktop.controllers.chat_controller import ChatController

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMessageBox, QWidget

    from agent_core.context.items import RequestContext
    from desktop.dialogs.attach_resource import AttachResourceDialog
    from desktop.dialogs.exact_request import ExactRequestDialog
    from desktop.dialogs.help import HelpDialog
    from desktop.dialogs.insert_prompt import InsertPromptDialog
    from desktop.dialogs.learned import LearnedDialog
    from desktop.dialogs.preferences import PreferencesDialog
    from desktop.dialogs.resource_preview import ResourcePreviewDialog
    from desktop.dialogs.subagent_transcript import SubagentTranscriptDialog
    from desktop.dialogs.view_context import ViewContextDialog
    from desktop.dialogs.what_if import WhatIfDialog
    from desktop.dialogs.workflow_run import WorkflowRunDialog
    from desktop.views.main_window import MainWindow
    from desktop.views.rich_result import ResultResource

__all__ = ["ChatDialogs"]


class ChatDialogs:
    def __init__(self, window: MainWindow) -> None:
        self.window = window
        self.last_context_dialog: ViewContextDialog | None = None
        self.last_what_if_dialog: WhatIfDialog | None = None
        self.last_preview_dialog: ResourcePreviewDialog | None = None
        self.last_exact_request_dialog: ExactRequestDialog | None = None
        self.last_resource_dialog: AttachResourceDialog | None = None
        self.last_prompt_dialog: InsertPromptDialog | None = None
        self.last_transcript_dialog: SubagentTranscriptDialog | None = None
        self.last_workflow_run_dialog: WorkflowRunDialog | None = None
        self.last_learned_dialog: LearnedDialog | None = None
        self.last_help_dialog: HelpDialog | None = None
        self.last_preferences_dialog: PreferencesDialog | None = None
        self.last_about_box: QMessageBox | None = None

    # --- View Context and What if… --------------------------------------------------------------

    def show_context(
        self, context: RequestContext, message_id: int | None = None, controller: ChatController | None = None
    ) -> None:
        """View Context of one reply; with its message id and chat, it offers What if…."""
        from desktop.dialogs.subagent_section import SubagentHooks
        from desktop.dialogs.view_context import ViewContextDialog

        window = self.window
        agent = window.workspace.agent if window.workspace else None
        on_what_if: Callable[[], None] | None = None
        on_exact_request: Callable[[], None] | None = None
        if message_id is not None and controller is not None:
            chat, reply = controller, message_id

            def what_if() -> None:
                dialog.accept()
                self.show_what_if(chat, reply, context)

            def exact_request() -> None:
                self.show_exact_request(chat, reply, dialog)

            on_what_if, on_exact_request = what_if, exact_request
        calls = (
            controller.conversation.tool_calls_of_reply(message_id)
            if controller is not None and message_id is not None
            else []
        )
        attached = controller.session.attached_resources() if controller is not None else None
        memories = controller.session.memory_texts(context) if controller is not None else None
        dialog = ViewContextDialog(
            context,
            agent,
            window.host.tools.tools(),
            window,
            on_what_if=on_what_if,
            on_exact_request=on_exact_request,
            attached=attached,
            memories=memories,
            memory_actions=controller.memories if controller is not None else None,
            subagents=SubagentHooks(
                controller.subagent_runs if controller is not None else None,
                controller.cancel_subagent if controller is not None else (lambda _call: None),
                self.show_transcript,
            ),
            open_workflow_run=self.show_workflow_run,
            calls=calls,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_context_dialog = dialog
        dialog.open()

    def show_exact_request(self, controller: ChatController, message_id: int, parent: QWidget) -> None:
        """What the reply ``message_id`` sent, read from the chat's store, over ``parent``."""
        from desktop.dialogs.exact_request import ExactRequestDialog

        session = controller.session
        dialog = ExactRequestDialog(controller.bridge, lambda: session.sent_request(message_id), parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_exact_request_dialog = dialog
        dialog.open()

    def view_last_context(self) -> None:
        """View Context of the current chat's newest reply (or say why there is none)."""
        controller = self.window.current_controller()
        entry = controller.last_reply_entry() if controller else None
        if entry is not None and entry.context is not None:
            self.show_context(entry.context, entry.message_id, controller)
        elif (view := self.window.current_view()) is not None:
            view.show_error("No reply in this chat has a context yet: send a message first.")

    def show_what_if(self, controller: ChatController, message_id: int, context: RequestContext) -> None:
        from desktop.dialogs.what_if import WhatIfDialog

        dialog = WhatIfDialog(controller, message_id, context, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.resend_requested.connect(
            lambda selection, include, exclude, text, c=controller: self._resend(
                c, message_id, selection, include, exclude, text
            )
        )
        self.last_what_if_dialog = dialog
        dialog.open()

    def _resend(
        self,
        controller: ChatController,
        message_id: int,
        selection: dict[str, Any],
        include: list[Any],
        exclude: list[Any],
        text: str,
    ) -> None:
        """Apply the what-if to the chat, then answer the reply's question again, in place (the
        question is not sent a second time; while a reply is still running, the chat says so)."""

        def send() -> None:
            view = self.window.views.get(controller.id)
            if view is None:
                return
            if not controller.answer_again(message_id, text):
                view.show_error("A reply is still running: press Resend again when it is done.")
            else:
                view.conversation.scroll_to_bottom()

        controller.apply_what_if(selection, include, exclude, send)

    # --- sub-agents ------------------------------------------------------------------------------

    def show_preferences(self) -> None:
        """The app's look, how new servers' tools join chats, and the open agent's system prompt
        and workspace folder."""
        from agent_core.agent.variables import workspace_folder_of
        from desktop.controllers.agent_config import save_config_change
        from desktop.dialogs.preferences import PreferencesDialog

        window = self.window
        workspace = window.workspace
        prompt = workspace.agent.config.system_prompt if workspace is not None else None

        def save_prompt(text: str) -> None:
            if workspace is None:
                return

            def change(config: Any) -> None:
                config.system_prompt = text

            window.bridge.call(
                save_config_change, workspace.agent, change,
                on_result=lambda _: window.host.reload_agent(), on_error=window.show_error,
            )  # fmt: skip

        dialog = PreferencesDialog(
            prompt,
            save_prompt,
            window,
            workspace_folder=workspace_folder_of(workspace.agent.config) if workspace is not None else None,
            save_workspace_folder=window.set_workspace_folder,
        )
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_preferences_dialog = dialog
        dialog.open()

    def show_help(self) -> None:
        """The documentation that ships with the app, read inside it (offline)."""
        from desktop.dialogs.help import HelpDialog

        dialog = HelpDialog(self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_help_dialog = dialog
        dialog.show()

    def show_about(self) -> None:
        from desktop.dialogs.help import show_about

        self.last_about_box = show_about(self.window)

    def show_learned(self) -> None:
        """What selection learned from the user's corrections for this agent, to forget."""
        from desktop.dialogs.learned import LearnedDialog

        window = self.window
        workspace = window.workspace
        if workspace is None:
            return
        dialog = LearnedDialog(window.bridge, workspace.learned, str(workspace.agent.root), window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_learned_dialog = dialog
        dialog.open()

    def show_workflow_run(self, run_id: str, workflow: str) -> None:
        """The run view of a workflow a reply ran (/run, or the model's call of its tool)."""
        self.last_workflow_run_dialog = self.window.workflows_panel().run_tab.open_stored_run(
            run_id, workflow
        )

    def show_transcript(self, session_id: str, title: str) -> None:
        """A sub-agent's own chat, read-only (its replies' View Context, its sub-agents' chats)."""
        from desktop.dialogs.subagent_transcript import SubagentTranscriptDialog

        window = self.window
        if window.workspace is None:
            return
        dialog = SubagentTranscriptDialog(window.bridge, window.workspace.store, session_id, title, window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.view_context_requested.connect(lambda entry: self.show_context(entry.context))
        dialog.transcript_requested.connect(self.show_transcript)
        self.last_transcript_dialog = dialog
        dialog.show()

    # --- MCP resources and prompts -------------------------------------------------------------

    def attach_resource(self) -> None:
        """Choose a resource of a tool server and attach it to the current chat as a reference."""
        from desktop.dialogs.attach_resource import AttachResourceDialog

        controller, manager = self.window.current_controller(), self._tool_servers()
        if controller is None or manager is None:
            return
        dialog = AttachResourceDialog(self.window.bridge, manager, controller, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.last_resource_dialog = dialog
        dialog.open()

    def open_result_resource(self, resource: ResultResource, controller: ChatController) -> None:
        """Show the text of a resource in a tool result: an embedded one as it came, a linked one
        read from the server that sent the link."""
        part = resource.part
        if part.type == "resource":
            self._preview(resource, part.text if part.text is not None else part.describe(), controller)
            return
        manager = self._tool_servers()
        if manager is None or part.uri is None:
            return
        view = self.window.current_view()
        self.window.bridge.submit(
            manager.read_resource(resource.server, part.uri),
            on_result=lambda content: self._preview(
                resource, content.text or "(no text: the resource is binary or empty)", controller
            ),
            on_error=lambda error: view.show_error(str(error)) if view is not None else None,
        )

    def _preview(self, resource: ResultResource, text: str, controller: ChatController) -> None:
        from desktop.dialogs.resource_preview import ResourcePreviewDialog

        dialog = ResourcePreviewDialog(resource.part.uri or "resource", text, self.window)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.attach_requested.connect(lambda: self.attach_result_resource(resource, controller))
        self.last_preview_dialog = dialog
        dialog.open()

    def attach_result_resource(self, resource: ResultResource, controller: ChatController) -> None:
        """Attach a tool result's resource to the chat as a reference: an embedded one's text as
        it came, a linked one as its server reads it now."""
        from agent_core.mcp.types import ResourceInfo

        part, view = resource.part, self.window.current_view()

        def failed(error: BaseException) -> None:
            if view is not None:
                view.show_error(str(error))

        if part.uri is None:
            return
        if part.type == "resource":
            if not (part.text or "").strip():
                failed(ValueError(f"{part.uri} has no text to attach (it is empty or binary)."))
                return
            controller.attach_resource_text(resource.server, part.uri, part.text or "", on_error=failed)
            return
        manager = self._tool_servers()
        if manager is None:
            return
        info = ResourceInfo(
            server=resource.server,
            uri=part.uri,
            name=part.text or part.uri,
            description=part.description or "",
            mime_type=part.mime_type,
        )
        controller.attach_resource(manager, info, on_done=lambda _ref: None, on_error=failed)

    def insert_prompt(self, name: str = "") -> None:
        """Choose a prompt of a tool server (``name`` preselects one) and put it in the message box."""
        from desktop.dialogs.insert_prompt import InsertPromptDialog

        view, manager = self.window.current_view(), self._tool_servers()
        if view is None or manager is None:
            return
        dialog = InsertPromptDialog(self.window.bridge, manager, self.window, preselect=name)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.text_ready.connect(view.insert_text)
        self.last_prompt_dialog = dialog
        dialog.open()

    def _tool_servers(self) -> Any:
        """The agent's McpManager, or None (explained in the chat) when tools are off."""
        host = self.window.host
        if host.mcp is None and (view := self.window.current_view()) is not None:
            view.show_error(
                "Tool servers are not running: install the 'mcp' extra, or wait for the agent to open."
            )
        return host.mcp
