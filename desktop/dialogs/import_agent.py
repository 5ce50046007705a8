"""File ▸ Import agent…: one dialog for what to import and where it goes. The source is a file (a
TsAgent agent, a Cursor rule, an MCP config) or a folder (``.cursor/rules``, ``.claude``, a skills
folder, or a project holding several of these, imported in one go); the dialog shows what the core
found in it before anything is written. The target is an agent folder to add to, or a new folder
typed by name, which the import creates. The core decides both (``detected_formats``,
``check_import_target``) and imports; this dialog only asks and reports."""

from __future__ import annotations

import html
from pathlib import Path

import shiboken6
from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from agent_core.agent.importers import (
    AgentImportError,
    ImportReport,
    check_import_target,
    detected_formats,
    import_source,
)
from agent_core.errors import ContextDeskError
from desktop.bridge import CoreBridge, Generation
from desktop.theme import colors
from desktop.views.file_dialogs import choose_file, choose_folder

__all__ = ["AGENTS_FOLDER", "ImportAgentDialog", "suggested_target"]

AGENTS_FOLDER = "contextdesk-agents"  # in the home folder: where a new agent is suggested
_PART_NAMES = {"rules", "agents", "skills", "instructions"}  # a part's folder: the project names it
FILE_FILTER = "Agents, rules and MCP configs (*.yaml *.yml *.json *.mdc *.md);;All files (*)"


def target_from_text(text: str, home: Path | None = None) -> Path | None:
    """The folder a typed target names: a path as typed, or a bare name ("Webshop helper") as a new
    folder under ``~/contextdesk-agents``, where new agents are suggested."""
    text = text.strip()
    if not text:
        return None
    path = Path(text).expanduser()
    if not path.is_absolute() and len(path.parts) == 1 and text not in (".", ".."):
        return (home or Path.home()) / AGENTS_FOLDER / text
    return path


def suggested_target(source: Path, home: Path | None = None) -> Path:
    """A new folder for the agent imported from ``source``, under ``~/contextdesk-agents``, named
    after the project (``~/code/shop/.cursor/rules`` -> ``shop``), numbered when the name is taken."""
    named = source.parent if source.is_file() and source.name.startswith(".") else source
    name = source.stem if source.is_file() and not source.name.startswith(".") else ""
    for folder in (named, *named.parents):
        if name or (folder.name and not folder.name.startswith(".") and folder.name not in _PART_NAMES):
            name = name or folder.name
            break
    base = (home or Path.home()) / AGENTS_FOLDER
    target, number = base / (name or "imported-agent"), 2
    while target.exists():
        target, number = base / f"{name or 'imported-agent'}-{number}", number + 1
    return target


class ImportAgentDialog(QDialog):
    """Emits ``imported(report, target)`` once the import is written; a failure is shown in the
    dialog, which stays open with what the user chose."""

    imported = Signal(object, object)  # ImportReport, Path of the agent folder

    def __init__(
        self,
        bridge: CoreBridge,
        parent: QWidget | None = None,
        *,
        source: Path | None = None,
        intro: str = "",
    ) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.setWindowTitle("Import agent — ContextDesk")
        self._found: list[str] = []
        self._detecting = Generation()
        palette = colors()
        layout = QVBoxLayout(self)
        self.intro = QLabel(
            intro
            or "Import a TsAgent agent, Cursor rules, Claude Code agents and skills, Agent Skills or MCP "
            "servers: a file, or a folder (a project holding several of these is imported in one go)."
        )
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        form = QFormLayout()
        self.source = QLineEdit(str(source) if source else "")
        self.source.setPlaceholderText("a file or a folder to import")
        pick_file = QPushButton("File…")
        pick_file.clicked.connect(self._choose_source_file)
        pick_folder = QPushButton("Folder…")
        pick_folder.clicked.connect(self._choose_source_folder)
        row = QHBoxLayout()
        row.addWidget(self.source, 1)
        row.addWidget(pick_file)
        row.addWidget(pick_folder)
        form.addRow("Import", row)
        self.found = QLabel()
        self.found.setWordWrap(True)
        form.addRow("Found", self.found)
        self.target = QLineEdit()
        self.target.setPlaceholderText(
            f"an agent folder to add to, a new folder (it is created), or a name (~/{AGENTS_FOLDER}/name)"
        )
        pick_target = QPushButton("Choose…")
        pick_target.clicked.connect(self._choose_target)
        row = QHBoxLayout()
        row.addWidget(self.target, 1)
        row.addWidget(pick_target)
        form.addRow("Into agent folder", row)
        self.target_note = QLabel()
        self.target_note.setWordWrap(True)
        form.addRow("", self.target_note)
        layout.addLayout(form)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet(
            f"background-color: {palette.warning_background}; padding: 6px; border-radius: 6px;"
        )
        self.problem.hide()
        layout.addWidget(self.problem)
        layout.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.cancel_button = buttons.button(QDialogButtonBox.StandardButton.Cancel)
        self._importing = False
        self.import_button = QPushButton("Import")
        self.import_button.setDefault(True)
        buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.import_button.clicked.connect(self._import)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self._muted = palette.muted
        self.source.textChanged.connect(self._source_changed)
        self.target.textChanged.connect(self._check_target)
        self.resize(720, 360)
        self._target_ok = False
        self._source_changed()

    # --- what to import ------------------------------------------------------------------------

    def _source_path(self) -> Path | None:
        text = self.source.text().strip()
        return Path(text).expanduser() if text else None

    def _choose_source_file(self) -> None:
        chosen = choose_file(self, "Import a file", FILE_FILTER, self.source.text())
        if chosen is not None:
            self.source.setText(str(chosen))

    def _choose_source_folder(self) -> None:
        chosen = choose_folder(self, "Import a folder", self.source.text())
        if chosen is not None:
            self.source.setText(str(chosen))

    def _source_changed(self) -> None:
        self.problem.hide()
        self._found = []
        source = self._source_path()
        token = self._detecting.next()
        if source is None:
            self.found.setText("")
            self._update_button()
            return
        self.found.setText("Looking…")
        self._update_button()

        def done(found: list[str]) -> None:
            if shiboken6.isValid(self) and self._detecting.is_current(token):  # closed meanwhile: dropped
                self._show_found(source, found)

        def unreadable(error: BaseException) -> None:
            if shiboken6.isValid(self) and self._detecting.is_current(token):
                self.found.setText(str(error) if isinstance(error, ContextDeskError) else repr(error))

        self.bridge.call(detected_formats, source, on_result=done, on_error=unreadable)

    def _show_found(self, source: Path, found: list[str]) -> None:
        self._found = found
        if found:
            self.found.setText("\n".join(f"• {line}" for line in found))
        elif not source.exists():
            self.found.setText(
                f"{source} does not exist: check the path, or choose it with File… or Folder…."
            )
        else:
            self.found.setText(
                "Nothing ContextDesk imports is here: choose a Cursor rules or .claude folder, a skills "
                "folder, an MCP config file, a TsAgent agent or a project folder holding some of them."
            )
        if found and not self.target.text().strip():
            self.target.setText(str(suggested_target(source)))
        self._update_button()

    # --- where it goes ---------------------------------------------------------------------------

    def _target_path(self) -> Path | None:
        return target_from_text(self.target.text())

    def _choose_target(self) -> None:
        chosen = choose_folder(
            self, "The agent folder, or the folder to create the new agent in", self.target.text()
        )
        if chosen is None:
            return
        try:
            check_import_target(chosen)
        except AgentImportError:  # a folder of other files: the new agent goes inside it, by name
            source = self._source_path()
            chosen = chosen / suggested_target(source or chosen, chosen).name
        self.target.setText(str(chosen))

    def _check_target(self) -> None:
        self.problem.hide()
        target = self._target_path()
        self._target_ok = False
        if target is None:
            self.target_note.setText("")
        else:
            try:  # a few file lookups, no reading: quick enough as the user types
                existing = check_import_target(target)
            except AgentImportError as error:
                self.target_note.setText(
                    f"<span style='color:{colors().error}'>{html.escape(str(error))}</span>"
                )
            else:
                self._target_ok = True
                self.target_note.setText(
                    f"<span style='color:{self._muted}'>"
                    + (
                        "Adds to this agent: what it already has is kept."
                        if existing
                        else "A new agent: this folder is created when you import."
                    )
                    + "</span>"
                )
        self._update_button()

    def _update_button(self) -> None:
        self.import_button.setEnabled(bool(self._found) and self._target_ok)

    # --- importing -------------------------------------------------------------------------------

    def _import(self) -> None:
        source, target = self._source_path(), self._target_path()
        if source is None or target is None:
            return
        self._set_importing(True)

        def write() -> ImportReport:
            check_import_target(target)  # again: the folder may have changed since it was typed
            return import_source(source, target)

        def done(report: ImportReport) -> None:
            self._set_importing(False)
            self.imported.emit(report, target)
            self.accept()

        self.bridge.call(write, on_result=done, on_error=self._failed)

    def _set_importing(self, importing: bool) -> None:
        """While the import runs the dialog stays open: it is written all or nothing either way,
        and its report and the agent open when it is done."""
        self._importing = importing
        self.import_button.setText("Importing…" if importing else "Import")
        self.import_button.setEnabled(not importing)
        if self.cancel_button is not None:
            self.cancel_button.setEnabled(not importing)

    def reject(self) -> None:
        if not self._importing:  # Esc while importing: it finishes first
            super().reject()

    def _failed(self, error: BaseException) -> None:
        if not shiboken6.isValid(self):
            return
        self._set_importing(False)
        text = str(error) if isinstance(error, ContextDeskError) else repr(error)
        self.problem.setText(f"Nothing was imported: {text}")
        self.problem.show()
        self._update_button()
