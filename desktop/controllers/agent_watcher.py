"""Notices edits to the agent's files, made here or in another program, and asks for a reload."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

from agent_core.agent.agent import AGENT_FILE

__all__ = ["AgentWatcher"]

DEBOUNCE_MS = 300  # editors save in several steps (temp file, rename): wait for the last one
# SKILL.md files watched for edits, each a watch of the system's limited number (inotify); a skill
# added or removed is still noticed past this, through the skills folder itself.
MAX_WATCHED_SKILLS = 1000


class AgentWatcher(QObject):
    changed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DEBOUNCE_MS)
        self._timer.timeout.connect(self._fire)
        self._watcher.fileChanged.connect(lambda _p: self._timer.start())
        self._watcher.directoryChanged.connect(lambda _p: self._timer.start())
        self._root: Path | None = None

    def watch(self, root: Path | None) -> None:
        self._root = root
        self._rewatch()

    def _rewatch(self) -> None:
        old = self._watcher.files() + self._watcher.directories()
        if old:
            self._watcher.removePaths(old)
        root = self._root
        if root is None:
            return
        folders = [root / name for name in ("rules", "references", "skills", "subagents", "workflows")]
        paths = [root, root / AGENT_FILE, *folders]
        for folder in (root / "rules", root / "references", root / "subagents", root / "workflows"):
            if folder.is_dir():
                paths += sorted(p for p in folder.iterdir() if p.suffix in (".md", ".yaml", ".yml"))
        if (root / "skills").is_dir():
            paths += sorted((root / "skills").glob("*/SKILL.md"))[:MAX_WATCHED_SKILLS]
        existing = [str(p) for p in paths if p.exists()]
        if existing:
            self._watcher.addPaths(existing)

    def _fire(self) -> None:
        # Atomic saves replace files, which drops them from the watch list: watch again.
        self._rewatch()
        self.changed.emit()
