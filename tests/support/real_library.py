"""An agent with a library of real references: the public agent and skill files the fixtures keep
(each folder's README names its source), each written as an agent-mode reference with its own
name, description and text (the shape a TsAgent library import gives)."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import yaml

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from tests.support.paths import FIXTURES

__all__ = ["library_agent", "library_files"]

LIBRARY_DIRS = (
    "claude_agents",
    "claude_agents_corpus",
    "benign_skills",
    "skill_disclosure/skills",
    "skill_import/collection",
    "duplicate_items",
)
_DESCRIPTION = re.compile(r"^description:\s*(.+)$", re.MULTILINE)
_SLUG = re.compile(r"[^a-z0-9]+")


def library_files() -> list[Path]:
    """Every real file of the library, each text once, in a stable order."""
    seen: set[str] = set()
    files = []
    for folder in LIBRARY_DIRS:
        for path in sorted((FIXTURES / folder).rglob("*.md")):
            if path.name == "README.md" or "TEMPLATE" in path.parts:
                continue
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            if digest not in seen:
                seen.add(digest)
                files.append(path)
    return files


def library_agent(root: Path, count: int) -> Agent:
    """An agent at ``root`` whose ``count`` references are the first ``count`` library files."""
    files = library_files()
    assert len(files) >= count, f"the library has {len(files)} files"
    (root / "references").mkdir(parents=True)
    (root / "agent.yaml").write_text("name: library\n", encoding="utf-8")
    taken: set[str] = set()
    for path in files[:count]:
        name = _name(path, taken)
        description, body = _parts(path.read_text(encoding="utf-8"))
        header = f"---\ninclude: agent\ndescription: {json.dumps(description)}\n---\n"
        (root / "references" / f"{name}.md").write_text(header + body, encoding="utf-8")
    return load_agent(root)


def _name(path: Path, taken: set[str]) -> str:
    stem = (
        path.parent.name if path.name == "SKILL.md" else path.name.removesuffix(".md").removesuffix(".agent")
    )
    name = _SLUG.sub("-", stem.lower()).strip("-")
    if name in taken:
        name = f"{_SLUG.sub('-', path.parent.name.lower()).strip('-')}-{name}"
    number, unique = 2, name
    while unique in taken:
        unique, number = f"{name}-{number}", number + 1
    taken.add(unique)
    return unique


def _parts(text: str) -> tuple[str, str]:
    """The file's description (its header's, else its first line of prose) and its body."""
    header, body = "", text
    if text.startswith("---"):
        _, header, body = text.split("---", 2)
    description = ""
    try:
        meta = yaml.safe_load(header) if header else None
        if isinstance(meta, dict):
            description = str(meta.get("description") or "")
    except yaml.YAMLError:
        found = _DESCRIPTION.search(header)
        description = found.group(1).strip().strip("\"'") if found else ""
    if not description:
        prose = [line.strip() for line in body.splitlines() if line.strip() and not line.startswith("#")]
        description = prose[0] if prose else ""
    return " ".join(description.split())[:300], body.strip() + "\n"
