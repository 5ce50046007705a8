"""Add or edit an MCP server: a form, or a pasted ``mcpServers`` JSON block (Claude Desktop, Cursor…)."""

from __future__ import annotations

import json
import shlex
from collections.abc import Collection, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.importers import AgentImportError, servers_from_mcp_json
from agent_core.agent.names import name_problem
from agent_core.agent.schema import (
    IncludeMode,
    InternalServerConfig,
    McpServerConfig,
    SamplingPolicy,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)
from agent_core.mcp.oauth_storage import OAuthSecretKind
from desktop.dialogs.oauth_section import OAuthSection
from desktop.settings import new_tools_include
from desktop.theme import colors
from desktop.views.file_dialogs import choose_folder
from desktop.views.model_picker import ModelPicker, model_problem

__all__ = ["ServerDialog"]

_ADAPTER: TypeAdapter[McpServerConfig] = TypeAdapter(McpServerConfig)

#: How a new server's tools join chats, as offered when adding one (agent first: the default).
NEW_TOOL_MODES = (
    ("Chosen per message (agent)", "agent"),
    ("Always, in every chat", "always"),
    ("Only when I add them (manual)", "manual"),
)
#: What a server's requests for a model reply meet (``sampling``), ask first: the default.
SAMPLING_POLICIES = (
    ("Ask me each time", SamplingPolicy.ASK),
    ("Answer without asking", SamplingPolicy.ALLOW),
    ("Refuse them", SamplingPolicy.DENY),
)
#: The sampling model box's first choice: no ``samplingModel``, so the chat's model answers.
CHAT_MODEL = "The chat's model"
NEW_TOOLS_HINT = (
    "Agent: each message gets only the tools it needs, so a server with many tools does not fill "
    "every request. You can change any tool later in Tools."
)


def _pairs(text: str, field: str) -> dict[str, str]:
    """``KEY=value`` lines (blank lines skipped).

    Raises:
        ValueError: a line is not ``KEY=value``; the message names ``field`` and the line.
    """
    out = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        key, sep, value = line.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"{field}: “{line.strip()}” is not KEY=value (one a line)")
        out[key.strip()] = value.strip()
    return out


class ServerDialog(QDialog):
    """``servers()`` gives the validated configs by name once accepted. ``models`` are the
    ``provider:model`` refs the chat's model box offers and ``providers`` the agent's provider ids:
    the choices, and what a typed sampling model is checked against."""

    def __init__(
        self,
        name: str = "",
        config: McpServerConfig | None = None,
        taken: set[str] | None = None,
        parent: QWidget | None = None,
        *,
        models: Sequence[str] = (),
        providers: Collection[str] = (),
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Edit MCP server" if name else "Add MCP server")
        self.resize(560, 460)
        self._taken = (taken or set()) - {name}
        self._result: dict[str, McpServerConfig] = {}
        self._original: McpServerConfig | None = None  # the server being edited
        self._providers = set(providers) | {model.split(":", 1)[0] for model in models}
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget()
        layout.addWidget(self.tabs)

        form_page = QWidget()
        form = QFormLayout(form_page)
        self.name = QLineEdit(name)
        self.type = QComboBox()
        self.type.addItems(["stdio", "streamable-http", "sse"])
        self.command = QLineEdit()
        self.command.setPlaceholderText("e.g. uvx")
        self.args = QLineEdit()
        self.args.setPlaceholderText("e.g. mcp-server-time --local-timezone Europe/Paris")
        self.env = QPlainTextEdit()
        self.env.setPlaceholderText("KEY=value, one a line (values may be env://VAR)")
        self.env.setMaximumHeight(70)
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://example.com/mcp")
        self.headers = QPlainTextEdit()
        self.headers.setPlaceholderText("Header=value, one a line (values may be env://VAR)")
        self.headers.setMaximumHeight(70)
        form.addRow("Name", self.name)
        form.addRow("Type", self.type)
        form.addRow("Command", self.command)
        form.addRow("Arguments", self.args)
        form.addRow("Environment", self.env)
        form.addRow("URL", self.url)
        form.addRow("Headers", self.headers)
        self.oauth = OAuthSection()
        form.addRow(self.oauth)
        # Who answers the server's requests for a model reply (MCP sampling, after approval).
        self.sampling_model = ModelPicker()
        self.sampling_model.addItem(CHAT_MODEL)
        self.sampling_model.addItems(sorted(set(models)))
        self.sampling_model.setCurrentIndex(0)
        self.sampling_model.setToolTip(
            "The model that answers this server's sampling requests (after you approve each one): "
            "the chat's model, or one you pick or type as provider:model"
        )
        self.sampling = QComboBox()
        for label, policy in SAMPLING_POLICIES:
            self.sampling.addItem(label, policy)
        self.sampling.setToolTip(
            "What happens when this server asks for a model reply (MCP sampling). Always within the "
            "token caps; a request is shown in View Context of the reply whose tool call caused it"
        )
        form.addRow("Sampling requests", self.sampling)
        form.addRow("Sampling model", self.sampling_model)
        self.new_tools = QComboBox()
        for label, mode in NEW_TOOL_MODES:
            self.new_tools.addItem(label, mode)
        self.new_tools.setCurrentIndex(max(0, self.new_tools.findData(new_tools_include())))
        self.new_tools_hint = QLabel(NEW_TOOLS_HINT)
        self.new_tools_hint.setWordWrap(True)
        self.new_tools_hint.setStyleSheet(f"color: {colors().muted};")
        self.tabs.addTab(form_page, "Form")
        if config is None:  # only a new server's tools are placed: an edit keeps its settings
            layout.addWidget(QLabel("Its tools join chats"))
            layout.addWidget(self.new_tools)
            layout.addWidget(self.new_tools_hint)

        # A built-in server (type internal) has its own options, not a command to run.
        self.builtin_page = QWidget()
        builtin = QFormLayout(self.builtin_page)
        self.builtin_kind = QLabel()
        self.root = QLineEdit()
        self.root.setPlaceholderText("the folder its tools may read, e.g. ~/Documents")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_root)
        root_row = QHBoxLayout()
        root_row.addWidget(self.root, 1)
        root_row.addWidget(browse)
        self.root_row = QWidget()
        self.root_row.setLayout(root_row)
        builtin.addRow("Built-in server", self.builtin_kind)
        builtin.addRow("Folder", self.root_row)

        json_page = QWidget()
        json_layout = QVBoxLayout(json_page)
        json_layout.addWidget(
            QLabel(
                'Paste a block like {"mcpServers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}'
            )
        )
        self.json = QPlainTextEdit()
        json_layout.addWidget(self.json)
        self.tabs.addTab(json_page, "Paste JSON")

        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {colors().error};")
        self.error.hide()
        layout.addWidget(self.error)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.type.currentTextChanged.connect(self._on_type)
        # A mistake shown under the form follows the edits: it changes, or goes once it is fixed.
        for line in (self.name, self.command, self.args, self.url, self.root, *self.oauth.lines()):
            line.textChanged.connect(lambda _t: self._recheck())
        self.sampling_model.currentTextChanged.connect(lambda _t: self._recheck())
        for text in (self.env, self.headers, self.json):
            text.textChanged.connect(self._recheck)
        self.type.currentTextChanged.connect(lambda _t: self._recheck())
        self.tabs.currentChanged.connect(lambda _i: self._recheck())
        if config is not None:
            self._load(config)
            self.tabs.setTabEnabled(1, False)
        self._on_type(self.type.currentText())

    def _choose_root(self) -> None:
        chosen = choose_folder(self, "The folder its tools may read", self.root.text())
        if chosen is not None:
            self.root.setText(str(chosen))

    def _load(self, config: McpServerConfig) -> None:
        if isinstance(config, InternalServerConfig):
            # Its own settings page: a built-in has no command, and the stdio form could not save it.
            self.tabs.insertTab(0, self.builtin_page, "Built-in")
            self.tabs.setCurrentIndex(0)
            self.tabs.setTabVisible(1, False)  # the form and the pasted JSON are for servers to run
            self.tabs.setTabVisible(2, False)
            self.builtin_kind.setText(config.tool)
            self.root.setText(str(config.options.get("root", "")))
            self.root_row.setVisible(config.tool == "workspace")
            self._original = config
            return
        self.type.setCurrentText(config.type)
        if isinstance(config, StdioServerConfig):
            self.command.setText(config.command)
            self.args.setText(shlex.join(config.args))
            self.env.setPlainText("\n".join(f"{k}={v}" for k, v in config.env.items()))
        elif isinstance(config, SseServerConfig | StreamableHttpServerConfig):
            self.url.setText(config.url)
            self.headers.setPlainText("\n".join(f"{k}={v}" for k, v in config.headers.items()))
            if isinstance(config, StreamableHttpServerConfig):
                self.oauth.load(config.oauth)
        self.sampling.setCurrentIndex(max(0, self.sampling.findData(config.sampling)))
        if config.sampling_model:
            if self.sampling_model.findText(config.sampling_model) < 0:
                self.sampling_model.addItem(config.sampling_model)  # a model no provider lists now
            self.sampling_model.setCurrentText(config.sampling_model)
        self._original = config

    def _on_type(self, kind: str) -> None:
        stdio = kind == "stdio"
        for widget in (self.command, self.args, self.env):
            widget.setEnabled(stdio)
        for widget in (self.url, self.headers):
            widget.setEnabled(not stdio)
        self.oauth.setVisible(kind == "streamable-http")  # the SDK signs in over streamable HTTP only

    def servers(self) -> dict[str, McpServerConfig]:
        return dict(self._result)

    def oauth_secrets(self) -> dict[OAuthSecretKind, str]:
        """The OAuth secrets typed for the (one) server of the form, to keep in the keyring."""
        return (
            self.oauth.secrets()
            if self.tabs.currentIndex() == 0 and self.type.currentText() == "streamable-http"
            else {}
        )

    def _fail(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()

    def _accept(self) -> None:
        try:
            result = self._checked()
        except (ValueError, AgentImportError) as error:
            self._fail(str(error))
            return
        self._result = result
        self.accept()

    def _recheck(self) -> None:
        if self.error.isHidden():
            return
        try:
            self._checked()
        except (ValueError, AgentImportError) as error:
            self.error.setText(str(error))
            return
        self.error.hide()

    def _checked(self) -> dict[str, McpServerConfig]:
        """The servers the dialog describes now.

        Raises:
            ValueError, AgentImportError: what to fix, named by its field.
        """
        if isinstance(self._original, InternalServerConfig):
            result = self._from_builtin(self._original)
        else:
            result = self._from_json() if self.tabs.currentIndex() == 1 else self._from_form()
            if self._original is None:
                result = {name: self._placed(config) for name, config in result.items()}
        clash = set(result) & self._taken
        if clash:
            raise ValueError(
                f"This agent already has a server called {', '.join(sorted(clash))}: choose another name."
            )
        return result

    def _placed(self, config: McpServerConfig) -> McpServerConfig:
        """A new server with the chosen include mode for its tools (unless it names its own)."""
        if "tool_defaults" in config.model_fields_set:
            return config
        include = IncludeMode(self.new_tools.currentData())
        defaults = config.tool_defaults.model_copy(update={"include": include})
        return config.model_copy(update={"tool_defaults": defaults})

    def _from_builtin(self, original: InternalServerConfig) -> dict[str, McpServerConfig]:
        name = self.name.text().strip()
        if problem := name_problem(name):
            raise ValueError(f"Name: {problem}")
        options = dict(original.options)
        if original.tool == "workspace":
            root = self.root.text().strip()
            if not root:
                raise ValueError("Folder: choose the folder the workspace tools may read")
            options["root"] = root
        return {name: original.model_copy(update={"options": options})}

    def _from_form(self) -> dict[str, McpServerConfig]:
        name = self.name.text().strip()
        if problem := name_problem(name):
            raise ValueError(f"Name: {problem}")
        kind = self.type.currentText()
        original = self._original
        keep = (
            original.model_dump(
                exclude={
                    "type",
                    "command",
                    "args",
                    "env",
                    "url",
                    "headers",
                    "cwd",
                    "sampling_model",
                    "sampling",
                    "oauth",
                },
                exclude_unset=True,
            )
            if original
            else {}
        )
        if sampling_model := self._sampling_model():
            keep["sampling_model"] = sampling_model
        policy = SamplingPolicy(self.sampling.currentData())
        if policy is not SamplingPolicy.ASK or (original and "sampling" in original.model_fields_set):
            keep["sampling"] = policy  # the default stays unwritten unless the file wrote it
        if kind == "stdio":
            try:
                args = shlex.split(self.args.text())
            except ValueError as error:
                raise ValueError(f"Arguments: {error}") from error
            block: dict[str, Any] = {
                **keep,
                "type": "stdio",
                "command": self.command.text().strip(),
                "args": args,
                "env": _pairs(self.env.toPlainText(), "Environment"),
            }
            if isinstance(original, StdioServerConfig) and original.cwd:
                block["cwd"] = original.cwd
        else:
            block = {
                **keep,
                "type": kind,
                "url": self.url.text().strip(),
                "headers": _pairs(self.headers.toPlainText(), "Headers"),
            }
            if kind == "streamable-http" and (oauth := self.oauth.config()):
                block["oauth"] = oauth
        try:
            return {name: _ADAPTER.validate_python(block)}
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or "server"
            raise ValueError(f"{where}: {first['msg']}") from error

    def _sampling_model(self) -> str | None:
        """The chosen sampling model; None for the chat's.

        Raises:
            ValueError: it is not provider:model, or names a provider the agent does not have.
        """
        text = self.sampling_model.currentText().strip()
        if not text or text == CHAT_MODEL:
            return None
        if problem := model_problem(text, self._providers):
            raise ValueError(f"Sampling model: {problem}")
        return text

    def _from_json(self) -> dict[str, McpServerConfig]:
        try:
            data = json.loads(self.json.toPlainText())
        except json.JSONDecodeError as error:
            raise ValueError(f"Not valid JSON: {error.msg} at line {error.lineno}") from error
        imported = servers_from_mcp_json(data, source="The pasted text")
        if not imported.mcp_servers:
            problems = "; ".join(imported.report.skipped + imported.report.warnings) or "no server in it"
            raise ValueError(f"Nothing to add: {problems}")
        out = {}
        for name, block in imported.mcp_servers.items():
            try:
                out[name] = _ADAPTER.validate_python(block)
            except ValidationError as error:
                raise ValueError(f"{name}: {error.errors()[0]['msg']}") from error
        return out
