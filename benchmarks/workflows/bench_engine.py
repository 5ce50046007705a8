"""The workflow engine's own cost per state: a 40-state workflow (assistant states answered from
mock outputs, tool states calling an in-process tool) run 20 times, with the real store
(SQLite, each step recorded), templates, parsing and transitions. Goal (issue #15): ≤ 5 ms a state.

    .venv/bin/python benchmarks/workflows/bench_engine.py
"""

from __future__ import annotations

import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.items import Problem
from agent_core.agent.loader import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.services import ChatServices
from agent_core.providers.base import Provider
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.chats import ChatStore
from agent_core.workflows.engine import WorkflowEngine
from agent_core.workflows.events import WorkflowFinished
from agent_core.workflows.loader import parse_workflow
from agent_core.workflows.mock_outputs import MockOutputs
from agent_core.workflows.run_store import WorkflowRunStore

STATES = 40


class Outcome:
    def __init__(self, text: str) -> None:
        self.text, self.is_error, self.elapsed_seconds = text, False, 0.0


class Tool:
    server, name, description = "calc", "count", "Counts"
    input_schema: ClassVar[dict[str, object]] = {"type": "object"}
    permission_required = False

    @property
    def include(self) -> object:
        from agent_core.agent.schema import IncludeMode

        return IncludeMode.ALWAYS


class InProcessTools:
    def tools(self) -> list[Tool]:
        return [Tool()]

    async def call_tool(self, server: str, tool: str, arguments: dict[str, object]) -> Outcome:
        return Outcome(json.dumps({"counted": len(str(arguments))}))


def workflow_text() -> str:
    lines = ["inputs: {topic: {type: string}}", "tools:", "  - {id: counter, tool: calc.count}", "states:"]
    for i in range(STATES):
        nxt = f"s{i + 1}" if i + 1 < STATES else "end"
        if i % 2:
            lines += [f"  - id: s{i}", "    tool_id: counter", "    tool_args: {text: '{{topic}} {{value}}'}",
                      f"    next: {{state_id: {nxt}}}"]  # fmt: skip
        else:
            lines += [f"  - id: s{i}", "    task: 'Step about {{topic}}. Return JSON: {\"value\": 1}'",
                      f"    next: {{state_id: {nxt}, reset_keys_in_context_store: [counted]}}"]  # fmt: skip
    return "\n".join(lines) + "\n"


async def one_run(engine: WorkflowEngine) -> float:
    started = time.perf_counter()
    async for event in engine.run({"topic": "benchmarks", "value": 0}):
        if isinstance(event, WorkflowFinished):
            assert event.run.status == "finished", event.run.error
    return time.perf_counter() - started


def main() -> None:
    logging.disable(logging.INFO)
    with tempfile.TemporaryDirectory() as home:
        root = create_agent(Path(home) / "agent").root
        agent = load_agent(root)
        problems: list[Problem] = []
        workflow = parse_workflow(Path(home) / "bench.yaml", workflow_text(), problems)
        assert workflow is not None, problems
        chats = ChatStore(Path(home) / "db.sqlite3")
        runs = WorkflowRunStore(Path(home) / "db.sqlite3")
        provider = ScriptedProvider()

        def resolve(model: str) -> tuple[Provider, str]:
            return provider, "x"

        services = ChatServices(resolve, None, InProcessTools())  # type: ignore[arg-type]
        mock = [{"state_id": f"s{i}", "output": {"value": i}} for i in range(0, STATES, 2)]
        per_state = []
        for _ in range(20):
            engine = WorkflowEngine(
                workflow,
                agent,
                services,
                chats,
                runs,
                mock_outputs=MockOutputs(list(mock)),
                auto_approve=True,
            )
            per_state.append(asyncio.run(one_run(engine)) / STATES * 1000)
        chats.close()
        runs.close()
    print(f"Workflow engine, {STATES} states (half mock assistants, half in-process tools), 20 runs")
    print(f"{'':26}{'median':>10}{'max':>10}{'goal':>12}")
    print(f"{'per state':26}{statistics.median(per_state):>8.2f}ms{max(per_state):>8.2f}ms{'≤ 5 ms':>12}")


if __name__ == "__main__":
    main()
