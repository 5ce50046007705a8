"""The rule importers over a small tree of real-shaped sources (one per row of issue 17): every
source imports without a traceback, into a complete agent or not at all, and every rule body
arrives as written (after whitespace normalisation)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_core.agent import AGENT_FILE, load_agent
from agent_core.agent._frontmatter import split_frontmatter
from agent_core.agent.importers import import_source
from agent_core.agent.importers._mdt import split_mdt
from agent_core.errors import ContextDeskError

CORPUS = Path(__file__).parents[2] / "fixtures" / "importers" / "rules-corpus"

# Every way a user may point at these sources: a project, a rule file, a legacy agent's file.
SOURCES = sorted(
    [
        *CORPUS.iterdir(),
        CORPUS / "cursorrules-only" / ".cursorrules",
        CORPUS / "tspark-agent" / "tspark.json",
        *(CORPUS / "cursor-both" / ".cursor" / "rules").glob("*.md*"),
    ]
)


def normalised(text: str) -> str:
    return re.sub(r"\s+", " ", text.removeprefix("\ufeff")).strip()


def source_bodies(source: Path) -> list[str]:
    """The body of every rule or reference file ``source`` stands for, read independently."""
    folder = source if source.is_dir() else source.parent
    if source.is_file() and source.name not in ("tspark.json", "tsagent.json"):
        files = [source]
    else:
        files = [p for p in folder.rglob("*") if p.is_file() and p.suffix in (".mdt", ".mdc", ".md")]
        files += [p for p in (folder / ".cursorrules", folder / ".cursor" / "rules") if p.is_file()]
        files = [p for p in files if p.name != "prompt.md"]
    bodies = []
    for file in files:
        text = file.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
        if file.suffix == ".mdt":
            bodies.append(split_mdt(text).body)
        elif file.suffix in (".mdc", ".md"):
            bodies.append(split_frontmatter(text).body)
        else:
            bodies.append(text)
    return sorted(normalised(body) for body in bodies)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: str(p.relative_to(CORPUS)))
def test_every_source_imports_whole_with_its_rule_bodies_unchanged(source: Path, tmp_path: Path) -> None:
    target = tmp_path / "agent"
    try:
        import_source(source, target)
    except ContextDeskError:  # refused with a message: then nothing at all was written
        assert not target.exists()
        raise
    assert (target / AGENT_FILE).is_file()
    agent = load_agent(target)
    assert agent.errors == []
    imported = [*agent.rules.values(), *agent.references.values()]
    assert sorted(normalised(item.text) for item in imported) == source_bodies(source)
    assert [p.name for p in tmp_path.iterdir()] == ["agent"]  # no temporary folder left


def test_importing_the_whole_corpus_twice_into_one_agent_changes_nothing_the_second_time(
    tmp_path: Path,
) -> None:
    target = tmp_path / "agent"
    for source in SOURCES:
        import_source(source, target)
    before = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}
    for source in SOURCES:
        report = import_source(source, target)
        assert report.created == [] and report.changed == []
    assert {p: p.read_bytes() for p in target.rglob("*") if p.is_file()} == before
