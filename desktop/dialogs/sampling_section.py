"""View Context's sampling part: each request a tool server made for a model reply while this
reply's tool calls ran (who asked, exactly what was sent, the answer, the tokens). Their tokens
are the servers', listed here beside the reply's own, not inside them."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from agent_core.context.items import RequestContext
from desktop.models.sampling_records import SamplingRecordsModel, record_details
from desktop.theme import colors
from desktop.views.tables import row_table

__all__ = ["SamplingSection"]


class SamplingSection(QWidget):
    def __init__(self, context: RequestContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.model = SamplingRecordsModel(self)
        self.model.set_records(context.samplings)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 8, 0, 0)
        title = QLabel("Sampling requests")
        title.setStyleSheet("font-size: 15px; font-weight: 600;")
        layout.addWidget(title)
        tokens = sum((r.usage.input_tokens or 0) + (r.usage.output_tokens or 0) for r in context.samplings)
        note = QLabel(
            f"Tool servers asked the model for {len(context.samplings)} repl"
            f"{'y' if len(context.samplings) == 1 else 'ies'} ({tokens:,} tokens, not counted in this reply's)."
        )
        note.setWordWrap(True)
        note.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(note)
        self.table = row_table(self.model)
        self.table.setMaximumHeight(40 + 26 * max(1, self.model.rowCount()))
        layout.addWidget(self.table)
        self.details = QPlainTextEdit()
        self.details.setReadOnly(True)
        self.details.setMaximumHeight(160)
        layout.addWidget(self.details)
        self.table.selectionModel().currentRowChanged.connect(
            lambda current, _: self.show_record(current.row())
        )
        if self.model.rowCount():
            self.table.selectRow(0)
            self.show_record(0)

    def show_record(self, row: int) -> None:
        record = self.model.record_at(row)
        self.details.setPlainText(record_details(record) if record is not None else "")
