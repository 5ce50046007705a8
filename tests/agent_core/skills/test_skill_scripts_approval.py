"""skills.run_script in a chat: the real in-process skills server, a scripted model, and the
approval every run asks for (with the exact command line and what is isolated), whatever
toolPermission, permissionRequired, allowReadOnly or the skill's allowed-tools say."""

from __future__ import annotations

import asyncio
import functools
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.workflow_files.loader import parse_workflow
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, ChatEvent, ToolCallFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.cli.chat_command import ask_approval
from agent_core.mcp import McpManager
from agent_core.mcp.builtins import BuiltinContext, BuiltinOptionError, OptionValue
from agent_core.mcp.builtins._skill_scripts import script_options
from agent_core.mcp.builtins.skills import build_skills_server
from agent_core.mcp.roots import agent_roots
from agent_core.providers.retry import stream_with_retries
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.tools.script_sandbox import SandboxMode, sandbox_problem
from agent_core.workflows.engine import WorkflowEngine
from agent_core.workflows.events import WorkflowFinished
from agent_core.workflows.records import WorkflowRunRecord
from agent_core.workflows.run_store import WorkflowRunStore
from tests.support.agent_files import write

SANDBOXED = sandbox_problem(SandboxMode.AUTO) is None  # the app's own check: bubblewrap can sandbox here
WRITE_SCRIPT = "import sys\nopen(sys.argv[1], 'w').write('made by the skill')\nprint('wrote', sys.argv[1])\n"
# A skill that claims it may run anything: it never spares the user a question.
SKILL_MD = """---
name: demo
description: Writes a file in the workspace.
allowed-tools: Bash run_script skills.run_script skills__run_script
---
Run scripts/write.py with the file name.
"""


def agent_folder(tmp_path: Path, permission: str = "allow", sandbox: str = "auto") -> Agent:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    root = tmp_path / "agent"
    write(
        root / "agent.yaml",
        f"""name: scripted
chat:
  model: scripted:x
  toolPermission: {permission}
mcpServers:
  workspace:
    type: internal
    tool: workspace
    options: {{root: {workspace}}}
    toolDefaults: {{include: agent, permissionRequired: false, allowReadOnly: true}}
  skills:
    type: internal
    tool: skills
    options: {{scriptSandbox: {sandbox}, scriptTimeoutSeconds: 30}}
    toolDefaults: {{include: always, permissionRequired: false, allowReadOnly: true}}
    tools:
      run_script: {{include: always, permissionRequired: false}}
""",
    )
    write(root / "skills/demo/SKILL.md", SKILL_MD)
    write(root / "skills/demo/scripts/write.py", WRITE_SCRIPT)
    return load_agent(root)


async def chat(
    agent: Agent,
    store: ChatStore,
    provider: ScriptedProvider,
    messages: Sequence[str],
    decisions: list[ApprovalDecision],
) -> list[ChatEvent]:
    """Every event of ``messages`` sent in one chat, answering each approval from ``decisions``."""
    manager = McpManager(
        agent.config.mcp_servers, skills_source=lambda: agent.skills, roots=agent_roots(agent.config)
    )
    events: list[ChatEvent] = []
    async with manager:
        assert all(status.state == "ready" for status in manager.statuses()), manager.statuses()
        services = ChatServices(
            resolve_provider=lambda model: (provider, "x"),
            tools=manager,
            streamer=functools.partial(stream_with_retries, sleep=_no_sleep),
        )
        session = ChatSession.create(agent, store, services)
        for text in messages:
            async for event in session.send(text):
                events.append(event)
                if isinstance(event, ApprovalRequest):
                    event.decide(decisions.pop(0))
    return events


async def _no_sleep(seconds: float) -> None:
    return None


def run_call(provider: ScriptedProvider, call_id: str, file_name: str) -> None:
    arguments = {"name": "demo", "script": "scripts/write.py", "args": [file_name]}
    provider.enqueue_tool_call("skills__run_script", arguments, id=call_id)
    provider.enqueue_reply("Done.")


@pytest.mark.parametrize("permission", ["allow", "tool"])
def test_every_run_is_asked_about_with_its_command_line_even_when_everything_says_allow(
    tmp_path: Path, permission: str
) -> None:
    agent = agent_folder(tmp_path, permission)
    assert agent.skills["demo"].allowed_tools == (
        "Bash",
        "run_script",
        "skills.run_script",
        "skills__run_script",
    )
    provider = ScriptedProvider()
    run_call(provider, "r1", "first.txt")
    run_call(provider, "r2", "second.txt")
    # "For this chat" on the first run does not spare the second one a question.
    decisions = [ApprovalDecision.ALLOW_FOR_CHAT, ApprovalDecision.ALLOW_ONCE]
    events = asyncio.run(
        chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider, ["make first", "make second"], decisions)
    )

    approvals = [e for e in events if isinstance(e, ApprovalRequest)]
    assert [(a.server, a.tool, a.every_call) for a in approvals] == [("skills", "run_script", True)] * 2
    assert decisions == []
    script = (tmp_path / "agent/skills/demo/scripts/write.py").resolve()
    python = shutil.which("python3")
    assert python is not None
    command = shlex.join([python, str(script), "first.txt"])
    first = approvals[0]
    assert f"as the command line: {command} — " in first.target
    assert (
        f"in {(tmp_path / 'ws').resolve()}, for at most 30 s, with no API keys in its environment."
        in first.target
    )
    if SANDBOXED:
        assert "Sandboxed (bubblewrap): no network, writes only to" in first.target
    else:
        assert "NOT sandboxed:" in first.target
    assert "skills.run_script" in first.action and command in first.action
    finished = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert [(r.approval, r.is_error) for r in finished] == [("allowed_once", False), ("allowed_once", False)]
    assert finished[0].result.startswith("exit code 0")
    assert (tmp_path / "ws/first.txt").read_text() == "made by the skill"
    assert (tmp_path / "ws/second.txt").read_text() == "made by the skill"


def test_a_denied_run_does_not_run(tmp_path: Path) -> None:
    agent = agent_folder(tmp_path)
    provider = ScriptedProvider()
    run_call(provider, "r1", "denied.txt")
    events = asyncio.run(
        chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider, ["make it"], [ApprovalDecision.DENY])
    )
    [record] = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert (record.approval, record.is_error) == ("denied", True)
    assert not (tmp_path / "ws/denied.txt").exists()


def test_the_approval_of_an_unsandboxed_run_says_what_is_not_isolated(tmp_path: Path) -> None:
    agent = agent_folder(tmp_path, sandbox="off")
    provider = ScriptedProvider()
    run_call(provider, "r1", "plain.txt")
    events = asyncio.run(
        chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider, ["make it"], [ApprovalDecision.ALLOW_ONCE])
    )
    [approval] = [e for e in events if isinstance(e, ApprovalRequest)]
    assert approval.target.endswith(
        "NOT sandboxed: the skills server's options.scriptSandbox is off; the script can use the network "
        "and write anywhere you can"
    )
    assert (tmp_path / "ws/plain.txt").exists()


def test_a_run_the_server_will_refuse_says_so_in_the_question_and_the_result(tmp_path: Path) -> None:
    agent = agent_folder(tmp_path)
    provider = ScriptedProvider()
    provider.enqueue_tool_call(
        "skills__run_script", {"name": "demo", "script": "../SKILL.md", "args": []}, id="r1"
    )
    provider.enqueue_reply("I could not.")
    events = asyncio.run(
        chat(agent, ChatStore(tmp_path / "db.sqlite3"), provider, ["go"], [ApprovalDecision.ALLOW_ONCE])
    )
    [approval] = [e for e in events if isinstance(e, ApprovalRequest)]
    assert approval.target.startswith("(it will be refused: '../SKILL.md' goes up with '..'")
    [record] = [e.record for e in events if isinstance(e, ToolCallFinished)]
    assert record.is_error and "only files in the skill's scripts/ folder can run" in record.result


FLOW = """
tools:
  - id: maker
    tool: skills.run_script
states:
  - id: make
    tool_id: maker
    tool_args: {name: demo, script: scripts/write.py, args: ['{{file}}']}
    next: {state_id: end, output_key: made}
"""


def test_a_workflows_tool_state_asks_before_a_run_too(tmp_path: Path) -> None:
    agent = agent_folder(tmp_path, "allow")
    workflow = parse_workflow(tmp_path / "flow.yaml", FLOW, [])
    assert workflow is not None
    asked: list[ApprovalRequest] = []

    async def scenario() -> WorkflowRunRecord | None:
        manager = McpManager(
            agent.config.mcp_servers, skills_source=lambda: agent.skills, roots=agent_roots(agent.config)
        )
        async with manager:
            services = ChatServices(lambda model: (ScriptedProvider(), "x"), None, manager)
            store = ChatStore(tmp_path / "db.sqlite3")
            engine = WorkflowEngine(
                workflow, agent, services, store, WorkflowRunStore(tmp_path / "db.sqlite3")
            )
            async for event in engine.run({"file": "from-flow.txt"}):
                if isinstance(event, ApprovalRequest):
                    asked.append(event)
                    event.decide(ApprovalDecision.ALLOW_FOR_CHAT)
                elif isinstance(event, WorkflowFinished):
                    return event.run
        return None

    record = asyncio.run(scenario())
    assert record is not None and record.status == "finished", record
    assert [(a.tool, a.every_call) for a in asked] == [("run_script", True)]
    assert "from-flow.txt" in asked[0].target
    assert (tmp_path / "ws/from-flow.txt").read_text() == "made by the skill"


def test_the_terminal_offers_once_or_deny_for_a_script_run(monkeypatch: pytest.MonkeyPatch) -> None:
    prompts: list[str] = []
    replies = iter(["c", "o"])  # "for this chat" is not an answer here: asked again

    def typed(prompt: str) -> str:
        prompts.append(prompt)
        return next(replies)

    monkeypatch.setattr("builtins.input", typed)

    async def ask() -> ApprovalDecision:
        request = ApprovalRequest(
            "r1", "skills", "run_script", {}, target="as the command line: x", every_call=True
        )
        return await ask_approval(request)

    assert asyncio.run(ask()) is ApprovalDecision.ALLOW_ONCE
    assert len(prompts) == 2 and prompts[0].endswith("[o]nce / [d]eny: ") and "[c]hat" not in prompts[0]


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"scriptTimeoutSeconds": 0}, "scriptTimeoutSeconds must be a number of seconds above 0"),
        ({"scriptTimeoutSeconds": 7200}, "at most 3600"),
        ({"scriptTimeoutSeconds": True}, "scriptTimeoutSeconds"),
        ({"scriptOutputBytes": 10}, "scriptOutputBytes must be a whole number of bytes from 1024"),
        ({"scriptSandbox": "maybe"}, "scriptSandbox must be auto, required or off"),
        ({"workspace": "proj"}, "options.workspace must be a full path"),
        ({"colour": "blue"}, "unknown option(s) colour"),
    ],
)
def test_a_wrong_script_option_stops_the_server_saying_which_and_why(
    options: dict[str, OptionValue], problem: str
) -> None:
    with pytest.raises(BuiltinOptionError) as wrong:
        build_skills_server(BuiltinContext(), options)
    assert problem in str(wrong.value)


def test_yaml_off_and_on_are_read_as_the_sandbox_modes() -> None:
    assert script_options({"scriptSandbox": False}).sandbox is SandboxMode.OFF
    assert script_options({"scriptSandbox": True}).sandbox is SandboxMode.AUTO
    assert script_options({"workspace": "~/proj"}).workspace == Path.home() / "proj"


def test_mcp_call_runs_a_script_at_once_as_the_users_own_call_and_the_docs_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main
    from tests.support.paths import REPO_ROOT

    agent = agent_folder(tmp_path, permission="ask", sandbox="off")

    def no_question(prompt: str = "") -> str:
        raise AssertionError(f"mcp call asked: {prompt}")

    monkeypatch.setattr("builtins.input", no_question)
    arguments = '{"name": "demo", "script": "scripts/write.py", "args": ["typed.txt"]}'
    code = main(["mcp", "call", str(agent.root), "skills", "run_script", "--args", arguments])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "ws/typed.txt").read_text() == "made by the skill"
    # The docs say the same: a chat's runs are always asked about, `mcp call` is the user's own call.
    docs = " ".join((REPO_ROOT / "docs/skills.md").read_text().split())
    assert "**Every run a model asks for is asked about**" in docs
    assert (
        "`contextdesk mcp call DIR skills run_script --args '{…}'` runs at once, without a question" in docs
    )
