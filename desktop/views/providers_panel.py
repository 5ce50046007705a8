"""Providers: add or edit keys (system keyring, ``env://VAR`` or plain text), test, list models.

A key is never required to save: local servers need none, and the hosted providers fall back to
their usual environment variable (OPENAI_API_KEY, ...) when agent.yaml names no key.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QStringListModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.agent import Agent
from agent_core.agent.keyring_secrets import (
    KEYRING_SCHEME,
    keyring_available,
    keyring_reference,
    resolve_keyring_secret,
    store_secret,
)
from agent_core.agent.names import name_problem
from agent_core.agent.schema import AgentConfig, ProviderConfig
from agent_core.agent.secrets import ENV_SCHEME, resolve_secret
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ProviderSettings
from agent_core.providers.catalog import probe_provider
from agent_core.providers.registry import user_provider_types
from desktop.bridge import CoreBridge, Generation
from desktop.controllers.agent_config import save_config_change
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.models.providers import ProviderColumn, ProviderListModel, ProviderRole
from desktop.theme import colors

__all__ = ["ProvidersPanel"]

KEY_MODES = (
    ("keyring", "System keyring"),
    ("env", "Environment variable (env://)"),
    ("plain", "Plain text in agent.yaml"),
    ("none", "No key"),
)
# Local servers (LM Studio, llama.cpp's server, Ollama) and local model files need no key.
KEYLESS_TYPES = frozenset({"openai-compatible", "local"})
BASE_URL_HINTS = {
    "openai-compatible": "e.g. http://localhost:1234/v1 (LM Studio), http://localhost:11434/v1 (Ollama)",
}
BASE_URL_HINT = "only for OpenAI-compatible servers, e.g. http://localhost:11434/v1"
VISION_HINTS = {
    "openai-compatible": "e.g. llava*, qwen2.5vl* (or * for every model); empty: none",
    "local": "never: a model run in ContextDesk reads text only",
}
MAX_PATTERN = 200  # as ProviderConfig allows
VISION_HINT = "empty: the models known to see images; !* for none"


class ProvidersPanel(QWidget):
    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host
        self.agent: Agent | None = None
        self._editing: str | None = None
        self._filling = False  # the form is being filled from a provider, not edited by the user
        self._test_generation = Generation()
        self.model = ProviderListModel(self)
        self.has_keyring = keyring_available()
        layout = QHBoxLayout(self)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        layout.addWidget(splitter)

        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.horizontalHeader().setSectionResizeMode(
            ProviderColumn.BASE_URL, QHeaderView.ResizeMode.Stretch
        )
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._on_selected())
        left_layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        self.new_button = QPushButton("New")
        self.delete_button = QPushButton("Delete")
        self.new_button.clicked.connect(self.new_provider)
        self.delete_button.clicked.connect(self.delete_provider)
        row.addWidget(self.new_button)
        row.addWidget(self.delete_button)
        row.addStretch(1)
        left_layout.addLayout(row)
        splitter.addWidget(left)

        right = QWidget()
        right_layout = QVBoxLayout(right)
        form = QFormLayout()
        self.provider_id = QLineEdit()
        self.provider_id.setPlaceholderText("e.g. openai, ollama")
        self.type = QComboBox()
        self.key_mode = QComboBox()
        for value, label in KEY_MODES:
            self.key_mode.addItem(label, value)
        self.key = QLineEdit()
        self.key.setEchoMode(QLineEdit.EchoMode.Password)
        self.base_url = QLineEdit()
        self.base_url.setPlaceholderText(BASE_URL_HINT)
        # Which of the provider's models are given the images of tool results (visionModels).
        self.vision_models = QLineEdit()
        self.vision_models.setToolTip(
            "Model ids or patterns, separated by commas: * matches anything, !pattern leaves models out. "
            "These models are given the images tools return; the others read a one-line description."
        )
        self.key_note = QLabel()
        self.key_note.setWordWrap(True)
        self.key_note.setStyleSheet(f"color: {colors().muted};")
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {colors().error};")
        form.addRow("Id", self.provider_id)
        form.addRow("Type", self.type)
        form.addRow("Key kept in", self.key_mode)
        form.addRow("Key", self.key)
        form.addRow("", self.key_note)
        form.addRow("Base URL", self.base_url)
        form.addRow("Models that can see images", self.vision_models)
        right_layout.addLayout(form)
        right_layout.addWidget(self.error)
        actions = QHBoxLayout()
        self.test_button = QPushButton("Test connection")
        self.save_button = QPushButton("Save")
        self.save_button.setDefault(True)
        self.saved_note = QLabel()  # "Saved ...": until the form is changed or another provider chosen
        self.saved_note.setStyleSheet(f"color: {colors().muted};")
        actions.addWidget(self.test_button)
        actions.addStretch(1)
        actions.addWidget(self.saved_note)
        actions.addWidget(self.save_button)
        right_layout.addLayout(actions)
        self.test_result = QLabel()
        self.test_result.setWordWrap(True)
        right_layout.addWidget(self.test_result)
        self.models = QStringListModel(self)
        self.model_list = QListView()
        self.model_list.setModel(self.models)
        self.model_list.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        right_layout.addWidget(QLabel("Models"))
        right_layout.addWidget(self.model_list, 1)
        splitter.addWidget(right)
        splitter.setSizes([420, 600])

        self._fill_types()
        self.key_mode.currentIndexChanged.connect(lambda _i: self._on_key_mode())
        self.type.currentIndexChanged.connect(lambda _i: self._on_type())
        for line in (self.provider_id, self.key, self.base_url, self.vision_models):
            line.textChanged.connect(lambda _t: self._on_form_changed())
        for box in (self.type, self.key_mode):
            box.currentIndexChanged.connect(lambda _i: self._on_form_changed())
        self.test_button.clicked.connect(self.test_connection)
        self.save_button.clicked.connect(self.save)
        self._on_key_mode()
        self._on_selected()

    # --- data ---------------------------------------------------------------------------------

    def set_agent(self, agent: Agent) -> None:
        self.agent = agent
        self.model.set_providers(agent.config.providers)
        if self._editing and (row := self.model.row_of(self._editing)) is not None:
            self.table.selectRow(row)

    def _on_selected(self) -> None:
        index = self.table.currentIndex()
        self.delete_button.setEnabled(index.isValid())
        if not index.isValid():
            return
        provider_id = index.data(ProviderRole.ID)
        config: ProviderConfig = index.data(ProviderRole.CONFIG)
        if provider_id != self._editing:
            self.saved_note.clear()  # about another provider
        self._editing = provider_id
        key = config.api_key or ""
        if key.startswith(KEYRING_SCHEME):
            mode, shown = "keyring", ""
        elif key.startswith(ENV_SCHEME):
            mode, shown = "env", key[len(ENV_SCHEME) :]
        elif key:
            mode, shown = "plain", key
        else:
            mode, shown = "none", ""
        with self._filling_form():
            self.provider_id.setText(provider_id)
            self._fill_types(config.type or provider_id)
            self.key_mode.setCurrentIndex(self.key_mode.findData(mode))
            self.key.setText(shown)
            if mode == "keyring":
                self.key.setPlaceholderText("stored in the keyring: type a new key to replace it")
            self.base_url.setText(config.base_url or "")
            # An empty list (no model sees) shows as the pattern that means the same.
            vision = config.vision_models
            self.vision_models.setText("" if vision is None else ", ".join(vision) or "!*")
        self.error.setText("")
        self.test_result.setText("")
        self.models.setStringList([])

    def _fill_types(self, shown: str = "") -> None:
        """The types a user chooses from, plus ``shown`` when it is not one of them (a provider of a
        test type, which can be edited but not picked for a new one); ``shown`` becomes the current."""
        types = user_provider_types()
        if shown and shown not in types:
            types.append(shown)
        current = shown or self.type.currentText()
        self.type.blockSignals(True)
        self.type.clear()
        self.type.addItems(types)
        self.type.setCurrentIndex(max(0, self.type.findText(current)))
        self.type.blockSignals(False)
        self._on_type()

    @contextmanager
    def _filling_form(self) -> Iterator[None]:
        self._filling = True
        try:
            yield
        finally:
            self._filling = False

    def _on_type(self) -> None:
        type_name = self.type.currentText()
        self.base_url.setPlaceholderText(BASE_URL_HINTS.get(type_name, BASE_URL_HINT))
        self.vision_models.setPlaceholderText(VISION_HINTS.get(type_name, VISION_HINT))
        self.vision_models.setEnabled(type_name != "local")
        if self._editing is None and not self._filling and not self.key.text().strip():
            self.key_mode.setCurrentIndex(self.key_mode.findData(self._default_key_mode(type_name)))

    def _default_key_mode(self, type_name: str) -> str:
        if type_name in KEYLESS_TYPES:
            return "none"
        return "keyring" if self.has_keyring else "env"

    def _on_form_changed(self) -> None:
        """What was said about the form ("Saved", a test's result, an error) is about the form as it
        was: it goes, or (an error) is checked again."""
        if self._filling:
            return
        self.saved_note.clear()
        if self.test_result.text():
            self._test_generation.next()  # a test still running answers for the old values
            self.test_button.setEnabled(True)
            self.test_result.clear()
            self.models.setStringList([])
        if self.error.text():
            try:
                self._form_config()
            except ValueError as error:
                self.error.setText(str(error))
            else:
                self.error.setText("")

    def _on_key_mode(self) -> None:
        mode = self.key_mode.currentData()
        self.key.setEnabled(mode != "none")
        self.key.setEchoMode(QLineEdit.EchoMode.Normal if mode == "env" else QLineEdit.EchoMode.Password)
        self.key.setPlaceholderText(
            {
                "env": "VARIABLE name, e.g. OPENAI_API_KEY",
                "keyring": "the API key",
                "plain": "the API key",
            }.get(mode, "")
        )
        notes = {
            "keyring": "The key goes to the system keyring; agent.yaml only says where to find it."
            if self.has_keyring
            else "No system keyring is available here: choose Environment variable, or Plain text if you accept the key in agent.yaml.",
            "env": "Read from the environment when used; nothing secret is written.",
            "plain": "The key is written into agent.yaml as it is: do not share or commit that file.",
            "none": "For local servers that need no key.",
        }
        self.key_note.setText(notes.get(mode, ""))

    def new_provider(self) -> None:
        self.table.clearSelection()
        self._editing = None
        self.saved_note.clear()
        self.error.setText("")
        with self._filling_form():
            self._fill_types()
            self.provider_id.clear()
            self.key.clear()
            self.base_url.clear()
            self.vision_models.clear()
            self.key_mode.setCurrentIndex(
                self.key_mode.findData(self._default_key_mode(self.type.currentText()))
            )
        self.provider_id.setFocus()

    # --- saving -------------------------------------------------------------------------------

    def _key_value(self, provider_id: str) -> tuple[str | None, str | None]:
        """(what agent.yaml holds, the secret to put in the keyring). An empty key is no key: it
        never stops a save (the provider then reads its usual environment variable, if any)."""
        mode, text = self.key_mode.currentData(), self.key.text().strip()
        if mode == "none":
            return None, None
        if mode == "env":
            name = text.removeprefix(ENV_SCHEME)
            return (f"{ENV_SCHEME}{name}", None) if name else (None, None)
        if mode == "plain":
            return (text or None), None
        agent_name = self.agent.name if self.agent else "agent"
        reference = keyring_reference(agent_name, provider_id)
        existing = self.agent.config.providers.get(provider_id) if self.agent else None
        if not text:
            if existing is not None and existing.api_key == reference:
                return reference, None  # keep the stored key
            return None, None
        if not self.has_keyring:
            raise ValueError(
                "Key: no system keyring is available here; choose Environment variable or Plain text"
            )
        return reference, text

    def _form_config(self) -> tuple[str, ProviderConfig, str | None]:
        """(id, config, secret for the keyring) from the form.

        Raises:
            ValueError: what to change, starting with the field's name.
        """
        provider_id = self.provider_id.text().strip()
        if problem := name_problem(provider_id):
            raise ValueError(f"Id: {problem}")
        if (
            self.agent is not None
            and provider_id != self._editing
            and provider_id in self.agent.config.providers
        ):
            raise ValueError(f"Id: this agent already has a provider '{provider_id}'")
        stored, secret = self._key_value(provider_id)
        type_name = self.type.currentText()
        config = ProviderConfig(
            type=None if type_name == provider_id else type_name,
            api_key=stored,
            base_url=self.base_url.text().strip() or None,
            vision_models=self._vision_patterns(),
        )
        return provider_id, config, secret

    def _vision_patterns(self) -> list[str] | None:
        """The patterns typed, or None (empty: the provider's known vision models).

        Raises:
            ValueError: a pattern is too long to be a model name.
        """
        patterns = [p.strip() for p in self.vision_models.text().split(",") if p.strip()]
        if too_long := next((p for p in patterns if len(p) > MAX_PATTERN), None):
            raise ValueError(f"Models that can see images: {too_long[:40]!r}… is not a model name or pattern")
        return patterns or None

    def save(self) -> None:
        agent = self.agent
        if agent is None:
            return
        try:
            provider_id, config, secret = self._form_config()
        except ValueError as error:
            self.error.setText(str(error))
            return
        self.error.setText("")
        previous = self._editing
        stored = config.api_key

        def change(agent_config: AgentConfig) -> None:
            providers = dict(agent_config.providers)
            if previous and previous != provider_id:
                providers.pop(previous, None)
            old = providers.get(provider_id)
            # What the form does not show (headers, options, ...) is kept; what it leaves empty goes.
            values = old.model_dump(exclude_unset=True) if old is not None else {}
            for field, value in (
                ("type", config.type),
                ("api_key", config.api_key),
                ("base_url", config.base_url),
                ("vision_models", config.vision_models),
            ):
                if value is None:
                    values.pop(field, None)
                else:
                    values[field] = value
            providers[provider_id] = ProviderConfig.model_validate(values)
            agent_config.providers = providers

        def write() -> None:
            if secret is not None and stored is not None:
                store_secret(stored, secret)
            save_config_change(agent, change)

        def done(_: None) -> None:
            self._editing = provider_id
            with self._filling_form():
                self.key.clear()
            self.saved_note.setText(f"Saved {provider_id}." if stored else f"Saved {provider_id} (no key).")
            self.host.reload_agent()

        self.bridge.call(write, on_result=done, on_error=self._failed)

    def delete_provider(self) -> None:
        agent, provider_id = self.agent, self._editing
        if agent is None or provider_id is None:
            return

        def change(config: AgentConfig) -> None:
            config.providers = {k: v for k, v in config.providers.items() if k != provider_id}

        self.bridge.call(
            save_config_change,
            agent,
            change,
            on_result=lambda _: self.host.reload_agent(),
            on_error=self._failed,
        )

    # --- testing ------------------------------------------------------------------------------

    def _settings_from_form(self) -> ProviderSettings:
        provider_id = self.provider_id.text().strip() or self.type.currentText()
        mode, text = self.key_mode.currentData(), self.key.text().strip()
        api_key: str | None = None
        if mode == "env" and text:
            api_key = resolve_secret(
                f"{ENV_SCHEME}{text.removeprefix(ENV_SCHEME)}", what=f"the {provider_id} API key"
            )
        elif mode in ("plain", "keyring") and text:
            api_key = text
        elif mode == "keyring" and self.agent is not None:
            stored = self.agent.config.providers.get(provider_id)
            if stored is not None and stored.api_key:
                api_key = resolve_keyring_secret(stored.api_key, what=f"the {provider_id} API key")
        return ProviderSettings(
            provider_id=provider_id,
            type=self.type.currentText(),
            api_key=api_key,
            base_url=self.base_url.text().strip() or None,
        )

    def test_connection(self) -> None:
        try:
            settings = self._settings_from_form()
        except ContextDeskError as error:
            self.test_result.setStyleSheet(f"color: {colors().error};")
            self.test_result.setText(str(error))
            return
        token = self._test_generation.next()
        self.test_result.setStyleSheet("")
        self.test_result.setText("Testing…")
        self.test_button.setEnabled(False)

        def done(models: list[str]) -> None:
            if not self._test_generation.is_current(token):
                return
            self.test_button.setEnabled(True)
            self.models.setStringList(models)
            self.test_result.setStyleSheet("")
            self.test_result.setText(
                f"Connected: {len(models)} model{'' if len(models) == 1 else 's'}."
                if models
                else "Connected; this provider does not list its models."
            )

        def failed(error: BaseException) -> None:
            if not self._test_generation.is_current(token):
                return
            self.test_button.setEnabled(True)
            self.models.setStringList([])
            self.test_result.setStyleSheet(f"color: {colors().error};")
            self.test_result.setText(str(error) if isinstance(error, ContextDeskError) else repr(error))

        self.bridge.submit(probe_provider(settings), done, failed)

    def _failed(self, error: BaseException) -> None:
        self.error.setText(str(error) if isinstance(error, ContextDeskError) else repr(error))
