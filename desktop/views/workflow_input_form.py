"""The input of a workflow run, as a form built from the workflow's declared ``inputs``: one typed
field per input, defaults filled, required ones marked; raw JSON (or text) when none are declared.

The form checks what it can (types, required fields, JSON syntax) before a run starts, with a
message that names the field and what to type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.workflow_files.schema import WorkflowInput
from agent_core.errors import ContextDeskError

__all__ = ["InputFormError", "WorkflowInputForm", "parse_mock_outputs"]

JSON_TYPES = ("object", "array")
EXAMPLES = {"object": '{"key": "value"}', "array": '["a", "b"]'}


class InputFormError(ContextDeskError):
    """A field of the form does not hold what its input needs; the message says what to type."""


def _required(declared: WorkflowInput) -> bool:
    """Required and without a default: the run cannot start without it."""
    return declared.required and declared.default is None


def _shown_default(declared: WorkflowInput) -> str:
    if declared.default is None:
        return ""
    if declared.type in JSON_TYPES:
        return json.dumps(declared.default, ensure_ascii=False, indent=2)
    return str(declared.default)


def parse_field(name: str, declared: WorkflowInput, text: str) -> Any:
    """The value typed for input ``name``, as its declared type.

    Raises:
        InputFormError: the text is not a value of that type.
    """
    kind = declared.type
    if kind == "string":
        return text
    stripped = text.strip()
    if kind in ("integer", "number"):
        try:
            return int(stripped)
        except ValueError:
            pass
        if kind == "number":
            try:
                return float(stripped)
            except ValueError:
                pass
        example = "42" if kind == "integer" else "3.5"
        what = "a whole number" if kind == "integer" else "a number"
        raise InputFormError(f"'{name}' must be {what}, not {stripped!r}: type e.g. {example}")
    example = EXAMPLES[kind]
    try:
        value = json.loads(stripped)
    except ValueError as error:
        raise InputFormError(
            f"'{name}' is not valid JSON ({error}): type a JSON {kind}, e.g. {example}"
        ) from None
    if not isinstance(value, dict if kind == "object" else list):
        raise InputFormError(f"'{name}' must be a JSON {kind}, e.g. {example}; not {type(value).__name__}")
    return value


def parse_raw(text: str) -> Any:
    """The input of a workflow that declares none: JSON whose root keys seed the store, or text.

    Raises:
        InputFormError: it starts like JSON but is not valid JSON.
    """
    stripped = text.strip()
    if not stripped:
        return {}
    if stripped[0] in "{[":
        try:
            return json.loads(stripped)
        except json.JSONDecodeError as error:
            raise InputFormError(
                f"The input is not valid JSON ({error.msg} at line {error.lineno}, column {error.colno}): "
                "fix it, or type plain text (it goes to the history only)"
            ) from None
    return text


def parse_mock_outputs(text: str) -> list[dict[str, Any]]:
    """Outputs that answer assistant states instead of a model (``--mock-outputs``), in order.

    Raises:
        InputFormError: not a JSON list of {"state_id", "output"} objects.
    """
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputFormError(
            f"The mock outputs are not valid JSON ({error.msg} at line {error.lineno}): "
            'type a list such as [{"state_id": "outline", "output": "..."}]'
        ) from None
    if not isinstance(entries, list) or not all(
        isinstance(e, dict) and isinstance(e.get("state_id"), str) for e in entries
    ):
        raise InputFormError(
            'The mock outputs must be a JSON list of {"state_id": ..., "output": ...} objects, '
            "one per assistant state in the order they run"
        )
    return entries


class WorkflowInputForm(QWidget):
    """Build with :meth:`set_inputs`; read with :meth:`value`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._inputs: dict[str, WorkflowInput] = {}
        self.fields: dict[str, QLineEdit | QCheckBox | QPlainTextEdit] = {}
        self.labels: dict[str, QLabel] = {}
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addStretch(1)  # the fields stay at the top, however tall the form's box
        self._form_host: QWidget | None = None
        self.raw: QPlainTextEdit | None = None
        self.set_inputs({})

    def set_inputs(self, inputs: Mapping[str, WorkflowInput]) -> None:
        """One field per declared input (raw JSON when there are none), defaults filled; the
        same inputs again keep what was typed."""
        if self._form_host is not None and dict(inputs) == self._inputs:
            return
        if self._form_host is not None:
            # Out of the layout now: a deferred delete alone would leave it shown until the
            # event loop gets to it.
            self._layout.removeWidget(self._form_host)
            self._form_host.hide()
            self._form_host.deleteLater()
        self._inputs = dict(inputs)
        self.fields = {}
        self.labels = {}
        self.raw = None
        host = QWidget()
        form = QFormLayout(host)
        form.setContentsMargins(0, 0, 0, 0)
        if not inputs:
            self.raw = QPlainTextEdit("{}")
            self.raw.setPlaceholderText(
                'The input: JSON (its root keys seed the store), e.g. {"topic": "tea"}'
            )
            self.raw.setMaximumHeight(110)
            form.addRow(QLabel("Input (JSON or text)"), self.raw)
        for name, declared in inputs.items():
            field = self._field_for(declared)
            label = QLabel(f"{name} *" if _required(declared) else name)
            tip = f"{declared.type}{', required' if _required(declared) else ', optional'}"
            label.setToolTip(f"{declared.description} ({tip})" if declared.description else tip)
            field.setToolTip(label.toolTip())
            self.fields[name] = field
            self.labels[name] = label
            form.addRow(label, field)
        if any(_required(d) for d in inputs.values()):
            note = QLabel("* required")
            note.setEnabled(False)
            form.addRow("", note)
        self._layout.insertWidget(0, host)
        self._form_host = host

    @staticmethod
    def _field_for(declared: WorkflowInput) -> QLineEdit | QCheckBox | QPlainTextEdit:
        if declared.type == "boolean":
            box = QCheckBox()
            box.setChecked(bool(declared.default))
            return box
        if declared.type in JSON_TYPES:
            editor = QPlainTextEdit(_shown_default(declared))
            editor.setPlaceholderText("{}" if declared.type == "object" else "[]")
            editor.setMaximumHeight(80)
            return editor
        line = QLineEdit(_shown_default(declared))
        hints = {"string": "text", "integer": "a whole number, e.g. 42", "number": "a number, e.g. 3.5"}
        placeholder = declared.description or hints[declared.type]
        line.setPlaceholderText(placeholder if _required(declared) else f"{placeholder} (optional)")
        return line

    def value(self) -> Any:
        """The run's input: a dict of the fields that are filled in (or the raw input).

        Raises:
            InputFormError: a required field is empty or a field holds the wrong type.
        """
        if self.raw is not None:
            return parse_raw(self.raw.toPlainText())
        given: dict[str, Any] = {}
        for name, declared in self._inputs.items():
            field = self.fields[name]
            if isinstance(field, QCheckBox):
                given[name] = field.isChecked()
                continue
            text = field.toPlainText() if isinstance(field, QPlainTextEdit) else field.text()
            empty = not text if declared.type == "string" else not text.strip()
            if empty:
                if _required(declared):
                    raise InputFormError(f"'{name}' is required: fill it in ({declared.type}).")
                continue  # the engine fills in its default
            given[name] = parse_field(name, declared, text)
        return given
