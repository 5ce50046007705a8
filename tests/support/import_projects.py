"""A project folder holding several formats ContextDesk imports, built from the test fixtures."""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["project_with_every_part"]


def project_with_every_part(fixtures_dir: Path, root: Path) -> Path:
    """A project holding Cursor rules, Claude Code sub-agents, a skill and an MCP config."""
    shutil.copytree(fixtures_dir / "importers" / "cursor-project", root)
    (root / ".claude" / "agents").mkdir(parents=True)
    shutil.copy(fixtures_dir / "claude_agents" / "planner.md", root / ".claude" / "agents" / "planner.md")
    shutil.copytree(
        fixtures_dir / "desktop_skills" / "create-plan", root / ".claude" / "skills" / "create-plan"
    )
    shutil.copy(fixtures_dir / "import_corpus" / "claude-code" / ".mcp.json", root / ".mcp.json")
    return root
