"""A server asks the user for something: a form built from its schema, or a link to open.

Everything shown comes from an untrusted server, so it is shown as plain text (never rich text)
and was already bounded by the core (agent_core.mcp.elicitation). The dialog is non-modal to the
event loop: the core awaits the answer the dialog's ``answered`` signal carries.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QDoubleValidator, QIntValidator, QTextOption
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFrame,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from agent_core.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationField,
    FieldValue,
    FormElicitation,
    UrlElicitation,
    answer_problems,
)
from agent_core.mcp.secret_fields import secret_warning
from desktop.theme import colors
from desktop.views.window_geometry import fit_size

__all__ = ["ChoiceChecks", "ElicitationDialog", "FieldEditor", "UrlElicitationDialog"]

_PLACEHOLDERS = {
    "email": "name@example.com",
    "uri": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm",
}
_NONE = "(none)"


def _plain_label(text: str, *, muted: bool = False, wrap: bool = True) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)  # a server's words, never markup
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    # A server's word without spaces must not widen the dialog past the screen: it is clipped.
    label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
    if muted:
        label.setStyleSheet(f"color: {colors().muted};")
    return label


class ChoiceChecks(QWidget):
    """A list-of-options field: one check box per option (the theme draws them in light and dark)."""

    def __init__(self, spec: ElicitationField, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        chosen = set(spec.default) if isinstance(spec.default, list) else set()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.boxes: list[tuple[str, QCheckBox]] = []
        for choice in spec.choices:
            box = QCheckBox(choice.label)
            box.setChecked(choice.value in chosen)
            layout.addWidget(box)
            self.boxes.append((choice.value, box))

    def chosen(self) -> list[str]:
        return [value for value, box in self.boxes if box.isChecked()]


class FieldEditor(QWidget):
    """One field: its title (``*`` when required), the editor for its type, its help and its error."""

    def __init__(self, spec: ElicitationField, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.spec = spec
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(2)
        title = spec.title + (" *" if spec.required else "")
        self.title = _plain_label(title, wrap=True)
        self.title.setStyleSheet("font-weight: 600;")
        self.editor = self._editor()
        self.editor.setToolTip(spec.description)
        self.editor.setAccessibleName(spec.title)
        if spec.kind != "boolean":
            layout.addWidget(self.title)
            self.title.setBuddy(self.editor)
        layout.addWidget(self.editor)
        self.reveal: QCheckBox | None = None
        if spec.secret and isinstance(self.editor, QLineEdit):
            self.editor.setEchoMode(QLineEdit.EchoMode.Password)
            self.reveal = QCheckBox("Show what I type")
            self.reveal.toggled.connect(self._show_typed)
            layout.addWidget(self.reveal)
        if spec.description:
            layout.addWidget(_plain_label(spec.description, muted=True))
        self.error = _plain_label("")
        self.error.setStyleSheet(f"color: {colors().error};")
        self.error.hide()
        layout.addWidget(self.error)

    def _editor(self) -> QWidget:
        spec = self.spec
        if spec.kind == "boolean":
            box = QCheckBox(spec.title + (" *" if spec.required else ""))
            box.setChecked(spec.default is True)
            return box
        if spec.kind == "choice":
            combo = QComboBox()
            if not spec.required or spec.default is None:
                combo.addItem(_NONE, None)
            for choice in spec.choices:
                combo.addItem(choice.label, choice.value)
            if spec.default is not None:
                combo.setCurrentIndex(max(combo.findData(spec.default), 0))
            return combo
        if spec.kind == "multi_choice":
            return ChoiceChecks(spec)
        line = QLineEdit()
        if spec.default is not None:
            line.setText(str(spec.default))
        if spec.kind == "integer":
            line.setValidator(QIntValidator(line))
        elif spec.kind == "number":
            validator = QDoubleValidator(line)
            validator.setNotation(QDoubleValidator.Notation.StandardNotation)
            line.setValidator(validator)
        if spec.kind in ("integer", "number") and (spec.minimum is not None or spec.maximum is not None):
            low = "" if spec.minimum is None else f"{spec.minimum:g}"
            high = "" if spec.maximum is None else f"{spec.maximum:g}"
            line.setPlaceholderText(f"{low} to {high}".strip())
        elif spec.format:
            line.setPlaceholderText(_PLACEHOLDERS.get(spec.format, ""))
        if spec.max_length is not None:
            line.setMaxLength(spec.max_length)
        return line

    def _show_typed(self, shown: bool) -> None:
        assert isinstance(self.editor, QLineEdit)
        self.editor.setEchoMode(QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password)

    def value(self) -> FieldValue | None:
        """What the user gave (None: nothing, or a number that does not parse)."""
        editor = self.editor
        if isinstance(editor, QCheckBox):
            return editor.isChecked()
        if isinstance(editor, QComboBox):
            data = editor.currentData()
            return data if isinstance(data, str) else None
        if isinstance(editor, ChoiceChecks):
            return editor.chosen()
        assert isinstance(editor, QLineEdit)
        text = editor.text().strip()
        if not text or self.spec.kind == "string":
            return text or None
        try:
            number = float(text.replace(",", "."))
        except ValueError:
            return text  # the check below says it must be a number
        return int(number) if self.spec.kind == "integer" and number.is_integer() else number

    def show_problem(self, problem: str | None) -> None:
        self.error.setText(problem or "")
        self.error.setVisible(bool(problem))


class ElicitationDialog(QDialog):
    """Accept (checked first), Decline or Cancel a server's form; ``answered`` says which."""

    answered = Signal(object)  # ElicitationAnswer

    def __init__(self, form: FormElicitation, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.form = form
        self.setWindowTitle(f"{form.server} asks for information")
        fit_size(self, QSize(520, 620))
        layout = QVBoxLayout(self)
        who = _plain_label(f"The tool server '{form.server}' asks:", muted=True)
        layout.addWidget(who)
        message = _plain_label(form.message)
        message.setStyleSheet("font-size: 11pt;")
        layout.addWidget(message)
        self.secret_warning: QLabel | None = None
        if form.asks_for_secret:
            self.secret_warning = _plain_label(secret_warning(form.server))
            self.secret_warning.setStyleSheet(f"color: {colors().warning}; font-weight: 600;")
            layout.addWidget(self.secret_warning)
        body = QWidget()
        fields_layout = QVBoxLayout(body)
        fields_layout.setContentsMargins(0, 0, 8, 0)
        self.editors = [FieldEditor(spec) for spec in form.fields]
        for editor in self.editors:
            fields_layout.addWidget(editor)
        fields_layout.addStretch(1)
        self.fields_area = QScrollArea()
        self.fields_area.setWidgetResizable(True)
        self.fields_area.setFrameShape(QFrame.Shape.NoFrame)
        self.fields_area.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.fields_area.setWidget(body)
        layout.addWidget(self.fields_area, 1)
        note = _plain_label("* required. Only what you send here goes to the server.", muted=True)
        layout.addWidget(note)
        self.problems = _plain_label("")
        self.problems.setStyleSheet(f"color: {colors().error};")
        self.problems.hide()
        layout.addWidget(self.problems)
        buttons = QDialogButtonBox()
        self.accept_button = buttons.addButton("Accept", QDialogButtonBox.ButtonRole.AcceptRole)
        self.decline_button = buttons.addButton("Decline", QDialogButtonBox.ButtonRole.DestructiveRole)
        self.cancel_button = buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        self.accept_button.setDefault(True)
        self.accept_button.clicked.connect(self._accept)
        self.decline_button.clicked.connect(lambda: self._finish(ElicitationAnswer("decline")))
        self.cancel_button.clicked.connect(lambda: self._finish(ElicitationAnswer("cancel")))
        layout.addWidget(buttons)
        self._done = False
        if self.editors:
            self.editors[0].editor.setFocus()

    def editor(self, name: str) -> FieldEditor:
        return next(e for e in self.editors if e.spec.name == name)

    def values(self) -> dict[str, FieldValue | None]:
        return {e.spec.name: e.value() for e in self.editors}

    def _accept(self) -> None:
        values = self.values()
        problems = answer_problems(self.form.fields, values)
        for editor in self.editors:
            editor.show_problem(problems.get(editor.spec.name))
        self.problems.setText(f"{len(problems)} field(s) to fix before sending." if problems else "")
        self.problems.setVisible(bool(problems))
        if problems:
            first = next(e for e in self.editors if e.spec.name in problems)
            first.editor.setFocus()
            return
        sent = {name: value for name, value in values.items() if value is not None}
        self._finish(ElicitationAnswer("accept", sent))

    def _finish(self, answer: ElicitationAnswer) -> None:
        if not self._done:
            self._done = True
            self.answered.emit(answer)
        self.done(QDialog.DialogCode.Accepted if answer.action == "accept" else QDialog.DialogCode.Rejected)

    def reject(self) -> None:  # Esc, the window's close button, or the core giving up
        self._finish(ElicitationAnswer("cancel"))


class UrlElicitationDialog(QDialog):
    """A link a server wants opened: shown in full, opened only when the user chooses to."""

    answered = Signal(object)  # ElicitationAnswer

    def __init__(self, request: UrlElicitation, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request = request
        self.setWindowTitle(f"{request.server} asks you to open a link")
        fit_size(self, QSize(520, 260))
        layout = QVBoxLayout(self)
        layout.addWidget(_plain_label(f"The tool server '{request.server}' asks:", muted=True))
        layout.addWidget(_plain_label(request.message))
        host = QUrl(request.url).host()
        layout.addWidget(_plain_label(f"It wants you to open a page on {host}:"))
        # In full, wrapped anywhere (a URL has no spaces), read-only: what would open is what is seen.
        self.url = QPlainTextEdit(request.url)
        self.url.setReadOnly(True)
        self.url.setWordWrapMode(QTextOption.WrapMode.WrapAnywhere)
        self.url.setMaximumHeight(self.url.fontMetrics().lineSpacing() * 4 + 12)
        self.url.setStyleSheet(f"color: {colors().link}; font-family: monospace;")
        layout.addWidget(self.url)
        layout.addWidget(_plain_label("Nothing is opened unless you choose Open.", muted=True))
        layout.addStretch(1)
        buttons = QDialogButtonBox()
        self.open_button: QPushButton = buttons.addButton(
            "Open in browser", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.decline_button = buttons.addButton("Decline", QDialogButtonBox.ButtonRole.DestructiveRole)
        self.cancel_button = buttons.addButton("Cancel", QDialogButtonBox.ButtonRole.RejectRole)
        self.open_button.clicked.connect(self._open)
        self.decline_button.clicked.connect(lambda: self._finish(ElicitationAnswer("decline")))
        self.cancel_button.clicked.connect(lambda: self._finish(ElicitationAnswer("cancel")))
        layout.addWidget(buttons)
        # Return must not open a page: the safe answer is the default.
        self.open_button.setAutoDefault(False)
        self.cancel_button.setDefault(True)
        self._done = False

    def _open(self) -> None:
        QDesktopServices.openUrl(QUrl(self.request.url))
        self._finish(ElicitationAnswer("accept"))

    def _finish(self, answer: ElicitationAnswer) -> None:
        if not self._done:
            self._done = True
            self.answered.emit(answer)
        self.done(QDialog.DialogCode.Accepted if answer.action == "accept" else QDialog.DialogCode.Rejected)

    def reject(self) -> None:
        self._finish(ElicitationAnswer("cancel"))
