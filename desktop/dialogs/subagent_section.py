"""View Context's sub-agent part: each sub-agent the reply ran, with the exact task it sent, its
context mode, its tokens, turns and time (live while it runs), Stop, and its own chat; and the
reply's tokens beside its sub-agents', summed exactly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.context.items import RequestContext, TokenUsage
from agent_core.subagents.budget import add_usage
from agent_core.subagents.runs import SubagentRun, run_of
from desktop.models.subagent_runs import RunColumn, SubagentRunsModel
from desktop.theme import colors
from desktop.views.tables import row_table

__all__ = ["SubagentHooks", "SubagentSection", "usage_line"]


@dataclass
class SubagentHooks:
    """What the chat offers the section: its live runs (model), Stop, and opening a child's chat."""

    live: SubagentRunsModel | None
    cancel: Callable[[str], None]
    open_chat: Callable[[str, str], None]


def usage_line(context: RequestContext) -> str:
    """ "This reply 1,200 tokens (1,000 in, 200 out) · its sub-agents 3,400 (…) · together 4,600" """
    own = context.usage
    children = TokenUsage()
    for delegation in context.delegations:
        children = add_usage(children, delegation.usage)
    total = add_usage(own, children)

    def tokens(usage: TokenUsage) -> str:
        sum_ = (usage.input_tokens or 0) + (usage.output_tokens or 0)
        return f"{sum_:,} tokens ({usage.input_tokens or 0:,} in, {usage.output_tokens or 0:,} out)"

    return f"This reply {tokens(own)} · its sub-agents {tokens(children)} · together {tokens(total)}"


class SubagentSection(QWidget):
    def __init__(
        self, context: RequestContext, hooks: SubagentHooks | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.context = context
        self.hooks = hooks
        self.model = SubagentRunsModel(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        title = QLabel("Sub-agents")
        title.setStyleSheet("font-size: 15px; font-weight: 600;")
        layout.addWidget(title)
        self.usage = QLabel(usage_line(context))
        self.usage.setStyleSheet(f"color: {colors().muted};")
        self.usage.setWordWrap(True)
        layout.addWidget(self.usage)
        self.table = row_table(self.model, RunColumn.TASK)
        layout.addWidget(self.table)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open its chat")
        self.open_button.setToolTip("The sub-agent's own chat, each of its replies with its View Context")
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop this sub-agent; the reply goes on with what it has")
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setStyleSheet(f"color: {colors().muted};")
        for button in (self.open_button, self.stop_button):
            button.setAutoDefault(False)
            buttons.addWidget(button)
        buttons.addWidget(self.note, 1)
        layout.addLayout(buttons)
        self.open_button.clicked.connect(self._open)
        self.stop_button.clicked.connect(self._stop)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._update())
        if hooks is not None and hooks.live is not None:
            # The chat's live runs outlive this dialog: a bound method (not a lambda) is
            # disconnected by Qt when the section is deleted, so a run ending later reaches no
            # deleted widget.
            for signal in (hooks.live.rowsInserted, hooks.live.dataChanged, hooks.live.modelReset):
                signal.connect(self._live_runs_changed)
        self.refresh()

    def _live_runs_changed(self, *_: object) -> None:
        self.refresh()

    def refresh(self) -> None:
        """The reply's recorded runs, and those of this chat still running."""
        chosen = self.selected()
        runs = [run_of(d) for d in self.context.delegations]
        seen = {r.call_id for r in runs}
        if self.hooks is not None and self.hooks.live is not None:
            runs += [r for r in self.hooks.live.runs() if r.status == "running" and r.call_id not in seen]
        self.model.set_runs(runs)
        if chosen is not None:
            row = next((i for i, r in enumerate(runs) if r.call_id == chosen.call_id), None)
            if row is not None:
                self.table.selectRow(row)
        self.setVisible(bool(runs))
        rows = max(1, len(runs))
        self.table.setMaximumHeight(
            self.table.horizontalHeader().height()
            + rows * self.table.verticalHeader().defaultSectionSize()
            + 6
        )
        self._update()

    def selected(self) -> SubagentRun | None:
        rows = self.table.selectionModel().selectedRows()
        return self.model.runs()[rows[0].row()] if rows else None

    def _update(self) -> None:
        run = self.selected()
        self.open_button.setEnabled(run is not None and self.hooks is not None)
        self.stop_button.setVisible(run is not None and run.status == "running")
        self.note.setText(run.note if run is not None else "Select a sub-agent to open its chat.")

    def _open(self) -> None:
        run = self.selected()
        if run is not None and self.hooks is not None:
            self.hooks.open_chat(run.child_session_id, f"{run.path}: {' '.join(run.task.split())[:60]}")

    def _stop(self) -> None:
        run = self.selected()
        if run is not None and self.hooks is not None:
            self.hooks.cancel(run.call_id)
            self.stop_button.setEnabled(False)
            self.note.setText("Stopping…")
