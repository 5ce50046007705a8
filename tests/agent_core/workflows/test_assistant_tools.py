"""An assistant state uses only the tools its definition gives it (its ``tools:`` entries and its
own servers): a tool it was not given is never offered, never routed to, and a call to it anyway
is refused without running it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_core.chat.services import ChatServices
from agent_core.context.selection import ContextSelector
from agent_core.providers.base import Provider, ToolCalling
from agent_core.providers.scripted import ScriptedProvider
from agent_core.workflows.assistant_state import assistant_tools
from agent_core.workspace import CHAT_COMMANDS, CHAT_TOOL_HANDLERS
from tests.support.chat_tools import PythonTools, Tool
from tests.support.workflow_runner import Runner

LIST_REFERENCES = Tool(
    "references",
    "list_references",
    "List the agent's reference documents: one line per document, name: description.",
    permission_required=False,
)
READ_FILE = Tool("workspace", "read_file", "Read a file", permission_required=False)


def writer(tools_line: str = "") -> str:
    return f"""
assistants:
  - id: writer
    system_prompt: You write.
{tools_line}
states:
  - id: list
    assistant_id: writer
    task: List the reference documents of this agent
    next: {{state_id: end, output_key: answer}}
"""


def with_tools(runner: Runner) -> list[str]:
    """Gives ``runner`` two tools; returns the names of the ones that ran."""
    ran: list[str] = []
    runner.tools = PythonTools(
        [LIST_REFERENCES, READ_FILE],
        {
            "list_references": lambda: ran.append("list_references") or "handbook: the team handbook",
            "read_file": lambda path: ran.append("read_file") or json.dumps({"path": path}),
        },
    )
    return ran


def test_the_tools_an_assistant_lists_are_its_only_ones() -> None:
    from agent_core.agent.workflow_files.schema import WorkflowAssistantConfig

    listed = WorkflowAssistantConfig(id="a", tools=[{"name": "workspace.read_file"}, {"tool": "git.*"}, {}])
    assert assistant_tools(listed) == ("workspace.read_file", "git.*")
    assert assistant_tools(WorkflowAssistantConfig(id="a")) == ()
    assert assistant_tools(None) == ()


def test_an_assistant_given_no_tools_is_offered_none_and_a_call_anyway_never_runs(runner: Runner) -> None:
    ran = with_tools(runner)
    runner.provider.enqueue_tool_call("references__list_references", {})
    runner.provider.enqueue_reply("No tools here.")
    run = runner.run(writer(), {})
    assert ran == []
    assert run.status == "finished", run.error  # the refused call was the model's to handle
    [call] = [c for m in runner.provider.requests[1].messages for c in m.tool_calls]
    assert call.name == "references__list_references"
    [refused] = [m for m in runner.provider.requests[1].messages if m.role == "tool"]
    assert refused.is_error, refused.content
    assert [t.name for t in runner.provider.requests[0].tools] == []


def test_an_assistant_is_offered_exactly_the_tools_it_lists(runner: Runner) -> None:
    ran = with_tools(runner)
    runner.provider.enqueue_tool_call("references__list_references", {})
    runner.provider.enqueue_reply("The handbook.")
    run = runner.run(writer("    tools: [{name: references.list_references}]"), {})
    assert run.status == "finished", run.error
    assert [t.name for t in runner.provider.requests[0].tools] == ["references__list_references"]
    assert ran == ["list_references"]


class RoutedScripted(ScriptedProvider):
    """The scripted provider as a model that cannot choose tools (tools are routed to it)."""

    def tool_calling(self, model_id: str) -> ToolCalling:
        return "routed"


class RoutedRunner(Runner):
    def __init__(self, tmp_path: Path, selector: ContextSelector) -> None:
        super().__init__(tmp_path)
        self.provider = RoutedScripted()
        self.selector = selector

    def services(self) -> ChatServices:
        def resolve(model: str) -> tuple[Provider, str]:
            return self.provider, "x"

        return ChatServices(
            resolve, self.selector, self.tools, tool_handlers=CHAT_TOOL_HANDLERS, commands=CHAT_COMMANDS
        )


@pytest.fixture(scope="module")
def selector(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContextSelector]:
    shared = ContextSelector(cache_dir=tmp_path_factory.mktemp("embeddings"))
    yield shared
    shared.indexer.close()


@pytest.mark.slow  # the real MiniLM routes
@pytest.mark.parametrize(
    ("tools_line", "routed"),
    [("", None), ("    tools: [{name: references.*}]", "references__list_references")],
)
def test_a_routed_assistant_is_routed_only_to_a_tool_it_was_given(
    tmp_path: Path, selector: ContextSelector, tools_line: str, routed: str | None
) -> None:
    runner = RoutedRunner(tmp_path, selector)
    ran = with_tools(runner)
    if routed:
        runner.provider.enqueue_tool_call(routed, {})
    runner.provider.enqueue_reply("Here is the list.")
    run = runner.run(writer(tools_line), {})
    assert run.status == "finished", run.error
    assert runner.provider.requests[0].call_tool == routed
    assert ran == (["list_references"] if routed else [])
