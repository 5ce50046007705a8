"""What the Skills section asks of the core, each on the core thread: a skill's include mode or
enabled written to agent.yaml's ``skills:`` entry (the agent then reloads), a folder of skills
imported into the agent, and a SKILL.md read for viewing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QObject, Signal

from agent_core.agent._text_file import FileRefused, outside_problem, read_head
from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.config_keys import write_setting
from agent_core.agent.importers import SKILL_IMPORTERS, ImportReport, import_source
from agent_core.errors import AgentFileError, ContextDeskError
from desktop.bridge import CoreBridge
from desktop.controllers.workspace_host import WorkspaceHost

__all__ = [
    "MAX_SKILL_VIEW_BYTES",
    "SkillActions",
    "SkillFileText",
    "read_skill_file",
    "write_skill_setting",
]

# What "View SKILL.md" shows at most; a longer file shows its start and says it was cut.
MAX_SKILL_VIEW_BYTES = 1024 * 1024


def write_skill_setting(agent: Agent, name: str, key: str, value: str) -> bool:
    """Set ``skills.NAME.KEY`` (``include`` or ``enabled``) in the agent's agent.yaml, changing only
    that line; returns whether the file changed. Blocking: file IO.

    Raises:
        AgentFileError: agent.yaml cannot be read, or the value is not valid for the key.
        AtomicWriteError: agent.yaml could not be written; it is unchanged.
    """
    # A loaded skill's name is its folder's, which the loader allows only without dots: it is
    # always one step of the dotted key.
    return write_setting(agent.root / AGENT_FILE, f"skills.{name}.{key}", value)


@dataclass(frozen=True)
class SkillFileText:
    path: Path
    text: str
    truncated: bool  # the file is longer than MAX_SKILL_VIEW_BYTES: only its start is in ``text``


def read_skill_file(path: Path, root: Path, limit: int = MAX_SKILL_VIEW_BYTES) -> SkillFileText:
    """The start of a skill's SKILL.md for viewing: at most ``limit`` bytes, never through a link
    out of the agent folder ``root``, never a named pipe or device (a skill may come from anyone).

    Raises:
        AgentFileError: the file is outside the agent folder, not a regular file, or unreadable.
    """
    if outside_problem(path, root) is not None:
        raise AgentFileError(
            f"{path} leads outside the agent folder, so it is not shown: replace the link with the file"
        )
    try:
        data, truncated = read_head(path, limit)
    except FileRefused as refused:
        if not (path.exists() or path.is_symlink()):
            raise AgentFileError(
                f"cannot read {path}: it is gone; check that the skill's folder is still there"
            ) from refused
        raise AgentFileError(f"{path} {refused.message}: {refused.fix}") from refused
    text = data.decode("utf-8", errors="replace")
    return SkillFileText(path, text, truncated)


class SkillActions(QObject):
    """Runs the Skills section's requests on the core thread and says how they ended."""

    failed = Signal(str)  # what went wrong and what to do
    imported = Signal(object)  # ImportReport of an import into the open agent
    file_read = Signal(object)  # SkillFileText, for "View SKILL.md"

    def __init__(self, bridge: CoreBridge, host: WorkspaceHost, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.host = host

    def set_include(self, name: str, mode: str) -> None:
        self._write(name, "include", mode)

    def set_enabled(self, name: str, enabled: bool) -> None:
        self._write(name, "enabled", "true" if enabled else "false")

    def _write(self, name: str, key: str, value: str) -> None:
        agent = self.host.agent
        if agent is None:
            return

        def done(changed: bool) -> None:
            if changed:
                self.host.reload_agent()

        self.bridge.call(write_skill_setting, agent, name, key, value, on_result=done, on_error=self._report)

    def import_folder(self, source: Path) -> None:
        """Import the skills of ``source`` (a skill folder, a folder of skills, a project) into the
        open agent; ``imported`` carries the report, then the agent reloads. Skills only: the
        report lists what else the folder holds (a collection's AGENTS.md) and how to import it."""
        agent = self.host.agent
        if agent is None:
            return

        def done(report: ImportReport) -> None:
            self.imported.emit(report)
            self.host.reload_agent()

        self.bridge.call(
            lambda: import_source(source, agent.root, only=SKILL_IMPORTERS),
            on_result=done,
            on_error=self._report,
        )

    def view_file(self, path: Path) -> None:
        agent = self.host.agent
        if agent is None:
            return
        self.bridge.call(
            read_skill_file, path, agent.root, on_result=self.file_read.emit, on_error=self._report
        )

    def _report(self, error: BaseException) -> None:
        self.failed.emit(str(error) if isinstance(error, ContextDeskError) else repr(error))
