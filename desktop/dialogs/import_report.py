"""What an import did, whole and scrollable: each skill, rule or server brought in, each name
changed and why, each duplicate or file left out. A message box would cut a long report (a
collection of a thousand skills makes one) and could not be scrolled."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from agent_core.agent.importers import ImportReport

__all__ = ["ImportReportDialog", "report_summary"]


def report_summary(report: ImportReport) -> str:
    """One line over the report: how many entries of each kind it has."""
    parts = [
        f"{len(report.created):,} imported",
        f"{len(report.changed):,} replaced",
        f"{len(report.skipped):,} left out",
        f"{len(report.warnings):,} warnings",
    ]
    nothing = "" if report.created or report.changed else " Nothing new was added."
    return f"Import from {report.source_format}: {', '.join(parts)}.{nothing}"


class ImportReportDialog(QDialog):
    def __init__(self, report: ImportReport, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Import — ContextDesk")
        layout = QVBoxLayout(self)
        self.summary = QLabel(report_summary(report))
        self.summary.setWordWrap(True)
        self.summary.setStyleSheet("font-weight: 600;")
        layout.addWidget(self.summary)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.text.setPlainText("\n".join(report.lines()))
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 480)
