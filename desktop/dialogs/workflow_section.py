"""View Context's workflow part: each workflow the reply ran, how it ended and what it cost, and
its run view (every state's store, prompt, output and context)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.context.items import RequestContext
from desktop.models.workflow_links import WorkflowLinksModel
from desktop.theme import colors
from desktop.views.tables import row_table

__all__ = ["OpenWorkflowRun", "WorkflowSection"]

OpenWorkflowRun = Callable[[str, str], None]  # run id, workflow name


class WorkflowSection(QWidget):
    def __init__(
        self, context: RequestContext, open_run: OpenWorkflowRun | None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.open_run = open_run
        self.model = WorkflowLinksModel(self)
        self.model.set_links(context.workflow_runs)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        title = QLabel("Workflows")
        title.setStyleSheet("font-size: 15px; font-weight: 600;")
        layout.addWidget(title)
        note = QLabel(
            "Each state ran on its own: its rules, references and tools are in the run's View Context, "
            "not in this reply's."
        )
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(note)
        self.table = row_table(self.model)
        self.table.setMaximumHeight(40 + 26 * max(1, self.model.rowCount()))
        self.table.doubleClicked.connect(lambda index: self.open(index.row()))
        layout.addWidget(self.table)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open run")
        self.open_button.setToolTip("Every state of the run: its store, prompt, output and View Context")
        self.open_button.clicked.connect(self._open_selected)
        self.open_button.setEnabled(open_run is not None)
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        if self.model.rowCount():
            self.table.selectRow(0)

    def open(self, row: int) -> None:
        link = self.model.link_at(row)
        if link is not None and self.open_run is not None:
            self.open_run(link.run_id, link.workflow)

    def _open_selected(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        self.open(rows[0].row() if rows else 0)
