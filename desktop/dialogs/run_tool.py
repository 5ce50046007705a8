"""Run one tool by hand: a form built from its JSON schema, then the result and how long it took."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from agent_core.mcp.types import ToolInfo
from agent_core.tools.runtime import ToolOutcome
from desktop.bridge import CoreBridge, Generation
from desktop.theme import colors

__all__ = ["RunToolDialog", "SchemaForm"]


class SchemaForm(QWidget):
    """Fields for the top-level properties of an object schema; anything complex is typed as JSON."""

    def __init__(self, schema: Mapping[str, Any], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields: dict[str, tuple[str, QWidget]] = {}
        self.required = set(schema.get("required", []))
        form = QFormLayout(self)
        properties: Mapping[str, Any] = schema.get("properties", {}) or {}
        for name, spec in properties.items():
            kind = spec.get("type", "string") if isinstance(spec, Mapping) else "string"
            if isinstance(kind, list):
                kind = next((k for k in kind if k != "null"), "string")
            widget: QWidget
            if kind == "boolean":
                widget = QCheckBox()
                widget.setChecked(bool(spec.get("default", False)))
            elif kind == "integer":
                widget = QSpinBox()
                widget.setRange(int(spec.get("minimum", -(2**31))), int(spec.get("maximum", 2**31 - 1)))
                widget.setValue(int(spec.get("default", 0)))
            elif kind == "number":
                widget = QDoubleSpinBox()
                widget.setRange(float(spec.get("minimum", -1e12)), float(spec.get("maximum", 1e12)))
                widget.setDecimals(4)
                widget.setValue(float(spec.get("default", 0)))
            elif kind == "string":
                widget = QLineEdit(str(spec.get("default", "")))
                if "enum" in spec:
                    widget.setPlaceholderText(" | ".join(map(str, spec["enum"])))
            else:
                widget = QPlainTextEdit(json.dumps(spec.get("default", {} if kind == "object" else [])))
                widget.setMaximumHeight(80)
            widget.setToolTip(str(spec.get("description", "")))
            label = f"{name}{' *' if name in self.required else ''}"
            form.addRow(label, widget)
            self.fields[name] = (kind, widget)
        if not properties:
            form.addRow(QLabel("This tool takes no arguments."))

    def arguments(self) -> dict[str, Any]:
        """The values entered; empty optional text fields are left out.

        Raises:
            ValueError: a JSON field is not valid JSON, or a required field is empty.
        """
        out: dict[str, Any] = {}
        for name, (_kind, widget) in self.fields.items():
            if isinstance(widget, QCheckBox):
                out[name] = widget.isChecked()
            elif isinstance(widget, QSpinBox | QDoubleSpinBox):
                out[name] = widget.value()
            elif isinstance(widget, QLineEdit):
                if widget.text() or name in self.required:
                    if not widget.text() and name in self.required:
                        raise ValueError(f"{name} is required")
                    out[name] = widget.text()
            elif isinstance(widget, QPlainTextEdit):
                text = widget.toPlainText().strip()
                if text:
                    try:
                        out[name] = json.loads(text)
                    except json.JSONDecodeError as error:
                        raise ValueError(f"{name}: not valid JSON ({error.msg})") from error
        return out


class RunToolDialog(QDialog):
    def __init__(
        self, bridge: CoreBridge, manager: Any, tool: ToolInfo, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.manager = manager
        self.tool = tool
        self._generation = Generation()
        self.setWindowTitle(f"Run {tool.server}.{tool.name}")
        self.resize(560, 480)
        layout = QVBoxLayout(self)
        description = QLabel(tool.description or "")
        description.setWordWrap(True)
        description.setStyleSheet(f"color: {colors().muted};")
        layout.addWidget(description)
        self.form = SchemaForm(tool.input_schema)
        layout.addWidget(self.form)
        self.run_button = QPushButton("Run")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        layout.addWidget(self.run_button)
        self.outcome = QLabel()
        layout.addWidget(self.outcome)
        self.output = QPlainTextEdit()
        self.output.setReadOnly(True)
        layout.addWidget(self.output, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def run(self) -> None:
        try:
            arguments = self.form.arguments()
        except ValueError as error:
            self.outcome.setText(str(error))
            self.outcome.setStyleSheet(f"color: {colors().error};")
            return
        token = self._generation.next()
        self.run_button.setEnabled(False)
        self.outcome.setText("Running…")
        self.outcome.setStyleSheet("")

        def done(result: ToolOutcome) -> None:
            if not self._generation.is_current(token):
                return
            self.run_button.setEnabled(True)
            label = "Error" if result.is_error else "Result"
            self.outcome.setText(f"{label} in {result.elapsed_seconds:.2f} s")
            self.outcome.setStyleSheet(f"color: {colors().error};" if result.is_error else "")
            self.output.setPlainText(result.text)

        def failed(error: BaseException) -> None:
            self.run_button.setEnabled(True)
            self.outcome.setText(f"Could not run the tool: {error}")
            self.outcome.setStyleSheet(f"color: {colors().error};")

        self.bridge.submit(self.manager.call_tool(self.tool.server, self.tool.name, arguments), done, failed)
