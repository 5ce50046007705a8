"""What an import did, whole and scrollable: what was changed on the way in and why, what was left
out, then what was brought in. A message box would cut a long report (a collection of a thousand
skills makes one) and could not be scrolled; and the lines that need reading (a name changed, a
duplicate left out) come first, not after a thousand "imported" lines."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from agent_core.agent.importers import ImportReport

__all__ = ["ImportReportDialog", "report_summary", "report_text"]


def report_summary(report: ImportReport) -> str:
    """One line over the report: how many entries of each kind it has."""
    parts = [
        f"{len(report.created):,} imported",
        f"{len(report.changed):,} replaced",
        f"{len(report.skipped):,} left out",
        f"{len(report.warnings):,} warning{'' if len(report.warnings) == 1 else 's'}",
    ]
    if report.trust_warnings:  # the first thing to read: said even in the one line
        parts.append(f"{len(report.trust_warnings):,} to read before trusting")
    if report.nothing_imported:
        return f"{report.headline} ({report.source_format}: {', '.join(parts[2:])})"
    return f"Import from {report.source_format}: {', '.join(parts)}."


def report_text(report: ImportReport) -> str:
    """Every line of the report, by what it asks of the reader: what to read before trusting a
    skill, changes and warnings, left out, replaced, imported (an empty part is not shown)."""
    would = "would be " if report.dry_run else ""
    parts = (
        ("Read before trusting: what these skills ask of the model", report.trust_warnings),
        ("Imported, but not quite as written: why", report.warnings),
        (f"{would.capitalize()}left out, and what to do", report.skipped),
        (f"{would.capitalize()}replaced (the agent's own)", report.changed),
        ("Would be imported" if report.dry_run else "Imported", report.created),
    )
    blocks = [
        "\n".join([f"{title} ({len(lines):,}):", *(f"  • {line}" for line in lines)])
        for title, lines in parts
        if lines
    ]
    return "\n\n".join(blocks) or "Nothing was imported."


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
        self.text.setPlainText(report_text(report))
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(760, 520)
