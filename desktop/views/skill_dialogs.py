"""Joins the Skills section to :class:`~desktop.controllers.skill_actions.SkillActions` and shows
what comes back: the folder to import (asked with a folder dialog), the import's report, a SKILL.md,
a failure; and each listed agent's skills to :class:`~desktop.controllers.skill_trust.SkillTrustChecks`,
whose warnings the section marks. A failed write reloads the agent, so the section shows agent.yaml as it really is."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMessageBox, QWidget

from agent_core.agent.importers import ImportReport
from desktop.bridge import CoreBridge
from desktop.controllers.skill_actions import SkillActions, SkillFileText
from desktop.controllers.skill_trust import SkillTrustChecks
from desktop.controllers.workspace_host import WorkspaceHost
from desktop.dialogs.import_report import ImportReportDialog
from desktop.dialogs.skill_file import SkillFileDialog
from desktop.views.file_dialogs import choose_folder
from desktop.views.skills_panel import SkillsSection

__all__ = ["IMPORT_FOLDER_TITLE", "SkillDialogs"]

IMPORT_FOLDER_TITLE = (
    "Import skills: a skill folder, a folder of skills (.claude/skills, a cloned collection) or a project"
)


class SkillDialogs(QObject):
    def __init__(
        self, section: SkillsSection, bridge: CoreBridge, host: WorkspaceHost, window: QWidget
    ) -> None:
        super().__init__(window)
        self.window = window
        self.host = host
        self.actions = SkillActions(bridge, host, self)
        section.include_requested.connect(self.actions.set_include)
        section.enabled_requested.connect(self.actions.set_enabled)
        section.view_requested.connect(self.actions.view_file)
        section.import_requested.connect(self.import_skills)
        self.actions.imported.connect(self.show_report)
        self.actions.file_read.connect(self.show_file)
        self.actions.failed.connect(self.show_failure)
        self.trust = SkillTrustChecks(bridge, self)
        section.agent_shown.connect(self.trust.check)
        self.trust.checked.connect(section.set_warnings)

    def import_skills(self) -> None:
        """Ask for a folder and import it into the open agent."""
        if self.host.agent is None:
            return
        folder = choose_folder(self.window, IMPORT_FOLDER_TITLE)
        if folder is not None:
            self.actions.import_folder(folder)

    def show_report(self, report: ImportReport) -> ImportReportDialog:
        dialog = ImportReportDialog(report, self.window)
        dialog.open()
        return dialog

    def show_file(self, file: SkillFileText) -> SkillFileDialog:
        dialog = SkillFileDialog(file, self.window)
        dialog.show()
        return dialog

    def show_failure(self, message: str) -> QMessageBox:
        self.host.reload_agent()
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Skills", message, QMessageBox.StandardButton.Ok, self.window
        )
        box.open()
        return box
