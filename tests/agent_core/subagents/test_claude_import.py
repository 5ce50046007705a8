"""Claude Code agent files import unchanged (a project, its .claude folder, the agents folder or
one file) and every one of them runs as a sub-agent."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from agent_core.agent.importers import import_source, read_source
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main
from agent_core.providers.base import ChatRequest
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from tests.support.chat_tools import PythonTools, Tool
from tests.support.delegations import delegation_runner

CLAUDE_AGENTS = Path(__file__).parents[2] / "fixtures" / "claude_agents"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    agents = tmp_path / "project" / ".claude" / "agents"
    agents.mkdir(parents=True)
    for file in CLAUDE_AGENTS.glob("*.md"):
        shutil.copy(file, agents)
    return tmp_path / "project"


@pytest.mark.parametrize("where", ["project", ".claude", "agents", "one file"])
def test_the_importer_finds_agent_files_wherever_it_is_pointed(project: Path, where: str) -> None:
    source = {
        "project": project,
        ".claude": project / ".claude",
        "agents": project / ".claude" / "agents",
        "one file": project / ".claude" / "agents" / "code-reviewer.md",
    }[where]
    imported = read_source(source)
    expected = 1 if where == "one file" else len(list(CLAUDE_AGENTS.glob("*.md")))
    assert len(imported.subagent_files) == expected


def test_every_file_imports_unchanged_and_runs_as_a_sub_agent(
    project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = create_agent(tmp_path / "agent").root
    assert main(["agent", "import", str(project), str(target)]) == 0
    out = capsys.readouterr().out
    assert "imported: sub-agent 'code-reviewer'" in out and "Bash have no ContextDesk counterpart" in out
    originals = sorted(CLAUDE_AGENTS.glob("*.md"))
    assert len(originals) >= 10
    for original in originals:
        copied = target / "subagents" / original.name
        assert copied.read_bytes() == original.read_bytes()  # unchanged, BOM and CRLF included
    agent = load_agent(target)
    assert sorted(agent.subagents) == sorted(p.stem for p in originals)

    provider = ScriptedProvider()
    agent.config.chat.model = "scripted:parent"
    tools = PythonTools([Tool("workspace", "read_file", "Read a file"), Tool("git", "git_log", "Git log")])
    store = ChatStore(tmp_path / "chats.sqlite3")

    run = delegation_runner(agent, store, provider, tools, "say ok")

    for name, subagent in agent.subagents.items():
        provider.enqueue_reply(f"{name} ok")
        delegation = asyncio.run(asyncio.wait_for(run(name), 10))
        assert delegation.result == f"{name} ok" and not delegation.stopped_by, delegation
        request: ChatRequest = provider.requests[-1]
        offered = {t.name for t in request.tools}
        if subagent.tools is not None:
            assert offered <= {
                "workspace__read_file",
                "workspace__list_files",
                "workspace__search_files",
                "git__git_log",
            }
    assert sum(1 for _ in store.children("")) == len(agent.subagents)
    store.close()


def test_importing_again_keeps_what_is_there_unless_overwriting(project: Path, tmp_path: Path) -> None:
    target = create_agent(tmp_path / "agent").root
    import_source(project, target)
    (target / "subagents" / "planner.md").write_text("---\ndescription: mine\n---\nmine\n", encoding="utf-8")
    report = import_source(project, target)
    assert any(
        "sub-agent 'planner': the agent has a different one, which is kept" in line for line in report.skipped
    )
    assert "mine" in (target / "subagents" / "planner.md").read_text()
    import_source(project, target, overwrite=True)
    assert (target / "subagents" / "planner.md").read_bytes() == (CLAUDE_AGENTS / "planner.md").read_bytes()
