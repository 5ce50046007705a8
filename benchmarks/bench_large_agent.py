"""A large agent as a user would run it: 2,000 rules, 2,000 references (agent mode) and 10,000
tools, through ``contextdesk select`` in fresh processes (issue #16, "Measured").

    .venv/bin/python benchmarks/bench_large_agent.py [--runs 3] [--home DIR]

The first run in a new home is the cold start (every chunk embedded; its progress goes to
stderr); the next runs are second starts (every vector from the on-disk cache). Printed: wall
time to the answer and peak RSS of each, beside the goals (second start < 1 s, < 400 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_SECONDS, GOAL_MB = 1.0, 400
RULES, REFERENCES, TOOLS = 2_000, 2_000, 10_000
MESSAGE = "how should I name the columns of the new invoices table?"

TOPICS = (
    "invoices", "refunds", "deploys", "rollbacks", "backups", "logging", "alerts", "on-call", "hiring",
    "expenses", "travel", "laptops", "passwords", "migrations", "feature flags", "releases", "pricing",
    "discounts", "onboarding", "support tickets", "webhooks", "caching", "queues", "search", "exports",
)  # fmt: skip
VERBS = ("name", "review", "test", "document", "monitor", "approve", "archive", "price", "schedule", "audit")
NOUNS = ("columns", "endpoints", "jobs", "reports", "dashboards", "checklists", "templates", "budgets")


def _sentence(rng: random.Random) -> str:
    return (
        f"When you {rng.choice(VERBS)} {rng.choice(NOUNS)} for {rng.choice(TOPICS)}, "
        f"{rng.choice(('always', 'never', 'usually', 'first'))} {rng.choice(VERBS)} the "
        f"{rng.choice(NOUNS)} of {rng.choice(TOPICS)} (case {rng.randrange(10**6)})."
    )


def build_agent(root: Path) -> Path:
    """The agent folder and its tools.json, written once per home."""
    if (root / "tools.json").exists():
        return root / "tools.json"
    from agent_core.agent.scaffold import create_agent

    create_agent(root)
    rng = random.Random(16)
    for folder, count in (("rules", RULES), ("references", REFERENCES)):
        for i in range(count):
            topic = rng.choice(TOPICS)
            body = "\n\n".join(
                " ".join(_sentence(rng) for _ in range(3)) for _ in range(2 if folder == "rules" else 4)
            )
            (root / folder / f"{folder[:-1]}-{i:05d}.md").write_text(
                f"---\ndescription: How we handle {topic} ({folder[:-1]} {i})\ninclude: agent\n---\n\n{body}\n",
                encoding="utf-8",
            )
    tools = [
        {
            "server": f"server{i % 50:02d}",
            "name": f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}_{i:05d}",
            "description": f"{rng.choice(VERBS).capitalize()} the {rng.choice(NOUNS)} of {rng.choice(TOPICS)}",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": f"the {rng.choice(NOUNS)} id"},
                    "limit": {"type": "integer", "description": "how many to return"},
                },
            },
        }
        for i in range(TOOLS)
    ]
    path = root / "tools.json"
    path.write_text(json.dumps(tools), encoding="utf-8")
    return path


# The command as the `contextdesk` script runs it, then this process's own peak RSS on stderr.
CHILD = (
    "import resource, sys\n"
    "from agent_core.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print(f'PEAK {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}', file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def run_once(home: Path, agent: Path, tools: Path) -> tuple[float, float, float]:
    """Seconds to the answer printed and to the process's exit, and its peak RSS (MB), for one
    ``contextdesk select`` process."""
    env = {**os.environ, "CONTEXTDESK_HOME": str(home), "HF_HUB_OFFLINE": "1"}
    command = [
        sys.executable, "-c", CHILD,
        "select", "--agent", str(agent), "--tools", str(tools), "--json", MESSAGE,
    ]  # fmt: skip
    started = time.perf_counter()
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as child:
        assert child.stdout is not None and child.stderr is not None
        first = child.stdout.read(1)  # the answer is printed at once, when it is known
        answered = time.perf_counter() - started
        child.stdout.read()
        errors = child.stderr.read().decode()
        code = child.wait()
    exited = time.perf_counter() - started
    if code != 0 or not first:
        raise SystemExit(f"contextdesk select failed:\n{errors[-2000:]}")
    peak = float(errors.rsplit("PEAK ", 1)[1].split()[0])
    return answered, exited, peak


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="second starts to time")
    parser.add_argument(
        "--home", type=Path, help="keep the agent and the cache here (default: a new temp folder)"
    )
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="cd-large-"))
    agent = home / "agent"
    tools = build_agent(agent)
    cold_cache = not (home / "cache").exists()
    cold = run_once(home, agent, tools)
    answers, exits, peaks = [], [], []
    for _ in range(args.runs):
        answered, exited, peak = run_once(home, agent, tools)
        answers.append(answered)
        exits.append(exited)
        peaks.append(peak)
    print(f"large agent: {RULES:,} rules, {REFERENCES:,} references, {TOOLS:,} tools; home {home}")
    label = "cold start (new cache): answer" if cold_cache else "first run (cache kept): answer"
    print(f"{label:<40} {cold[0]:8.2f} s   peak {cold[2]:.0f} MB")
    print(
        f"{'second start: answer printed, median':<40} {statistics.median(answers):8.2f} s   goal < {GOAL_SECONDS:g} s"
    )
    print(f"{'second start: process exited, median':<40} {statistics.median(exits):8.2f} s")
    print(f"{'second start: peak RSS, max':<40} {max(peaks):8.0f} MB  goal < {GOAL_MB} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
