"""A workflow file's YAML in a text editor, with the static check's problems listed below it and
shown at their lines: each problem's line is highlighted, and clicking a problem moves there."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QColor, QFont, QFontDatabase, QTextCursor, QTextFormat
from PySide6.QtWidgets import QLabel, QListView, QPlainTextEdit, QTextEdit, QVBoxLayout, QWidget

from agent_core.agent.items import Problem
from desktop.models.workflows import ProblemsModel
from desktop.theme import colors, is_dark

__all__ = ["WorkflowEditor"]


def _line_color(severity: str) -> QColor:
    if is_dark():
        return QColor("#4a1f1c" if severity == "error" else "#3d2e12")
    return QColor("#fde4e1" if severity == "error" else "#fff4e5")


class WorkflowEditor(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.text = QPlainTextEdit()
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setPlaceholderText("The workflow, in YAML: inputs, assistants, tools and states.")
        layout.addWidget(self.text, 3)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.summary)
        self.problems_model = ProblemsModel(self)
        self.problems = QListView()
        self.problems.setModel(self.problems_model)
        self.problems.setWordWrap(True)
        self.problems.setSpacing(2)
        self.problems.setAlternatingRowColors(True)
        self.problems.setMaximumHeight(130)
        self.problems.clicked.connect(self._go_to_problem)
        self.problems.activated.connect(self._go_to_problem)
        layout.addWidget(self.problems, 1)
        self.set_problems(None)

    def set_problems(self, problems: list[Problem] | None, *, checked: str = "") -> None:
        """Show ``problems`` (None: not checked yet) and highlight their lines; ``checked`` says
        which text they are of (the saved file, or the text as it is now)."""
        palette = colors()
        self.problems_model.set_problems(problems or [])
        self.problems.setVisible(bool(problems))
        if problems is None:
            self.summary.setText("")
        elif not problems:
            self.summary.setText(f"No problems{f' in {checked}' if checked else ''}.")
        else:
            errors = sum(1 for p in problems if p.severity == "error")
            self.summary.setText(
                f"{errors} error{'s' if errors != 1 else ''}, {len(problems) - errors} "
                f"warning{'s' if len(problems) - errors != 1 else ''}"
                f"{f' in {checked}' if checked else ''}: click one to go to its line."
            )
        failing = any(p.severity == "error" for p in problems or [])
        self.summary.setStyleSheet(f"color: {palette.error if failing else palette.muted};")
        self._highlight(problems or [])

    def highlighted_lines(self) -> list[int]:
        """The 1-based lines marked for a problem (for tests and people debugging)."""
        return [s.cursor.blockNumber() + 1 for s in self.text.extraSelections()]

    def _highlight(self, problems: list[Problem]) -> None:
        selections = []
        document = self.text.document()
        for problem in problems:
            if not problem.line or problem.line > document.blockCount():
                continue
            selection = QTextEdit.ExtraSelection()
            selection.format.setBackground(_line_color(problem.severity))
            selection.format.setProperty(QTextFormat.Property.FullWidthSelection, True)
            selection.format.setToolTip(f"{problem.severity}: {problem.message}")
            if problem.severity == "error":
                selection.format.setFontWeight(QFont.Weight.DemiBold)
            cursor = QTextCursor(document.findBlockByNumber(problem.line - 1))
            selection.cursor = cursor
            selections.append(selection)
        self.text.setExtraSelections(selections)

    def _go_to_problem(self, index: QModelIndex) -> None:
        line = index.data(ProblemsModel.LINE_ROLE)
        if line:
            self.go_to_line(line)

    def go_to_line(self, line: int) -> None:
        block = self.text.document().findBlockByNumber(max(0, line - 1))
        cursor = QTextCursor(block)
        self.text.setTextCursor(cursor)
        self.text.centerCursor()
        self.text.setFocus(Qt.FocusReason.OtherFocusReason)
