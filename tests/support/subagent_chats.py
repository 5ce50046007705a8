"""A parent chat with sub-agents for the sub-agent tests: real chats and the real store, a scripted
provider per model (so the parent's and each child's requests are told apart) and Python tools."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from agent_core.agent.agent import Agent
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, ChatEvent, ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.context.items import Delegation
from agent_core.providers.base import ChatRequest
from agent_core.store.chats import ChatStore
from agent_core.subagents.tools import WithSubagents
from agent_core.workspace import CHAT_TOOL_HANDLERS
from tests.support.chat_tools import PythonTools, Tool
from tests.support.scripted_models import WAIT, Providers

__all__ = ["TOOLS", "Chat", "delegations", "finished", "subagent_file", "texts"]

TOOLS = [
    Tool("workspace", "read_file", "Read a file", permission_required=False),
    Tool("workspace", "list_files", "List files", permission_required=False),
    Tool("workspace", "write_file", "Write a file", permission_required=True),
    Tool("git", "git_log", "Show the log", permission_required=False),
]


def subagent_file(name: str, header: str = "", body: str = "You answer from the files.") -> str:
    return (
        f"---\nname: {name}\ndescription: Does {name} work\nmodel: scripted:{name}\ninclude: always\n"
        f"{header}---\n{body}\n"
    )


class Chat:
    def __init__(
        self, tmp_path: Path, subagents: dict[str, str], prepare: Callable[[Path], None] | None = None
    ) -> None:
        root = create_agent(tmp_path / "agent").root
        for folder in ("rules", "references"):
            for path in (root / folder).glob("*.md"):
                path.unlink()
        (root / "subagents").mkdir()
        for name, text in subagents.items():
            (root / "subagents" / f"{name}.md").write_text(text, encoding="utf-8")
        if prepare is not None:
            prepare(root)
        self.agent: Agent = load_agent(root)
        assert not [p for p in self.agent.problems if p.severity == "error"], self.agent.problems
        self.agent.config.chat.model = "scripted:parent"
        self.providers = Providers()
        self.tools = PythonTools(
            TOOLS, {"read_file": lambda path: f"contents of {path}", "git_log": lambda: "abc"}
        )
        self.store = ChatStore(tmp_path / "chats.sqlite3")
        services = ChatServices(
            self.providers.resolve,
            None,
            WithSubagents(self.tools, lambda: self.agent),
            tool_handlers=CHAT_TOOL_HANDLERS,
        )
        self.session = ChatSession.create(self.agent, self.store, services)

    def send(self, text: str, *, approve: ApprovalDecision = ApprovalDecision.ALLOW_ONCE) -> list[ChatEvent]:
        async def run() -> list[ChatEvent]:
            events: list[ChatEvent] = []
            async for event in self.session.send(text):
                events.append(event)
                if isinstance(event, ApprovalRequest):
                    event.decide(approve)
            return events

        return asyncio.run(asyncio.wait_for(run(), WAIT))

    def child_chats(self) -> list[str]:
        return [s.id for s in self.store.children(self.session.id)]


def texts(request: ChatRequest) -> str:
    return "\n".join(m.content for m in request.messages)


def finished(events: list[ChatEvent]) -> ReplyFinished:
    [last] = [e for e in events if isinstance(e, ReplyFinished)]
    return last


def delegations(events: list[ChatEvent]) -> tuple[Delegation, ...]:
    context = finished(events).message.request_context
    assert context is not None
    return context.delegations
