"""Sub-agents: what delegating saves the parent, and how side-by-side children run.

    .venv/bin/python benchmarks/subagents/bench_delegation.py

1. Parent cost: 20 read-heavy tasks (each needs 2-5 of the workspace's documents), done once by
   the parent itself (its model reads the files, which then stay in its prompt for the answer
   turn) and once by delegating to a sub-agent that reads them and answers in a few lines. The
   same scripted answers both ways; what is measured is the parent's prompt tokens (the scripted
   provider counts words), summed over its requests. Goal (issue #14): at least 60 % lower.
2. Parallelism: three children whose replies take 1.0, 1.2 and 1.5 s, started by one turn.
   Goal: the parent's reply takes at most 1.3 x the slowest child.

Real parts: the workspace MCP server (built in) reads the files; the chat engine, store and
sub-agent runtime are the app's. Only the model is scripted.
"""

from __future__ import annotations

import asyncio
import logging
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import ApprovalDecision, ApprovalRequest, ReplyFinished
from agent_core.chat.services import ChatServices
from agent_core.chat.session import ChatSession
from agent_core.providers.base import Provider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.subagents.tools import WithSubagents
from agent_core.tools.runtime import NoTools
from agent_core.workspace import Workspace

TOPICS = [
    "billing", "invoices", "deployments", "on-call", "the ledger", "database migrations", "caching",
    "the mobile app", "payments", "error tracking", "code review", "the data warehouse",
]  # fmt: skip
READER = """---
name: reader
description: Reads the workspace documents a question needs and answers it in a few lines
tools: [workspace.read_file, workspace.list_files, workspace.search_files]
include: always
---
Read what you need, then answer in at most three sentences, naming the files you used.
"""


def write_documents(folder: Path, rng: random.Random) -> list[str]:
    """A dozen notes of 600-1,400 words each, as a team's wiki pages would be."""
    names = []
    for topic in TOPICS:
        name = topic.replace(" ", "-").replace("the-", "") + ".md"
        paragraphs = []
        for _ in range(rng.randint(12, 28)):
            words = [rng.choice(["we", "the", "team", "runs", topic, "service", "every", "week", "check",
                                 "after", "deploy", "owner", "alert", "queue", "table", "report"])
                     for _ in range(rng.randint(40, 60))]  # fmt: skip
            paragraphs.append(" ".join(words).capitalize() + ".")
        (folder / name).write_text(f"# {topic.title()}\n\n" + "\n\n".join(paragraphs), encoding="utf-8")
        names.append(name)
    return names


def agent_for(home: Path, documents: Path) -> Path:
    root = create_agent(home / "agent").root
    config = (root / "agent.yaml").read_text()
    config = config.replace("root: ~/Documents", f"root: {documents}")
    config = config.replace("permissionRequired: true", "permissionRequired: false")
    (root / "agent.yaml").write_text(config)
    for folder in ("rules", "references"):
        for path in (root / folder).glob("*.md"):
            path.unlink()
    (root / "subagents").mkdir()
    (root / "subagents" / "reader.md").write_text(READER, encoding="utf-8")
    return root


async def parent_tokens(session: ChatSession, provider: ScriptedProvider, text: str) -> int:
    """Input tokens of the requests the parent's model got for ``text``."""
    async for event in session.send(text):
        if isinstance(event, ApprovalRequest):
            event.decide(ApprovalDecision.ALLOW_ONCE)
        if isinstance(event, ReplyFinished):
            context = event.message.request_context
            assert context is not None
            return context.usage.input_tokens or 0
    raise AssertionError("no reply")


async def cost(home: Path) -> list[tuple[int, int]]:
    rng = random.Random(7)
    documents = home / "docs"
    documents.mkdir()
    names = write_documents(documents, rng)
    workspace = Workspace(load_agent(agent_for(home, documents)), store=ChatStore(home / "chats.sqlite3"))
    await workspace.start_tools()
    results = []
    try:
        for task in range(20):
            needed = rng.sample(names, rng.randint(2, 5))
            question = f"Task {task}: what do {', '.join(needed)} say about owners and alerts?"
            answer = f"The owners are listed in {needed[0]}; alerts go to the on-call queue."
            reads = [
                ("workspace__read_file", {"path": name}, f"r{task}-{i}") for i, name in enumerate(needed)
            ]
            # The parent reads the files itself, then answers.
            alone = ScriptedProvider()
            alone.enqueue_tool_calls(reads)
            alone.enqueue_reply(answer)
            # The parent delegates; the child reads and answers briefly; the parent answers.
            delegating = ScriptedProvider()
            delegating.enqueue_tool_call("subagents__reader", {"task": question}, f"d{task}")
            delegating.enqueue_tool_calls(reads)  # the child's turn
            delegating.enqueue_reply(answer)  # the child's answer
            delegating.enqueue_reply(answer)  # the parent's answer
            tokens = []
            for provider, with_subagents in ((alone, False), (delegating, True)):
                agent = workspace.agent
                agent.config.chat.model = "scripted:x"

                def resolve(model: str, p: Provider = provider) -> tuple[Provider, str]:
                    return p, "x"

                tools = (
                    WithSubagents(workspace.tools, lambda a=agent: a) if with_subagents else workspace.tools
                )
                session = ChatSession.create(agent, workspace.store, ChatServices(resolve, None, tools))
                # The reply's usage counts the parent's own requests only (a child's are its own).
                tokens.append(await parent_tokens(session, provider, question))
            results.append((tokens[0], tokens[1]))
    finally:
        await workspace.aclose()
    return results


class Slow:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    async def wait(self) -> None:
        await asyncio.sleep(self.seconds)


async def parallel(home: Path) -> tuple[float, float]:
    root = create_agent(home / "par").root
    (root / "subagents").mkdir()
    delays = {"a": 1.0, "b": 1.2, "c": 1.5}
    for name in delays:
        (root / "subagents" / f"{name}.md").write_text(
            f"---\ndescription: child {name}\nmodel: scripted:{name}\ninclude: always\ntools: []\n---\nAnswer.\n",
            encoding="utf-8",
        )
    agent = load_agent(root)
    agent.config.chat.model = "scripted:parent"
    providers = {name: ScriptedProvider() for name in (*delays, "parent")}
    providers["parent"].enqueue_tool_calls([(f"subagents__{n}", {"task": n}, n) for n in delays])
    providers["parent"].enqueue_reply("all three answered")
    for name, seconds in delays.items():
        providers[name].enqueue_reply(chunks=[Slow(seconds), f"{name} done"])  # type: ignore[list-item]

    def resolve(model: str) -> tuple[Provider, str]:
        name = model.split(":", 1)[1]
        return providers[name], name

    store = ChatStore(home / "par.sqlite3")
    session = ChatSession.create(
        agent, store, ChatServices(resolve, None, WithSubagents(NoTools(), lambda: agent))
    )
    started = time.perf_counter()
    async for _event in session.send("ask all three"):
        pass
    return time.perf_counter() - started, max(delays.values())


def main() -> None:
    logging.disable(logging.INFO)  # the store's migration notes are not figures
    with tempfile.TemporaryDirectory() as home:
        pairs = asyncio.run(cost(Path(home)))
        elapsed, slowest = asyncio.run(parallel(Path(home)))
    savings = [1 - delegated / alone for alone, delegated in pairs]
    alone_total = sum(a for a, _ in pairs)
    delegated_total = sum(d for _, d in pairs)
    print("Sub-agents: the parent's prompt tokens on 20 read-heavy tasks (scripted model, words)")
    print(f"{'':34}{'alone':>10}{'delegating':>12}{'saved':>8}   goal")
    print(
        f"{'all 20 tasks':34}{alone_total:>10,}{delegated_total:>12,}{1 - delegated_total / alone_total:>8.0%}   ≥ 60 %"
    )
    print(f"{'per task, median':34}{statistics.median(a for a, _ in pairs):>10,.0f}"
          f"{statistics.median(d for _, d in pairs):>12,.0f}{statistics.median(savings):>8.0%}")  # fmt: skip
    print(f"{'per task, least saved':34}{'':>22}{min(savings):>8.0%}")
    print(f"\nThree children (1.0 s, 1.2 s, 1.5 s) side by side: the reply took {elapsed:.2f} s, "
          f"{elapsed / slowest:.2f} x the slowest (goal ≤ 1.3 x)")  # fmt: skip


if __name__ == "__main__":
    main()
