"""The ``skills`` server's ``run_script``: one of a skill's ``scripts/`` run in the workspace folder.

The user is asked before every run, whatever agent.yaml, the chat's policy or the skill's
``allowed-tools`` say (``BuiltinServer.always_ask_tools``); the question shows the exact command
line and what the sandbox does and does not isolate (``run_script_target``). The run itself is
``agent_core.tools.script_sandbox`` (which file, interpreter, environment, sandbox) and
``script_runner`` (time limit, output cap).

Options (the skills server's ``options`` in agent.yaml): ``workspace`` (the folder scripts run in;
default the agent's workspace folder), ``scriptTimeoutSeconds`` (default 60),
``scriptOutputBytes`` (per stream, default 65536), ``scriptSandbox`` (auto, required or off).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

from agent_core.mcp.builtins import BuiltinContext, BuiltinOptionError, OptionValue, PendingCall
from agent_core.tools.script_runner import (
    DEFAULT_OUTPUT_BYTES,
    DEFAULT_TIMEOUT_SECONDS,
    ScriptLimits,
    run_script_plan,
)
from agent_core.tools.script_sandbox import SandboxMode, ScriptError, ScriptPlan, plan_script

__all__ = [
    "RUN_SCRIPT_OPTIONS",
    "check_options",
    "register_run_script",
    "run_script_target",
    "script_options",
]

RUN_SCRIPT_OPTIONS = frozenset({"workspace", "scriptTimeoutSeconds", "scriptOutputBytes", "scriptSandbox"})
MAX_TIMEOUT_SECONDS = 3_600
MAX_OUTPUT_BYTES = 16 * 1024 * 1024
# Changes files in the workspace, and (unsandboxed) may reach anything: never a read-only tool.
RUNS_PROGRAM = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=True
)
RUN_SCRIPT_DESCRIPTION = (
    "Run one of a skill's scripts (a file under its scripts/ folder, as skills.load lists them) in the "
    "user's workspace folder. name: the skill; script: e.g. scripts/fill_form.py; args: the script's "
    "arguments, one string each (no shell: quotes and pipes are passed as they are). The user approves "
    "every run. Returns the exit code, stdout and stderr (each cut at a cap)."
)


@dataclass(frozen=True)
class ScriptOptions:
    workspace: Path | None  # None: the agent's first workspace folder
    limits: ScriptLimits
    sandbox: SandboxMode


def script_options(options: Mapping[str, OptionValue]) -> ScriptOptions:
    """run_script's options from the server's ``options``.

    Raises:
        BuiltinOptionError: one of them has the wrong type or is out of range.
    """
    workspace = options.get("workspace")
    if workspace is not None and (
        not isinstance(workspace, str) or not Path(workspace.strip()).expanduser().is_absolute()
    ):
        raise BuiltinOptionError(
            f"options.workspace must be a full path to a folder, such as ~/Documents/project, not {workspace!r}"
        )
    timeout = options.get("scriptTimeoutSeconds", DEFAULT_TIMEOUT_SECONDS)
    if (
        isinstance(timeout, bool)
        or not isinstance(timeout, int | float)
        or not 0 < timeout <= MAX_TIMEOUT_SECONDS
    ):
        raise BuiltinOptionError(
            f"options.scriptTimeoutSeconds must be a number of seconds above 0 and at most {MAX_TIMEOUT_SECONDS}, "
            f"not {timeout!r}"
        )
    output = options.get("scriptOutputBytes", DEFAULT_OUTPUT_BYTES)
    if isinstance(output, bool) or not isinstance(output, int) or not 1_024 <= output <= MAX_OUTPUT_BYTES:
        raise BuiltinOptionError(
            f"options.scriptOutputBytes must be a whole number of bytes from 1024 to {MAX_OUTPUT_BYTES}, not {output!r}"
        )
    sandbox = options.get("scriptSandbox", SandboxMode.AUTO.value)
    if isinstance(sandbox, bool):  # YAML reads an unquoted `off` as false (and `on` as true)
        sandbox = SandboxMode.AUTO.value if sandbox else SandboxMode.OFF.value
    if sandbox not in {mode.value for mode in SandboxMode}:
        raise BuiltinOptionError(f"options.scriptSandbox must be auto, required or off, not {sandbox!r}")
    return ScriptOptions(
        workspace=Path(workspace).expanduser() if isinstance(workspace, str) else None,
        limits=ScriptLimits(timeout_seconds=float(timeout), output_bytes=output),
        sandbox=SandboxMode(str(sandbox)),
    )


def plan_call(
    context: BuiltinContext, options: ScriptOptions, name: str, script: str, args: Sequence[str]
) -> ScriptPlan:
    """The run a call of run_script asks for.

    Raises:
        ScriptError: no such enabled skill, no workspace folder, or the script cannot run (see
            ``plan_script``).
    """
    skills = context.skills()
    skill = skills.get(name)
    if skill is None:
        known = ", ".join(sorted(s for s, found in skills.items() if found.scripts)[:30]) or "none"
        raise ScriptError(f"There is no skill named '{name}'. Skills with scripts: {known}.")
    if not skill.enabled:
        raise ScriptError(f"The skill '{name}' is turned off in this agent; turn it on to run its scripts.")
    if skill.folder is None:
        raise ScriptError(f"The skill '{name}' has no folder on disk, so it has no scripts.")
    workspace = options.workspace or next(iter(context.workspace_folders()), None)
    if workspace is None:
        raise ScriptError(
            "Scripts run in the workspace folder, and this agent has none. Choose one (File > Preferences > "
            "Workspace folder in the desktop app, or the workspace server's options.root in agent.yaml)."
        )
    return plan_script(skill.folder, script, args, workspace, sandbox=options.sandbox)


def _arguments(arguments: Mapping[str, object]) -> tuple[str, str, list[str]]:
    name, script, args = arguments.get("name"), arguments.get("script"), arguments.get("args") or []
    if not isinstance(name, str) or not isinstance(script, str):
        raise ScriptError("run_script needs a skill name and a script path, both text.")
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise ScriptError('args must be a list of strings, such as ["input.pdf", "--pages", "2"].')
    return name, script, args


def run_script_target(call: PendingCall) -> str:
    """What the user approves: the exact command line, where it runs, for how long, and what is
    and is not isolated (or why it will be refused)."""
    if call.tool != "run_script":
        return ""
    try:
        options = script_options(call.options)
        plan = plan_call(call.context, options, *_arguments(call.arguments))
    except (BuiltinOptionError, ScriptError) as error:
        return f"(it will be refused: {error})"
    except (OSError, RuntimeError, ValueError) as error:  # the question is still asked
        return f"(what it would run cannot be told: {error})"
    seconds = f"{options.limits.timeout_seconds:g}"
    # Read inside a question ("... wants to run skills.run_script <this>. Allow it?").
    return (
        f"as the command line: {plan.command_line} — in {_home_relative(plan.workspace)}, for at most "
        f"{seconds} s, with no API keys in its environment. {plan.isolation.rstrip('.')}"
    )


def register_run_script(
    server: MCPServer, context: BuiltinContext, options: Mapping[str, OptionValue]
) -> None:
    """Add ``run_script`` to the skills server ``server``.

    Raises:
        BuiltinOptionError: an option of run_script is wrong (see ``script_options``).
    """
    settings = script_options(options)

    async def run_script(name: str, script: str, args: list[str] | None = None) -> str:
        try:
            plan = await asyncio.to_thread(plan_call, context, settings, name, script, args or [])
            result = await run_script_plan(plan, settings.limits)
        except ScriptError as error:
            raise ToolError(str(error)) from error
        report = result.report(settings.limits.timeout_seconds)
        if result.failed:
            raise ToolError(report)
        return report

    server.add_tool(
        run_script, name="run_script", description=RUN_SCRIPT_DESCRIPTION, annotations=RUNS_PROGRAM
    )


def check_options(options: Mapping[str, OptionValue]) -> None:
    """Refuse options the skills server does not take, naming the ones it does.

    Raises:
        BuiltinOptionError: an unknown option.
    """
    unknown = set(options) - RUN_SCRIPT_OPTIONS
    if unknown:
        raise BuiltinOptionError(
            f"unknown option(s) {', '.join(sorted(unknown))}; the skills server takes "
            f"{', '.join(sorted(RUN_SCRIPT_OPTIONS))}"
        )


def _home_relative(path: Path) -> str:
    try:
        return str(Path("~") / path.relative_to(Path.home().resolve()))
    except ValueError:
        return str(path)
