"""``contextdesk workflow``: check an agent's workflows before anything runs."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from agent_core.agent.loader import load_agent
from agent_core.errors import ContextDeskError
from agent_core.workflows.loader import WORKFLOWS_FOLDER

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("workflow", help="check an agent's workflows (workflows/*.yaml)")
    commands = parser.add_subparsers(dest="workflow_command", metavar="SUBCOMMAND", required=True)
    check = commands.add_parser("check", help="list every problem of the workflows, before anything runs")
    check.add_argument("dir", type=Path, help="the agent folder")
    check.add_argument("name", nargs="?", help="only this workflow")
    check.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    agent = load_agent(args.dir)
    folder = agent.root / WORKFLOWS_FOLDER
    if args.name is not None and args.name not in agent.workflows:
        known = ", ".join(agent.workflows) or "none"
        raise ContextDeskError(
            f"the agent has no valid workflow named {args.name!r} (it has: {known}); "
            f"`contextdesk workflow check {args.dir}` lists the problems of every file"
        )
    wanted = [agent.workflows[args.name].path] if args.name else None
    problems = [
        p for p in agent.problems if p.path.is_relative_to(folder) and (wanted is None or p.path in wanted)
    ]
    for problem in problems:
        print(problem.describe(agent.root))
    errors = sum(1 for p in problems if p.severity == "error")
    checked = 1 if args.name else len(agent.workflows)
    print(
        f"{checked} workflow(s) checked; {errors} errors, {len(problems) - errors} warnings",
        file=sys.stderr if problems else sys.stdout,
    )
    return 1 if errors else 0
