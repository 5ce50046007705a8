"""``contextdesk workflow``: check an agent's workflows, run one, and look at past runs."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from agent_core.agent.loader import load_agent
from agent_core.agent.workflow_files.loader import WORKFLOWS_FOLDER
from agent_core.chat.events import ApprovalRequest
from agent_core.cli.server_start import start_tool_servers
from agent_core.errors import ContextDeskError
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.mock_outputs import EXPECTED, MockOutputs, parse_mock_outputs
from agent_core.workflows.records import WorkflowRunRecord
from agent_core.workflows.run_store import WorkflowRunStore
from agent_core.workspace import Workspace

__all__ = ["register"]

MOCK_OUTPUTS_HELP = (
    'assistant states answered in order from a JSON list of {"state_id": ..., "output": ...}: '
    "the list itself (starting with '[') or a file holding it"
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("workflow", help="check an agent's workflows (workflows/*.yaml)")
    commands = parser.add_subparsers(dest="workflow_command", metavar="SUBCOMMAND", required=True)
    check = commands.add_parser("check", help="list every problem of the workflows, before anything runs")
    check.add_argument("dir", type=Path, help="the agent folder")
    check.add_argument("name", nargs="?", help="only this workflow")
    check.set_defaults(handler=run_check)
    run = commands.add_parser("run", help="run a workflow and print its result")
    run.add_argument(
        "--agent", type=Path, default=None, help="the agent folder (default: your default agent)"
    )
    run.add_argument("name", help="the workflow (workflows/NAME.yaml)")
    given = run.add_mutually_exclusive_group()
    given.add_argument("--input", default="{}", help="the input: JSON (its root keys seed the store) or text")
    given.add_argument("--input-file", type=Path, help="read the input from a file")
    run.add_argument("--mock-outputs", metavar="JSON|FILE", help=MOCK_OUTPUTS_HELP)
    run.add_argument("--yes", action="store_true", help="allow every approval without asking")
    run.add_argument("--json", action="store_true", help="print the run as JSON")
    run.add_argument("--dry-run", action="store_true", help="render every state from the input; run nothing")
    run.set_defaults(handler=run_workflow)
    rerun = commands.add_parser(
        "rerun", help="run again from one state of an earlier run, with the store it had"
    )
    rerun.add_argument("run_id")
    rerun.add_argument("--from", dest="state", required=True, help="the state to start from")
    rerun.add_argument("--agent", type=Path, default=None)
    rerun.add_argument("--mock-outputs", metavar="JSON|FILE", help=MOCK_OUTPUTS_HELP)
    rerun.add_argument("--yes", action="store_true")
    rerun.add_argument("--json", action="store_true")
    rerun.set_defaults(handler=rerun_workflow)
    runs = commands.add_parser("runs", help="the agent's latest workflow runs")
    runs.add_argument("--agent", type=Path, default=None)
    runs.add_argument("--json", action="store_true")
    runs.set_defaults(handler=list_runs)
    show = commands.add_parser("show", help="one run, state by state")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true")
    show.set_defaults(handler=show_run)


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


def run_workflow(args: argparse.Namespace) -> int:
    if args.dry_run:
        return _dry_run(args)
    return asyncio.run(_run(args))


def rerun_workflow(args: argparse.Namespace) -> int:
    runs = WorkflowRunStore()
    try:
        earlier = runs.run(args.run_id)
    finally:
        runs.close()
    if earlier is None:
        raise ContextDeskError(f"no workflow run has the id {args.run_id}: see `contextdesk workflow runs`")
    step = next((s for s in earlier.steps if s.state_id == args.state), None)
    if step is None:
        ran = ", ".join(dict.fromkeys(s.state_id for s in earlier.steps)) or "none"
        raise ContextDeskError(f"run {args.run_id} never reached state {args.state!r} (it ran: {ran})")
    args.name, args.input_file, args.input = earlier.workflow, None, earlier.input
    args.agent = args.agent or Path(earlier.agent_path)
    return asyncio.run(_run(args, resume_from=step))


def _dry_run(args: argparse.Namespace) -> int:
    from agent_core.workflows.dry_run import dry_run

    agent = load_agent(args.agent) if args.agent else Workspace.open(None).agent
    workflow = agent.workflows.get(args.name)
    if workflow is None:
        raise ContextDeskError(f"the agent has no valid workflow named {args.name!r}")
    given = args.input_file.read_text(encoding="utf-8") if args.input_file else args.input
    rendered = dry_run(workflow, given)
    if args.json:
        print(
            json.dumps(
                [{"state_id": s, "rendered_task": t, "rendered_args": a} for s, t, a in rendered],
                indent=2,
                ensure_ascii=False,
            )
        )
        return 0
    for state_id, task, arguments in rendered:
        print(f"--- {state_id}")
        if task:
            print(task.rstrip())
        if arguments is not None:
            print(f"arguments: {json.dumps(arguments, ensure_ascii=False)}")
    return 0


async def _run(args: argparse.Namespace, resume_from: Any = None) -> int:
    from agent_core.cli.chat_command import ask_approval
    from agent_core.cli.limit_prompt import confirm_workflow
    from agent_core.workflows.engine import WorkflowEngine
    from agent_core.workflows.events import StepFinished, WorkflowFinished

    workspace = Workspace.open(args.agent)
    runs = WorkflowRunStore(workspace.store.path)
    try:
        workflow = workspace.agent.workflows.get(args.name)
        if workflow is None:
            known = ", ".join(workspace.agent.workflows) or "none"
            raise ContextDeskError(
                f"the agent has no valid workflow named {args.name!r} (it has: {known}); "
                f"`contextdesk workflow check {workspace.agent.root}` says why a file is left out"
            )
        given: Any = args.input_file.read_text(encoding="utf-8") if args.input_file else args.input
        mock = _mock_outputs(args.mock_outputs) if args.mock_outputs is not None else None
        if mock is None and not await confirm_workflow(workspace, workflow, yes=args.yes):
            return 1
        await start_tool_servers(workspace)
        engine = WorkflowEngine(
            workflow, workspace.agent, workspace.chat_services, workspace.store, runs,
            mock_outputs=mock, auto_approve=args.yes,
        )  # fmt: skip
        record = None
        async for event in engine.run(given, resume_from=resume_from):
            if isinstance(event, ApprovalRequest):
                event.decide(await ask_approval(event))
            elif isinstance(event, StepFinished) and not args.json:
                step = event.step
                mark = "x" if step.status == "failed" else "->"
                print(f"[{step.state_id} {mark} {step.next_state or step.error}]", file=sys.stderr)
            elif isinstance(event, WorkflowFinished):
                record = event.run
    finally:
        runs.close()
        await workspace.aclose()
    assert record is not None
    if args.json:
        print(json.dumps(run_json(record), indent=2, ensure_ascii=False, default=str))
    else:
        print(json.dumps(record.store, indent=2, ensure_ascii=False, default=str))
        print(
            f"[run {record.id}: {record.status}{': ' + record.error if record.error else ''}]",
            file=sys.stderr,
        )
    return 0 if record.status == "finished" else 1


def _mock_outputs(given: str) -> MockOutputs:
    """``--mock-outputs``: the JSON list itself (it starts with ``[``), or a file holding it.

    Raises:
        ContextDeskError: neither, or not a list of ``{"state_id", "output"}`` objects.
    """
    if given.lstrip().startswith("["):
        text, source = given, "--mock-outputs"
    else:
        path = Path(given).expanduser()
        if not path.is_file():
            raise ContextDeskError(
                f"--mock-outputs {given!r} is neither a JSON list nor a file: give {EXPECTED}, "
                "or the path of a file holding one"
            )
        source = f"--mock-outputs {path}"
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ContextDeskError(
                f"{source} cannot be read ({error}): give a UTF-8 file holding {EXPECTED}"
            ) from None
    try:
        return MockOutputs(parse_mock_outputs(text))
    except WorkflowError as error:
        raise ContextDeskError(f"{source}: {error}") from None


def run_json(record: WorkflowRunRecord) -> dict[str, Any]:
    """The run as ``workflow run --json`` and ``workflow show --json`` print it."""
    return {
        "run_id": record.id,
        "workflow": record.workflow,
        "status": record.status,
        "error": record.error or None,
        "mocked": record.mocked,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "context": record.store,
        "steps": [
            {
                "state_id": step.state_id,
                "status": step.status,
                "item": step.item,
                "context_before": step.store_before,
                "history_before": [
                    {"role": m.role, "text": m.text, "state_id": m.state_id} for m in step.history_before
                ],
                "rendered_task": step.rendered_task,
                "rendered_args": step.rendered_args,
                "raw_output": step.raw_output,
                "parsed_output": step.parsed_output,
                "parse_path": step.parse_path,
                "context_after": step.store_after,
                "history_after": [
                    {"role": m.role, "text": m.text, "state_id": m.state_id} for m in step.history_after
                ],
                "added": step.added,
                "changed": step.changed,
                "removed": step.removed,
                "next_state": step.next_state,
                "chat_id": step.child_session_id or None,
                "produced_by": step.provenance.line() if step.provenance else None,
                "error": step.error or None,
                # An Autonomous run's delegation: which assistant, the task it was given, its result.
                **(
                    {"assistant": step.state_id, "task": step.rendered_task, "result": step.raw_output}
                    if step.delegated
                    else {}
                ),
            }
            for step in record.steps
        ],
    }


def list_runs(args: argparse.Namespace) -> int:
    workspace_agent = load_agent(args.agent) if args.agent else None
    runs = WorkflowRunStore()
    try:
        records = runs.runs(str(workspace_agent.root) if workspace_agent else None)
    finally:
        runs.close()
    if args.json:
        print(
            json.dumps(
                [
                    {"run_id": r.id, "workflow": r.workflow, "status": r.status, "started_at": r.started_at}
                    for r in records
                ],
                indent=2,
            )
        )
        return 0
    for r in records:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started_at))
        print(f"{r.id}  {when}  {r.workflow:<24} {r.status}")
    if not records:
        print("No workflow runs yet. Start one with `contextdesk workflow run`.")
    return 0


def show_run(args: argparse.Namespace) -> int:
    runs = WorkflowRunStore()
    try:
        record = runs.run(args.run_id)
    finally:
        runs.close()
    if record is None:
        raise ContextDeskError(f"no workflow run has the id {args.run_id}: see `contextdesk workflow runs`")
    if args.json:
        print(json.dumps(run_json(record), indent=2, ensure_ascii=False, default=str))
        return 0
    print(f"{record.workflow}  run {record.id}: {record.status}{' (mock outputs)' if record.mocked else ''}")
    for step in record.steps:
        item = f" [item {step.item!r}]" if step.item is not None else ""
        print(
            f"\n{step.position}. {step.state_id}{item}: {step.status} -> {step.next_state or '-'}  ({step.parse_path or 'no output'})"
        )
        if step.rendered_task:
            print("   task: " + step.rendered_task.strip().replace("\n", "\n         ")[:1000])
        for label, keys in (("added", step.added), ("changed", step.changed), ("removed", step.removed)):
            if keys:
                print(f"   {label}: " + ", ".join(f"{k} ({n} tok)" for k, n in keys.items()))
        if step.provenance is not None:
            print(f"   produced by {step.provenance.line()}")
        if step.error:
            print(f"   error: {step.error}")
    if record.error:
        print(f"\n{record.error}")
    return 0 if record.status == "finished" else 1
