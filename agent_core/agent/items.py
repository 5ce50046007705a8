"""Context items held by an agent, as plain values inside the core."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent_core.agent.schema import IncludeMode

__all__ = ["DocumentItem", "DocumentKind", "Problem", "Severity"]

DocumentKind = Literal["rule", "reference"]
Severity = Literal["error", "warning"]

FOLDER_OF_KIND: dict[DocumentKind, str] = {"rule": "rules", "reference": "references"}


@dataclass(frozen=True)
class DocumentItem:
    """A rule or a reference: markdown text with a name, a priority and an include mode."""

    kind: DocumentKind
    name: str
    description: str = ""
    priority_level: int = 500
    include: IncludeMode = IncludeMode.MANUAL
    text: str = ""
    path: Path | None = field(default=None, compare=False)
    examples: tuple[str, ...] = ()  # typical requests that need it (its header's ``examples:``)
    globs: tuple[str, ...] = ()  # it joins a request that names a matching file (``globs:``)


@dataclass(frozen=True)
class Problem:
    """Something wrong in an agent folder, with where it is and how to fix it."""

    path: Path
    message: str
    fix: str = ""
    line: int | None = None
    severity: Severity = "error"

    def location(self, root: Path | None = None) -> str:
        shown = self.path
        if root is not None and self.path.is_relative_to(root):
            shown = self.path.relative_to(root)
        return f"{shown}:{self.line}" if self.line else str(shown)

    def describe(self, root: Path | None = None) -> str:
        text = f"{self.location(root)}: {self.severity}: {self.message}"
        return f"{text}. Fix: {self.fix}" if self.fix else text
