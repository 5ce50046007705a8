"""The command line in a test: an agent answered by a scripted model (no embedding model needed),
``main`` run with its output captured, and a sub-agent file added to an agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main

__all__ = ["RESEARCHER", "run", "scripted_agent", "with_always_skill", "with_researcher"]


def scripted_agent(tmp_path: Path, steps: list[dict[str, object]]) -> Path:
    root = tmp_path / "agent"
    create_agent(root)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": steps}))
    config = (root / "agent.yaml").read_text()
    config = config.replace("model: local:smollm2-135m-instruct", "model: scripted:demo")
    config = config.replace(
        "providers:\n  local: {}", f"providers:\n  scripted:\n    options:\n      script: {script}"
    )
    (root / "agent.yaml").write_text(config)
    # Only always items: these tests need no embedding model.
    for path in (root / "rules").glob("*.md"):
        if "include: agent" in path.read_text():
            path.unlink()
    for path in (root / "references").glob("*.md"):
        path.unlink()
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


RESEARCHER = """---
name: researcher
description: Answers one focused question from the workspace documents
tools: Read, Grep
include: always
limits: {maxTurns: 4, maxTokens: 20000, timeoutSeconds: 60}
---
You are a research sub-agent. Answer in one sentence.
"""


def with_researcher(agent: Path) -> Path:
    (agent / "subagents").mkdir()
    (agent / "subagents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    return agent


def with_always_skill(agent: Path, name: str, words: int) -> Path:
    """``agent`` with a skill of ``words`` words in every chat (``include: always``) and a window
    of 2,048 tokens it does not fit in."""
    body = " ".join(f"step{n}" for n in range(words))
    (agent / "skills" / name).mkdir(parents=True)
    (agent / "skills" / name / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Lamp care. Use for lamps.\n---\n{body}\n", encoding="utf-8"
    )
    config = (agent / "agent.yaml").read_text()
    (agent / "agent.yaml").write_text(f"{config}\nskills:\n  {name}:\n    include: always\n")
    assert main(["agent", "set", str(agent), "context.window", "2048"]) == 0
    return agent
