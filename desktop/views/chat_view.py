"""One chat tab: the transcript, the message box with Send/Stop, and the model picker."""

from __future__ import annotations

from collections.abc import Mapping

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.items import DocumentKind
from agent_core.context.items import ItemRef
from desktop.controllers.chat_controller import ChatController
from desktop.dialogs.model_limit import ModelLimitPrompt
from desktop.dialogs.remember import RememberDialog
from desktop.models.conversation_entries import Entry
from desktop.theme import colors
from desktop.views.composer import COMMANDS, Composer
from desktop.views.conversation_view import ConversationView, readable_width
from desktop.views.model_picker import ModelPicker, model_problem, unchecked_model_note

__all__ = ["ChatView"]


class ChatView(QWidget):
    view_context_requested = Signal(object)  # Entry of the reply
    transcript_requested = Signal(str, str)  # a sub-agent's chat id, a title for it
    workspace_requested = Signal()  # the welcome's "choose the folder its tools may read"
    new_chat_requested = Signal()
    prompt_requested = Signal(str)  # the prompt's name, "" to choose one
    resource_open_requested = Signal(object)  # ResultResource: a tool result's resource to show
    resource_attach_requested = Signal(object)  # ResultResource: a tool result's resource to attach

    def __init__(self, controller: ChatController, agent_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)

        header = QHBoxLayout()
        header.setContentsMargins(16, 8, 16, 8)
        self.agent_label = QLabel(agent_name)
        self.agent_label.setStyleSheet("font-weight: 600; font-size: 14px;")
        self._known_models: set[str] = set()  # provider:model refs the providers listed
        self._unlisted: dict[str, str] = {}  # provider -> why it listed no models
        self.model_picker = ModelPicker()
        self.model_picker.activated.connect(lambda _i: self._model_chosen())
        line_edit = self.model_picker.lineEdit()
        if line_edit is not None:
            line_edit.editingFinished.connect(self._model_chosen)
        header.addWidget(self.agent_label)
        header.addStretch(1)
        header.addWidget(QLabel("Model"))
        header.addWidget(self.model_picker)
        layout.addLayout(header)

        self.conversation = ConversationView(controller.conversation, agent_name)
        self.conversation.view_context_requested.connect(self.view_context_requested)
        self.conversation.decision_made.connect(controller.decide)
        self.conversation.summary_edited.connect(controller.edit_summary)
        self.conversation.summary_undone.connect(controller.undo_compaction)
        self.conversation.memory_accepted.connect(controller.memories.accept)
        self.conversation.memory_rejected.connect(controller.memories.reject)
        self.conversation.memory_forgotten.connect(controller.memories.forget_row)
        self.conversation.remember_requested.connect(self.remember_message)
        self.conversation.subagent_cancel_requested.connect(controller.cancel_subagent)
        self.conversation.subagent_transcript_requested.connect(self.transcript_requested)
        self.conversation.regenerate_requested.connect(self.regenerate)
        self.conversation.example_chosen.connect(self._use_example)
        self.conversation.workspace_requested.connect(self.workspace_requested)
        self.conversation.edit_requested.connect(self.start_editing)
        self.conversation.version_requested.connect(self.show_version)
        self.conversation.resource_open_requested.connect(self.resource_open_requested)
        self.conversation.resource_attach_requested.connect(self.resource_attach_requested)
        self.conversation.notice_requested.connect(self.show_error)
        self.conversation.model_pick_requested.connect(self._pick_model_instead)
        if controller.apps is not None:
            self.conversation.app_slot_ready.connect(controller.apps.add_slot)
            controller.apps.message_requested.connect(self.insert_text)
        self.last_remember_dialog: RememberDialog | None = None
        self.model_limit_prompt: ModelLimitPrompt | None = None
        self.editing: int | None = None  # the id of the user's message being edited
        layout.addWidget(self.conversation, 1)

        self.compact_progress = QWidget()
        progress = QHBoxLayout(self.compact_progress)
        progress.setContentsMargins(16, 4, 16, 0)
        progress_label = QLabel("Summarizing the older turns of this chat…")
        progress_label.setStyleSheet(f"color: {colors().muted};")
        bar = QProgressBar()
        bar.setRange(0, 0)
        bar.setMaximumWidth(160)
        bar.setMaximumHeight(10)
        bar.setTextVisible(False)
        progress.addWidget(progress_label)
        progress.addWidget(bar)
        progress.addStretch(1)
        self.compact_progress.hide()
        layout.addWidget(self.compact_progress)

        self.inline_error = QLabel()
        self.inline_error.setWordWrap(True)
        self.inline_error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.inline_error.setStyleSheet(f"color: {colors().error}; padding: 4px 16px;")
        self.inline_error.hide()
        layout.addWidget(self.inline_error)

        self.edit_bar = QWidget()
        edit_row = QHBoxLayout(self.edit_bar)
        edit_row.setContentsMargins(16, 4, 16, 0)
        edit_note = QLabel(
            "Editing your message: Send makes it a new version in its place; the old one and its replies "
            "stay behind ◀ under it."
        )
        edit_note.setWordWrap(True)
        edit_note.setStyleSheet(f"color: {colors().muted};")
        self.cancel_edit_button = QPushButton("Cancel edit")
        self.cancel_edit_button.clicked.connect(self.cancel_editing)
        edit_row.addWidget(edit_note, 1)
        edit_row.addWidget(self.cancel_edit_button)
        self.edit_bar.hide()
        layout.addWidget(self.edit_bar)

        bottom = QHBoxLayout()
        bottom.setContentsMargins(16, 8, 16, 12)
        self.composer = Composer()
        self.composer.add_commands({c.word: c.summary for c in controller.session.services.commands})
        # The clicked approval button hides itself; without this, focus would jump to an unrelated widget.
        self.conversation.decision_made.connect(self._focus_composer)
        self.composer.submitted.connect(self.submit)
        self.send_button = QPushButton("Send")
        self.send_button.setDefault(True)
        self.send_button.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.send_button.clicked.connect(lambda: self.submit(self.composer.toPlainText().strip()))
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop the reply (Esc); what was written so far is kept")
        self.stop_button.clicked.connect(controller.stop)
        self.stop_button.hide()
        bottom.addWidget(self.composer, 1)
        bottom.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        bottom.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignBottom)
        # As wide as the messages above it, under them.
        composer_row = QWidget()
        composer_row.setLayout(bottom)
        composer_row.setMaximumWidth(readable_width(self.conversation) + 80)
        centred = QHBoxLayout()
        centred.setContentsMargins(0, 0, 0, 0)
        centred.addWidget(composer_row)
        layout.addLayout(centred)

        controller.busy_changed.connect(self._on_busy)
        controller.compacting_changed.connect(self._on_compacting)
        controller.model_limit_warned.connect(self._on_model_limit)
        controller.send_failed.connect(self._on_send_failed)
        controller.error.connect(self.show_error)
        controller.settings_changed.connect(self.refresh_model)
        self.refresh_model()

    # --- model --------------------------------------------------------------------------------

    def set_models(self, models: list[str], unlisted: Mapping[str, str] | None = None) -> None:
        """The models to offer, and why each provider in ``unlisted`` gave none (its models can
        still be typed: the reply then shows what the provider says)."""
        self._known_models = set(models)
        self._unlisted = dict(unlisted or {})
        self.model_picker.set_unlisted(self._unlisted)
        current = self.controller.session.chat_settings.model
        self.model_picker.blockSignals(True)
        self.model_picker.clear()
        self.model_picker.addItems(sorted(set(models) | {current}))
        self.model_picker.setCurrentText(current)
        self.model_picker.blockSignals(False)

    def refresh_model(self) -> None:
        current = self.controller.session.chat_settings.model
        if self.model_picker.findText(current) < 0:
            self.model_picker.addItem(current)
        self.model_picker.setCurrentText(current)

    def _model_chosen(self) -> None:
        model = self.model_picker.currentText().strip()
        if not model or model == self.controller.session.chat_settings.model:
            return
        problem = model_problem(model, ())  # only a ref that names no provider is refused
        if problem:
            # The box goes back to the model really used: it never shows one that is not.
            self.refresh_model()
            self.show_error(problem)
            return
        self.controller.override_settings(chat={"model": model})
        config = self.controller.session.agent.config
        configured = {*config.providers, config.chat.model.partition(":")[0]}
        if note := unchecked_model_note(model, self._known_models, self._unlisted, configured):
            self.show_error(note)

    # --- sending ------------------------------------------------------------------------------

    def _use_example(self, message: str) -> None:
        self.composer.setPlainText(message)
        self.composer.setFocus()

    def regenerate(self) -> None:
        """Answer the last message again (Retry / Regenerate on the newest reply)."""
        if self.controller.regenerate():
            self.inline_error.hide()
            self.conversation.scroll_to_bottom()

    def start_editing(self, entry: Entry) -> None:
        """Put one of the user's messages back in the box, to change and send in its place."""
        if entry.message_id is None:
            return
        self.editing = entry.message_id
        self.composer.setPlainText(entry.text)
        self.edit_bar.show()
        self.composer.setFocus()

    def show_version(self, message_id: int, step: int) -> None:
        """◀ / ▶ under an edited message: show its other version, with the replies it had."""
        if not self.controller.show_version(message_id, step):
            self.show_error("A reply is still running: switch versions when it is done.")

    def cancel_editing(self) -> None:
        self.editing = None
        self.composer.clear()
        self.edit_bar.hide()

    def submit(self, text: str) -> None:
        if not text:
            return
        if self.editing is not None and not text.startswith("/"):
            if self.controller.edit_and_resend(self.editing, text):
                self.editing = None
                self.edit_bar.hide()
                self.inline_error.hide()
                self.composer.clear()
                self.conversation.scroll_to_bottom()
            return
        if text.startswith("/") and self._run_command(text):
            self.composer.clear()
            return
        if self.controller.send(text):
            self.inline_error.hide()
            self.composer.clear()
            self.conversation.scroll_to_bottom()

    def _run_command(self, text: str) -> bool:
        """True when ``text`` was a command (handled or explained); False sends it as a message."""
        command, _, argument = text.partition(" ")
        argument = argument.strip()
        if command not in COMMANDS:
            return False
        if command == "/context":
            entry = self.controller.last_reply_entry()
            if entry is None:
                self.show_error("No reply in this chat has a context yet: send a message first.")
            else:
                self.view_context_requested.emit(entry)
        elif command == "/compact":
            self.compact()
        elif command in ("/ref", "/rule"):
            kind: DocumentKind = "reference" if command == "/ref" else "rule"
            agent = self.controller.session.agent
            name = argument.removeprefix("@ref:").removeprefix("@rule:")
            if not name or agent.document(kind, name) is None:
                known = ", ".join(sorted(agent.documents(kind))) or "none"
                self.show_error(f"No {kind} named '{name}'. This agent has: {known}.")
                return True
            self.controller.add_item(ItemRef(kind, name))
        elif command == "/new":
            self.new_chat_requested.emit()
        elif command == "/prompt":
            self.prompt_requested.emit(argument)
        elif command == "/remember":
            if not argument:
                self.show_error("Write what to remember after it: /remember TEXT.")
                return True
            self.controller.memories.remember_typed(argument)
        return True

    def compact(self) -> None:
        """Summarize the older turns now; explained inline when a reply is still running."""
        if not self.controller.compact():
            self.show_error("Wait for the reply to finish (or stop it) before compacting.")
        else:
            self.inline_error.hide()

    def _on_model_limit(self, task: str, warning: str) -> None:
        """Before a compaction on a limited model: run anyway, or pick another model."""
        if task != "compaction":
            return
        prompt = ModelLimitPrompt(warning, self)
        prompt.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        prompt.run_anyway.connect(lambda: self.controller.compact(run_anyway=True))
        prompt.pick_another.connect(self._pick_another_model)
        self.model_limit_prompt = prompt
        prompt.open()

    def _pick_model_instead(self) -> None:
        self.show_error("Not run: choose another model in the box above, then ask again.")
        self.model_picker.setFocus()

    def _pick_another_model(self) -> None:
        self.show_error("Not compacted: choose another model in the box above, then /compact again.")
        self.model_picker.setFocus()

    def _on_compacting(self, compacting: bool) -> None:
        self.compact_progress.setVisible(compacting)
        self.send_button.setEnabled(not compacting)

    def remember_message(self, entry: Entry) -> None:
        """ "Remember this" on a message: the user trims it to the fact, then it is saved."""
        if entry.message_id is None:
            return
        dialog = RememberDialog(entry.text, from_assistant=entry.kind == "assistant", parent=self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        message_id = entry.message_id
        dialog.remember.connect(lambda text: self.controller.memories.remember_message(message_id, text))
        self.last_remember_dialog = dialog
        dialog.open()

    def show_error(self, text: str) -> None:
        self.inline_error.setText(text)
        self.inline_error.show()

    def _on_send_failed(self, text: str, reason: str) -> None:
        if not self.composer.toPlainText().strip():
            self.composer.setPlainText(text)
        self.show_error(f"{reason} Your message is back in the box.")

    def _on_busy(self, busy: bool) -> None:
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)

    def insert_text(self, text: str) -> None:
        """Put ``text`` into the message box at the cursor, to be read and sent by the user."""
        self.composer.insertPlainText(text)
        self.focus_input()

    def focus_input(self) -> None:
        self.composer.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def _focus_composer(self, *_: object) -> None:
        self.composer.setFocus(Qt.FocusReason.OtherFocusReason)
