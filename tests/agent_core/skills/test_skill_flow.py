"""The issue's whole flow in the core, with the real selector (MiniLM), the real implicit ``skills``
server and a real script run: a message selects a skill, the model loads it, then runs one of its
scripts after the user approves the exact command line, and the reply's RequestContext shows the
three steps. The model is scripted at the provider boundary."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ContextBuilt,
    ReplyFinished,
    ToolCallFinished,
)
from agent_core.context.items import ItemRef
from agent_core.context.selection import ContextSelector
from agent_core.context.skill_disclosure import LOADED_NOW_REASON
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.workspace import Workspace
from tests.support.agent_files import write
from tests.support.paths import FIXTURES
from tests.support.scripted_models import OnePool

pytestmark = pytest.mark.slow  # the real MiniLM model

SKILLS = FIXTURES / "skill_disclosure" / "skills"
CI_MESSAGE = "The GitHub Actions checks on my pull request keep failing, can you fix the CI?"

# A harmless stand-in for the real skill's scripts/inspect_pr_checks.py: it reports and leaves a file.
INSPECT_SCRIPT = """import pathlib, sys
pathlib.Path("checks.txt").write_text("lint: failing\\n")
print("checks of PR", sys.argv[1], "- lint: failing")
"""


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


def test_a_skill_is_selected_loaded_and_its_script_run_with_approval_and_the_reply_shows_all_three(
    tmp_path: Path, selector: ContextSelector
) -> None:
    root, work = tmp_path / "agent", tmp_path / "work"
    work.mkdir()
    write(
        root / "agent.yaml",
        f"name: flow\nchat:\n  toolPermission: allow\nmcpServers:\n  workspace:\n    type: internal\n"
        f"    tool: workspace\n    options: {{root: {work}}}\n    toolDefaults: {{include: manual}}\n",
    )
    shutil.copytree(SKILLS, root / "skills")
    write(root / "skills/gh-fix-ci/scripts/inspect_pr_checks.py", INSPECT_SCRIPT)
    agent = load_agent(root)
    provider = ScriptedProvider()
    provider.enqueue_tool_call("skills__load", {"name": "gh-fix-ci"}, id="load-1")
    run_arguments = {"name": "gh-fix-ci", "script": "scripts/inspect_pr_checks.py", "args": ["42"]}
    provider.enqueue_tool_call("skills__run_script", run_arguments, id="run-1")
    provider.enqueue_reply("The lint check fails on PR 42.")
    workspace = Workspace(
        agent, store=ChatStore(tmp_path / "db.sqlite3"), selector=selector, providers=OnePool(provider)
    )

    async def scenario() -> list[ChatEvent]:
        try:
            await workspace.start_tools()
            events: list[ChatEvent] = []
            async for event in workspace.new_chat().send(CI_MESSAGE):
                events.append(event)
                if isinstance(event, ApprovalRequest):
                    event.decide(ApprovalDecision.ALLOW_ONCE)
            return events
        finally:
            await workspace.aclose()

    events = asyncio.run(scenario())

    # 1. Selection offered the skill's catalogue line.
    first = next(e for e in events if isinstance(e, ContextBuilt)).context
    [selected] = first.of_type("skill")
    assert (selected.ref, selected.skill_state) == (ItemRef("skill", "gh-fix-ci"), "catalogue")
    # 3. The script run was asked about (toolPermission allow notwithstanding), with its command line.
    [approval] = [e for e in events if isinstance(e, ApprovalRequest)]
    assert (approval.server, approval.tool, approval.every_call) == ("skills", "run_script", True)
    assert "scripts/inspect_pr_checks.py 42" in approval.target
    load, run = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert (load.tool, load.is_error, run.tool, run.is_error) == ("load", False, "run_script", False)
    assert (work / "checks.txt").read_text() == "lint: failing\n"  # it really ran, in the workspace
    # The reply's RequestContext: the skill loaded (2.), and both tool calls in it.
    finished = next(e for e in events if isinstance(e, ReplyFinished))
    context = finished.message.request_context
    assert context is not None
    [skill] = context.of_type("skill")
    assert (skill.skill_state, skill.reason) == ("loaded", LOADED_NOW_REASON)
    refs = {item.ref for item in context.items}
    assert {ItemRef("tool", "load", "skills"), ItemRef("tool", "run_script", "skills")} <= refs
