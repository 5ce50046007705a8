"""What a new chat shows before its first message: a short welcome that says what rules,
references and tools are, with one example message for each (selection and View Context at work)
and the workspace folder to choose. Each new chat offers the examples not tried yet, until all
were tried or the user hides them; afterwards, one line."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from agent_core.agent import Agent
from agent_core.agent.schema import InternalServerConfig
from desktop.settings import app_settings
from desktop.theme import colors

__all__ = [
    "EXAMPLES",
    "TRIED_KEY",
    "WELCOMED_KEY",
    "EmptyChat",
    "examples_served_by",
    "untried_examples",
    "welcomed",
]

WELCOMED_KEY = "ui/welcomed"  # every example tried, or the examples hidden: one line from then on
TRIED_KEY = "ui/welcome-tried"  # the messages of the examples tried so far
#: One example per kind of item, for the default agent: (what it shows, the message). Each is run
#: on the bundled model in a test; where that model's answer cannot be trusted, the note says which
#: model it needs (the bundled model finds the reference but answers from it wrongly).
EXAMPLES = (
    ("A rule chosen for the message", "Write a function that checks whether a word is a palindrome"),
    (
        "A reference it looks up (View Context shows it; the small bundled model may answer from it "
        "wrongly, a larger model chosen in the model box answers from it)",
        "How do I add a rule to my agent?",
    ),
    ("A tool it calls (you approve it)", "List the files in my documents folder"),
)
#: What each example needs of the open agent (by message): the default agent's item that answers
#: it. An agent without it (one imported from elsewhere, say) would answer the example from
#: nothing, or with a made-up file listing, so its example is not offered there.
_NEEDS = {
    EXAMPLES[0][1]: ("rule", "code-answers"),
    EXAMPLES[1][1]: ("reference", "using-contextdesk"),
    EXAMPLES[2][1]: ("server", "workspace"),
}
INTRO = (
    "<h3>Welcome to ContextDesk</h3>"
    "<p>Your assistant works from context you can see: <b>rules</b> (how it should answer), "
    "<b>references</b> (documents it may use) and <b>tools</b> (what it can do on your computer). "
    "Each is always in a chat, added by you, or chosen for each message. After a reply, "
    "<b>View Context</b> shows exactly what it used and why.</p>"
    "<p>Try one:</p>"
)
SHORT = "Ask anything. Type @ to add a rule or reference, / for commands."


def welcomed() -> bool:
    """Whether the welcome is done (every example tried, or hidden): new chats show one line."""
    return bool(app_settings().value(WELCOMED_KEY, False, type=bool))


def _tried() -> list[str]:
    value = app_settings().value(TRIED_KEY, [])
    if isinstance(value, str):  # QSettings gives a one-item list back as its item
        return [value]
    return [str(item) for item in value] if isinstance(value, list) else []


def examples_served_by(agent: Agent) -> frozenset[str]:
    """The example messages ``agent`` has the item for: the rule, the reference, the workspace
    tools (an enabled built-in workspace server) each example shows at work."""
    have = {
        "rule": set(agent.rules),
        "reference": set(agent.references),
        "server": {
            name
            for name, server in agent.config.mcp_servers.items()
            if isinstance(server, InternalServerConfig) and server.tool == "workspace" and server.enabled
        },
    }
    return frozenset(message for message, (kind, name) in _NEEDS.items() if name in have[kind])


def untried_examples() -> list[tuple[str, str]]:
    """The examples a new chat offers: those not tried yet, none once the welcome is done."""
    if welcomed():
        return []
    tried = set(_tried())
    return [example for example in EXAMPLES if example[1] not in tried]


class EmptyChat(QWidget):
    example_chosen = Signal(str)  # a message to put in the box
    workspace_requested = Signal()  # choose the folder the workspace tools may read

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        examples = untried_examples()
        self.first_run = bool(examples)  # the welcome and its examples, rather than one line
        self.label = QLabel(INTRO)
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.RichText)
        if not self.first_run:
            self._show_one_line()
        layout.addWidget(self.label)
        self.example_buttons: list[QPushButton] = []
        self._example_rows: dict[str, QWidget] = {}  # message -> its note and button
        self.examples_box = QWidget()  # the examples and the folder: hidden whole by "Hide"
        box = QVBoxLayout(self.examples_box)
        box.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.examples_box)
        if self.first_run:
            for what, message in examples:
                example = QWidget()
                example_layout = QVBoxLayout(example)
                example_layout.setContentsMargins(0, 0, 0, 0)
                # The note sits above its button, not beside it, so the smallest window
                # (1024 px wide, with the side panels open) still shows every example whole.
                note = QLabel(what)
                note.setWordWrap(True)  # a note that names the model it needs is long
                note.setStyleSheet(f"color: {colors().muted};")
                example_layout.addWidget(note)
                row = QHBoxLayout()
                button = QPushButton(message)
                button.setToolTip(what)
                button.clicked.connect(lambda _checked=False, m=message: self._choose(m))
                row.addWidget(button)
                row.addStretch(1)
                example_layout.addLayout(row)
                box.addWidget(example)
                self.example_buttons.append(button)
                self._example_rows[message] = example
            # On a machine without the folder the default agent names (~/Documents), the tool
            # example would fail: say so before it is tried, next to the way to fix it.
            self.no_examples = QLabel(
                "This agent has none of the default agent's example items: ask anything, then "
                "open View Context on the reply to see what was used."
            )
            self.no_examples.setWordWrap(True)
            self.no_examples.setStyleSheet(f"color: {colors().muted};")
            self.no_examples.hide()
            box.addWidget(self.no_examples)
            self.missing_folder = QLabel()
            self.missing_folder.setWordWrap(True)
            self.missing_folder.setStyleSheet(
                f"background-color: {colors().warning_background}; padding: 6px; border-radius: 6px;"
            )
            self.missing_folder.hide()
            box.addWidget(self.missing_folder)
            folder = QHBoxLayout()
            self.workspace_button = QPushButton("Choose the folder its tools may read…")
            self.workspace_button.clicked.connect(self.workspace_requested)
            folder.addWidget(self.workspace_button)
            folder.addStretch(1)
            # New chats keep offering the examples not tried yet; a user who knows enough says so.
            self.hide_button = QPushButton("Hide the examples")
            self.hide_button.setFlat(True)
            self.hide_button.setToolTip("New chats will show one line instead of this welcome.")
            self.hide_button.clicked.connect(self._hide_examples)
            folder.addWidget(self.hide_button)
            box.addLayout(folder)

    def note_workspace_folder(self, folder: str, exists: bool) -> None:
        """Warn when the workspace folder the tools read (``folder``, as people write it) does
        not exist; nothing when it does or there is none."""
        if not self.first_run:
            return
        self.missing_folder.setText(
            f"Your workspace folder {folder} does not exist yet: choose a folder (or create that one) "
            "before trying the tool example."
        )
        self.missing_folder.setVisible(bool(folder) and not exists)

    def offer_only(self, served: frozenset[str]) -> None:
        """Offer only the examples the open agent can answer (:func:`examples_served_by`); with
        none left, the welcome's words stay and a line says why there are no examples."""
        if not self.first_run:
            return
        for message, row in self._example_rows.items():
            row.setVisible(message in served)
        self.no_examples.setVisible(not any(message in served for message in self._example_rows))

    def _choose(self, message: str) -> None:
        tried = [*_tried(), message]
        settings = app_settings()
        settings.setValue(TRIED_KEY, list(dict.fromkeys(tried)))
        if all(example[1] in tried for example in EXAMPLES):
            settings.setValue(WELCOMED_KEY, True)  # the welcome did its job: later chats show one line
        settings.sync()
        self.example_chosen.emit(message)

    def _hide_examples(self) -> None:
        settings = app_settings()
        settings.setValue(WELCOMED_KEY, True)
        settings.sync()
        self.examples_box.hide()
        self._show_one_line()

    def _show_one_line(self) -> None:
        self.label.setText(SHORT)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.label.setStyleSheet(f"color: {colors().muted}; padding: 10px;")
