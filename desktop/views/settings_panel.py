"""The current chat's settings (model, sampling, turns, selection, context window, memories), with
"Save as agent default"."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.schema import ChatDefaults, ContextConfig, MemoryConfig, SelectionConfig
from desktop.controllers.chat_controller import ChatController
from desktop.theme import colors

__all__ = ["SettingsPanel"]

APPLY_DELAY_MS = 400
FROM_MODEL = 0  # the window spin box's "from the model" value
FROM_MAX_OUTPUT = -1  # the reply reserve spin box's "= max output tokens" value
MIN_WINDOW = 512


def _double(minimum: float, maximum: float, step: float, decimals: int = 2) -> QDoubleSpinBox:
    box = QDoubleSpinBox()
    box.setRange(minimum, maximum)
    box.setSingleStep(step)
    box.setDecimals(decimals)
    return box


def _int(minimum: int, maximum: int) -> QSpinBox:
    box = QSpinBox()
    box.setRange(minimum, maximum)
    return box


class SettingsPanel(QWidget):
    # ChatDefaults, SelectionConfig, ContextConfig, MemoryConfig
    save_default_requested = Signal(object, object, object, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        outer.addWidget(scroll)
        content = QWidget()
        scroll.setWidget(content)
        layout = QVBoxLayout(content)
        layout.setContentsMargins(8, 8, 8, 8)
        self.agent_label = QLabel()
        self.agent_label.setStyleSheet("font-weight: 600;")
        self.agent_label.setWordWrap(True)
        layout.addWidget(self.agent_label)

        chat_box = QGroupBox("This chat")
        chat = QFormLayout(chat_box)
        self.temperature = _double(0.0, 2.0, 0.1)
        self.top_p = _double(0.01, 1.0, 0.05)
        self.max_output_tokens = _int(1, 1_000_000)
        self.max_chat_turns = _int(1, 200)
        self.reply_timeout = _int(1, 86_400)
        self.reply_timeout.setSuffix(" s")
        self.reply_timeout.setToolTip(
            "A model reply still streaming after this long is stopped; its text is kept"
        )
        self.tool_permission = QComboBox()
        for value, label in (
            ("tool", "Each tool's setting"),
            ("ask", "Ask every time"),
            ("allow", "Never ask"),
        ):
            self.tool_permission.addItem(label, value)
        chat.addRow("Temperature", self.temperature)
        chat.addRow("Top P", self.top_p)
        chat.addRow("Max output tokens", self.max_output_tokens)
        chat.addRow("Max turns", self.max_chat_turns)
        chat.addRow("Reply timeout", self.reply_timeout)
        chat.addRow("Tool permission", self.tool_permission)
        layout.addWidget(chat_box)

        selection_box = QGroupBox("Selection of agent items")
        selection = QFormLayout(selection_box)
        self.top_k = _int(1, 1000)
        self.top_n = _int(0, 100)
        self.include_score = _double(0.0, 1.0, 0.05)
        self.top_k.setToolTip("Chunk matches considered")
        self.top_n.setToolTip("Items chosen, at most, below the include score")
        self.include_score.setToolTip("Items at or above this score are always chosen")
        selection.addRow("Top K", self.top_k)
        selection.addRow("Top N", self.top_n)
        self.strategy = QComboBox()
        for value, label in (("hybrid", "Hybrid"), ("anchor", "Anchor")):
            self.strategy.addItem(label, value)
        self.strategy.setToolTip("Hybrid: dense + lexical with a score floor; Anchor: TsAgent's ranking")
        selection.addRow("Include score", self.include_score)
        selection.addRow("Strategy", self.strategy)
        self.tool_route_score = _double(0.0, 2.0, 0.05)
        self.tool_route_score.setToolTip(
            "For models that cannot choose tools themselves (local models): call the tool that best matches "
            "a message when it scores at least this. 1.5 or more: never."
        )
        selection.addRow("Tool routing score", self.tool_route_score)
        layout.addWidget(selection_box)

        context_box = QGroupBox("Context window")
        context = QFormLayout(context_box)
        self.window_tokens = _int(FROM_MODEL, 10_000_000)
        self.window_tokens.setSpecialValueText("From the model")
        self.window_tokens.setSingleStep(1024)
        self.window_tokens.setToolTip(
            f"Tokens the model reads at most (at least {MIN_WINDOW}); 0: what the model has"
        )
        self.reply_reserve = _int(FROM_MAX_OUTPUT, 1_000_000)
        self.reply_reserve.setSpecialValueText("Max output tokens")
        self.reply_reserve.setToolTip("Tokens kept free for the reply")
        self.keep_tool_rounds = _int(0, 100)
        self.keep_tool_rounds.setToolTip("The latest tool rounds whose results are sent in full")
        self.max_tool_result_tokens = _int(100, 1_000_000)
        self.max_tool_result_tokens.setToolTip("A longer tool result is cut, with a marker")
        self.compact_at = _double(0.05, 1.0, 0.05)
        self.compact_at.setToolTip("Compact when the history passes this share of the room")
        self.keep_recent_turns = _int(1, 100)
        self.keep_recent_turns.setToolTip("Turns compaction keeps word for word")
        self.auto_compact = QCheckBox("Compact automatically")
        context.addRow("Window", self.window_tokens)
        context.addRow("Reply reserve", self.reply_reserve)
        context.addRow("Keep tool rounds", self.keep_tool_rounds)
        context.addRow("Max tool result", self.max_tool_result_tokens)
        context.addRow("Compact at", self.compact_at)
        context.addRow("Keep recent turns", self.keep_recent_turns)
        context.addRow(self.auto_compact)
        layout.addWidget(context_box)

        memory_box = QGroupBox("Memories")
        memory = QFormLayout(memory_box)
        self.memory_enabled = QCheckBox("Use memories in this chat")
        self.memory_enabled.setToolTip("Recall memories for each message, and offer to save new ones")
        self.extraction = QComboBox()
        for value, label in (
            ("off", "Only when I ask"),
            ("rules", "From my messages (offline)"),
            ("model", "From my messages (the chat's model)"),
        ):
            self.extraction.addItem(label, value)
        self.extraction.setToolTip(
            "Propose facts you state in your messages (never the assistant's). 'Only when I ask': "
            "/remember, Remember…, or 'remember that …'"
        )
        self.auto_accept = QCheckBox("Save proposals without asking")
        self.memory_tokens = _int(0, 20_000)
        self.memory_tokens.setToolTip("Recalled memories per message, at most (0: none)")
        self.min_relevance = _double(0.0, 1.0, 0.05)
        self.min_relevance.setToolTip("How well a memory must match the message to be recalled")
        memory.addRow(self.memory_enabled)
        memory.addRow("Propose", self.extraction)
        memory.addRow(self.auto_accept)
        memory.addRow("Budget (tokens)", self.memory_tokens)
        memory.addRow("Min relevance", self.min_relevance)
        layout.addWidget(memory_box)

        for combo in (self.tool_permission, self.strategy, self.extraction):
            # The side panel is about 340 px wide: a long choice is cut short in the box (the open
            # list shows it whole) rather than widening the form past the panel.
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(12)
        self.save_default = QPushButton("Save as agent default")
        self.save_default.setToolTip("Write these settings to agent.yaml: new chats start with them")
        self.save_default.clicked.connect(self._save_default)
        layout.addWidget(self.save_default)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(self.note)
        layout.addStretch(1)

        self.controller: ChatController | None = None
        self._loading = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(APPLY_DELAY_MS)
        self._timer.timeout.connect(self.apply)
        for box in (
            self.temperature,
            self.top_p,
            self.include_score,
            self.tool_route_score,
            self.min_relevance,
        ):
            box.valueChanged.connect(self._changed)
        for ibox in (
            self.max_output_tokens,
            self.max_chat_turns,
            self.reply_timeout,
            self.top_k,
            self.top_n,
            self.window_tokens,
            self.reply_reserve,
            self.keep_tool_rounds,
            self.max_tool_result_tokens,
            self.keep_recent_turns,
            self.memory_tokens,
        ):
            ibox.valueChanged.connect(self._changed)
        self.compact_at.valueChanged.connect(self._changed)
        self.tool_permission.currentIndexChanged.connect(self._changed)
        self.strategy.currentIndexChanged.connect(self._changed)
        self.auto_compact.toggled.connect(self._changed)
        self.memory_enabled.toggled.connect(self._changed)
        self.auto_accept.toggled.connect(self._changed)
        self.extraction.currentIndexChanged.connect(self._changed)

    def bind(self, controller: ChatController | None) -> None:
        if self._timer.isActive():
            self._timer.stop()
            self.apply()
        if self.controller is not None:
            self.controller.settings_changed.disconnect(self.load)
        self.controller = controller
        if controller is not None:
            controller.settings_changed.connect(self.load)
        self.load()

    def load(self) -> None:
        controller = self.controller
        self.setEnabled(controller is not None)
        if controller is None:
            return
        session = controller.session
        settings, selection = session.chat_settings, session.selection_settings
        self._loading = True
        self.agent_label.setText(f"{session.agent.name}  ·  {settings.model}")
        self.temperature.setValue(settings.temperature)
        self.top_p.setValue(settings.top_p)
        self.max_output_tokens.setValue(settings.max_output_tokens)
        self.max_chat_turns.setValue(settings.max_chat_turns)
        self.reply_timeout.setValue(round(settings.reply_timeout_seconds))
        self.tool_permission.setCurrentIndex(
            max(0, self.tool_permission.findData(settings.tool_permission.value))
        )
        self.top_k.setValue(selection.top_k)
        self.top_n.setValue(selection.top_n)
        self.include_score.setValue(selection.include_score)
        self.strategy.setCurrentIndex(max(0, self.strategy.findData(selection.strategy)))
        self.tool_route_score.setValue(selection.tool_route_score)
        limits = session.context_settings
        self.window_tokens.setValue(limits.window or FROM_MODEL)
        self.reply_reserve.setValue(FROM_MAX_OUTPUT if limits.reply_reserve is None else limits.reply_reserve)
        self.keep_tool_rounds.setValue(limits.keep_tool_rounds)
        self.max_tool_result_tokens.setValue(limits.max_tool_result_tokens)
        self.compact_at.setValue(limits.compact_at)
        self.keep_recent_turns.setValue(limits.keep_recent_turns)
        self.auto_compact.setChecked(limits.auto_compact)
        memories = session.settings.memory
        self.memory_enabled.setChecked(memories.enabled)
        self.extraction.setCurrentIndex(max(0, self.extraction.findData(memories.extraction)))
        self.auto_accept.setChecked(memories.auto_accept)
        self.memory_tokens.setValue(memories.max_tokens)
        self.min_relevance.setValue(memories.min_relevance)
        self._loading = False

    def _changed(self, *_: Any) -> None:
        if not self._loading:
            self._timer.start()

    def values(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """The chat and selection settings shown (snake_case, as override_settings takes them)."""
        chat = {
            "temperature": round(self.temperature.value(), 2),
            "top_p": round(self.top_p.value(), 2),
            "max_output_tokens": self.max_output_tokens.value(),
            "max_chat_turns": self.max_chat_turns.value(),
            "reply_timeout_seconds": self.reply_timeout.value(),
            "tool_permission": self.tool_permission.currentData(),
        }
        selection = {
            "top_k": self.top_k.value(),
            "top_n": self.top_n.value(),
            "include_score": round(self.include_score.value(), 2),
            "strategy": self.strategy.currentData(),
            "tool_route_score": round(self.tool_route_score.value(), 2),
        }
        return chat, selection

    def context_values(self) -> dict[str, Any]:
        """The context-window settings shown; a window under the minimum is raised to it."""
        window = self.window_tokens.value()
        reserve = self.reply_reserve.value()
        return {
            "window": None if window == FROM_MODEL else max(MIN_WINDOW, window),
            "reply_reserve": None if reserve == FROM_MAX_OUTPUT else reserve,
            "keep_tool_rounds": self.keep_tool_rounds.value(),
            "max_tool_result_tokens": self.max_tool_result_tokens.value(),
            "compact_at": round(self.compact_at.value(), 2),
            "keep_recent_turns": self.keep_recent_turns.value(),
            "auto_compact": self.auto_compact.isChecked(),
        }

    def memory_values(self) -> dict[str, Any]:
        return {
            "enabled": self.memory_enabled.isChecked(),
            "extraction": self.extraction.currentData(),
            "auto_accept": self.auto_accept.isChecked(),
            "max_tokens": self.memory_tokens.value(),
            "min_relevance": round(self.min_relevance.value(), 2),
        }

    def apply(self) -> None:
        if self.controller is None:
            return
        chat, selection = self.values()
        self.controller.override_settings(
            chat=chat, selection=selection, context=self.context_values(), memory=self.memory_values()
        )
        self.note.setText("Applies to this chat from the next message.")

    def _save_default(self) -> None:
        if self.controller is None:
            return
        self._timer.stop()
        self.apply()
        session = self.controller.session
        chat, selection = self.values()
        defaults = ChatDefaults.model_validate({**session.chat_settings.model_dump(), **chat})
        selection_config = SelectionConfig.model_validate(
            {**session.selection_settings.model_dump(), **selection}
        )
        context = ContextConfig.model_validate(
            {**session.context_settings.model_dump(), **self.context_values()}
        )
        memory = MemoryConfig.model_validate({**session.settings.memory.model_dump(), **self.memory_values()})
        self.save_default_requested.emit(defaults, selection_config, context, memory)
        self.note.setText("Saved to agent.yaml: new chats start with these settings.")
