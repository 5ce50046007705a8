"""A skill's script run for real: confined to its scripts/ folder, in the workspace, with a time
limit, an output cap, no secrets, and (where bubblewrap is installed) no network and no writes
outside the workspace."""

from __future__ import annotations

import asyncio
import contextlib
import os
import select
import shutil
import signal
import socket
import sys
import uuid
from pathlib import Path

import pytest

from agent_core.tools.script_runner import ScriptLimits, ScriptResult, run_script_plan
from agent_core.tools.script_sandbox import SandboxMode, ScriptError, plan_script, sandbox_problem
from tests.support.agent_files import write

# The app's own check: bubblewrap installed AND able to make a sandbox here (some containers forbid it).
UNSANDBOXED = sandbox_problem(SandboxMode.AUTO)
needs_bwrap = pytest.mark.skipif(
    UNSANDBOXED is not None,
    reason=f"{UNSANDBOXED}; .ci/run installs bubblewrap (apt package bubblewrap)",
)
BOTH_MODES = pytest.mark.parametrize(
    "mode", [pytest.param(SandboxMode.AUTO, marks=needs_bwrap, id="sandboxed"), SandboxMode.OFF]
)


def skill(tmp_path: Path, scripts: dict[str, str]) -> Path:
    folder = tmp_path / "agent" / "skills" / "demo"
    write(folder / "SKILL.md", "---\nname: demo\ndescription: A demo skill.\n---\nRun scripts/.\n")
    for name, text in scripts.items():
        write(folder / "scripts" / name, text)
    return folder


def run(
    folder: Path,
    script: str,
    workspace: Path,
    args: tuple[str, ...] = (),
    *,
    mode: SandboxMode = SandboxMode.AUTO,
    limits: ScriptLimits | None = None,
) -> ScriptResult:
    workspace.mkdir(parents=True, exist_ok=True)
    plan = plan_script(folder, script, list(args), workspace, sandbox=mode)
    return asyncio.run(run_script_plan(plan, limits or ScriptLimits(timeout_seconds=30)))


@BOTH_MODES
def test_a_script_runs_in_the_workspace_with_its_arguments_and_can_write_there(
    tmp_path: Path, mode: SandboxMode
) -> None:
    code = "import os, sys\nopen('made.txt', 'w').write(' | '.join(sys.argv[1:]))\nprint(os.getcwd())\n"
    folder = skill(tmp_path, {"make.py": code})
    result = run(folder, "scripts/make.py", tmp_path / "ws", ("two words", "$HOME;rm -rf /"), mode=mode)
    assert (result.exit_code, result.timed_out, result.stderr) == (0, False, "")
    assert result.stdout.strip() == str((tmp_path / "ws").resolve())
    # No shell: each argument arrives as it was given.
    assert (tmp_path / "ws" / "made.txt").read_text() == "two words | $HOME;rm -rf /"
    assert result.command_line.endswith("scripts/make.py 'two words' '$HOME;rm -rf /'")
    assert not (folder / "scripts" / "__pycache__").exists()


@needs_bwrap
def test_under_the_sandbox_a_write_outside_the_workspace_fails(tmp_path: Path) -> None:
    unique = uuid.uuid4().hex
    # On the read-only system, and the skill's own folder: refused outright.
    refused = [Path("/var/tmp") / f"contextdesk-sandbox-{unique}", tmp_path / "agent/skills/demo/SKILL.md"]
    # /tmp and the home folder are the sandbox's own, empty and thrown away: nothing reaches the disk.
    thrown_away = [tmp_path / "outside.txt", Path.home() / f".contextdesk-sandbox-{unique}"]
    code = (
        "import sys\nfor target in sys.argv[1:]:\n"
        "    try:\n        open(target, 'w').write('x')\n        print('WROTE', target)\n"
        "    except OSError as error:\n        print('REFUSED', target, error.strerror)\n"
    )
    folder = skill(tmp_path, {"escape.py": code})
    result = run(folder, "escape.py", tmp_path / "ws", tuple(str(p) for p in [*refused, *thrown_away]))
    assert [line.split()[0] for line in result.stdout.splitlines()] == [
        "REFUSED",
        "REFUSED",
        "WROTE",
        "WROTE",
    ]
    assert "Read-only file system" in result.stdout
    assert not any(path.exists() for path in [refused[0], *thrown_away])
    assert (folder / "SKILL.md").read_text().startswith("---\nname: demo")
    assert "Sandboxed (bubblewrap): no network, writes only to" in result.isolation


@needs_bwrap
def test_under_the_sandbox_the_network_is_unreachable_even_on_loopback(tmp_path: Path) -> None:
    # A listener on the host's loopback: reachable from here, not from inside (--unshare-net).
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        socket.create_connection(("127.0.0.1", port), timeout=5).close()  # it does listen
        code = (
            "import socket, sys\ntry:\n    socket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\n"
            "    print('CONNECTED')\nexcept OSError as error:\n    print('NO NETWORK', error)\n    sys.exit(3)\n"
        )
        folder = skill(tmp_path, {"phone_home.py": code})
        result = run(folder, "scripts/phone_home.py", tmp_path / "ws", (str(port),))
    assert result.exit_code == 3 and "NO NETWORK" in result.stdout and "CONNECTED" not in result.stdout


def test_unsandboxed_the_same_script_reaches_the_listener_and_the_approval_says_so(tmp_path: Path) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        code = "import socket, sys\nsocket.create_connection(('127.0.0.1', int(sys.argv[1])), timeout=5)\nprint('CONNECTED')\n"
        folder = skill(tmp_path, {"phone_home.py": code})
        result = run(folder, "phone_home.py", tmp_path / "ws", (str(port),), mode=SandboxMode.OFF)
    assert result.exit_code == 0 and "CONNECTED" in result.stdout
    assert result.isolation.startswith("NOT sandboxed: the skills server's options.scriptSandbox is off;")
    assert "can use the network and write anywhere you can" in result.isolation


def test_without_bubblewrap_on_path_the_plan_says_it_is_not_sandboxed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A PATH with python3 and nothing else: bubblewrap is not found.
    only = tmp_path / "bin"
    only.mkdir()
    python = shutil.which("python3")
    assert python is not None
    (only / "python3").symlink_to(python)
    monkeypatch.setenv("PATH", str(only))
    folder = skill(tmp_path, {"x.py": "print(1)\n"})
    (tmp_path / "ws").mkdir()
    plan = plan_script(folder, "x.py", [], tmp_path / "ws")
    assert not plan.sandboxed and plan.argv == plan.command
    if sys.platform.startswith("linux"):
        assert plan.isolation.startswith("NOT sandboxed: bubblewrap is not installed")
    with pytest.raises(ScriptError, match="scriptSandbox is 'required'"):
        plan_script(folder, "x.py", [], tmp_path / "ws", sandbox=SandboxMode.REQUIRED)


def test_the_apps_secrets_are_not_in_the_scripts_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai-secret")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-secret")
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus")
    monkeypatch.setenv("HTTPS_PROXY", "http://user:pass@proxy:8080")
    monkeypatch.setenv("LANG", "C.UTF-8")
    code = "import os\nfor key, value in sorted(os.environ.items()):\n    print(key + '=' + value)\n"
    folder = skill(tmp_path, {"env.py": code})
    for mode in (SandboxMode.AUTO, SandboxMode.OFF):
        result = run(folder, "env.py", tmp_path / "ws", mode=mode)
        assert result.exit_code == 0
        names = {line.partition("=")[0] for line in result.stdout.splitlines()}
        assert not names & {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DBUS_SESSION_BUS_ADDRESS", "HTTPS_PROXY"}
        assert "sk-test-openai-secret" not in result.stdout and "sk-ant-test" not in result.stdout
        assert {"PATH", "HOME", "LANG"} <= names


@pytest.mark.parametrize(
    ("script", "problem"),
    [
        ("../SKILL.md", "goes up with '..'"),
        ("scripts/../../../etc/passwd", "goes up with '..'"),
        ("/etc/passwd", "is an absolute path"),
        ("C:\\Windows\\notepad.exe", "is an absolute path"),
        ("scripts/missing.py", "has no script 'scripts/missing.py'"),
        ("scripts/link_out.py", "leads out of the skill's scripts/ folder"),
        ("scripts/sub", "is not a regular file"),
        ("scripts/notes.rb", "runs .py, .sh and .js scripts"),
        ("scripts/x\n.py", "is not a script path"),
    ],
)
def test_a_path_out_of_the_scripts_folder_or_not_a_runnable_file_is_refused_clearly(
    tmp_path: Path, script: str, problem: str
) -> None:
    folder = skill(tmp_path, {"ok.py": "print(1)\n", "notes.rb": "puts 1\n", "sub/inner.py": ""})
    secret = tmp_path / "elsewhere.py"
    secret.write_text("print('outside the skill')\n")
    (folder / "scripts" / "link_out.py").symlink_to(secret)
    (tmp_path / "ws").mkdir()
    with pytest.raises(ScriptError) as refused:
        plan_script(folder, script, [], tmp_path / "ws")
    assert problem in str(refused.value)


def test_a_scripts_folder_that_is_a_link_out_of_the_skill_is_refused(tmp_path: Path) -> None:
    folder = skill(tmp_path, {})
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere / "run.py", "print('outside')\n")
    (folder / "scripts").symlink_to(elsewhere, target_is_directory=True)
    (tmp_path / "ws").mkdir()
    with pytest.raises(ScriptError, match="leads out of the skill's scripts/ folder"):
        plan_script(folder, "scripts/run.py", [], tmp_path / "ws")


def test_the_interpreter_comes_from_the_extension_or_the_shebang_never_the_file_itself(
    tmp_path: Path,
) -> None:
    folder = skill(
        tmp_path,
        {"a.sh": "echo from-bash\n", "b": "#!/usr/bin/env python3\nprint('from-python')\n", "c.js": "1\n"},
    )
    (tmp_path / "ws").mkdir()
    plans = {name: plan_script(folder, name, [], tmp_path / "ws") for name in ("a.sh", "b")}
    assert Path(plans["a.sh"].command[0]).name == "bash"
    assert Path(plans["b"].command[0]).name.startswith("python")
    assert run(folder, "b", tmp_path / "ws").stdout.strip() == "from-python"  # not executable: fine
    if shutil.which("node") is not None:
        assert Path(plan_script(folder, "c.js", [], tmp_path / "ws").command[0]).name == "node"


@BOTH_MODES
def test_a_script_that_never_ends_is_killed_at_the_timeout_with_what_it_spawned(
    tmp_path: Path, mode: SandboxMode
) -> None:
    marker = f"contextdesk-forever-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)', sys.argv[1]])\n"
        "print('started', flush=True)\ntime.sleep(3600)\n"
    )
    folder = skill(tmp_path, {"forever.py": code})
    limits = ScriptLimits(timeout_seconds=1.5, output_bytes=4096)
    result = run(folder, "forever.py", tmp_path / "ws", (marker,), mode=mode, limits=limits)
    assert result.timed_out and result.exit_code is None and result.failed
    assert "started" in result.stdout
    assert "killed after 1.5 s" in result.report(1.5)
    for pid in _processes_with(marker):  # none should be alive; wait for each one's exit event
        assert _ended(pid), f"process {pid} ({marker}) outlived the timeout"


def test_a_flood_of_output_is_capped_and_says_how_much_was_cut(tmp_path: Path) -> None:
    code = "import sys\nsys.stdout.write('o' * 3_000_000)\nsys.stderr.write('e' * 200_000)\n"
    folder = skill(tmp_path, {"flood.py": code})
    result = run(
        folder, "flood.py", tmp_path / "ws", limits=ScriptLimits(timeout_seconds=30, output_bytes=10_000)
    )
    assert result.exit_code == 0
    assert result.stdout.startswith("o" * 10_000 + "\n[cut: 2,990,000 more bytes were not kept")
    assert result.stderr.startswith("e" * 10_000 + "\n[cut: 190,000 more bytes")
    assert len(result.report(30)) < 25_000


def test_a_script_reading_stdin_gets_end_of_file_not_a_hang(tmp_path: Path) -> None:
    folder = skill(tmp_path, {"ask.sh": 'read answer\necho "got [$answer]"\n'})
    result = run(folder, "ask.sh", tmp_path / "ws")
    assert result.stdout.strip() == "got []" and not result.timed_out


def test_a_missing_workspace_folder_and_bad_arguments_are_refused(tmp_path: Path) -> None:
    folder = skill(tmp_path, {"ok.py": "print(1)\n"})
    with pytest.raises(ScriptError, match=r"workspace folder .* does not exist"):
        plan_script(folder, "ok.py", [], tmp_path / "nowhere")
    (tmp_path / "ws").mkdir()
    with pytest.raises(ScriptError, match="NUL character"):
        plan_script(folder, "ok.py", ["a\0b"], tmp_path / "ws")
    with pytest.raises(ScriptError, match="at most 64"):
        plan_script(folder, "ok.py", ["x"] * 65, tmp_path / "ws")


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue  # ended while we looked
    return found


def _ended(pid: int) -> bool:
    """Whether ``pid`` has ended (a zombie counts), waiting up to 10 s for its exit."""
    try:
        handle = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([handle], [], [], 10)
        return bool(readable) or _state(pid) in {"Z", "X", ""}
    finally:
        os.close(handle)


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return ""


@BOTH_MODES
def test_stopping_the_call_kills_the_script_and_what_it_spawned(tmp_path: Path, mode: SandboxMode) -> None:
    marker = f"contextdesk-stopped-{uuid.uuid4().hex}"
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.mkfifo(workspace / "ready")
    code = (
        "import subprocess, sys, time\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)', sys.argv[1]])\n"
        "open('ready', 'w').write('running')\ntime.sleep(3600)\n"
    )
    folder = skill(tmp_path, {"forever.py": code})
    plan = plan_script(folder, "forever.py", [marker], workspace, sandbox=mode)

    async def scenario() -> None:
        task = asyncio.ensure_future(run_script_plan(plan, ScriptLimits(timeout_seconds=600)))
        # Opening the pipe waits for the script to open it: it is running, its child started.
        said = await asyncio.wait_for(asyncio.to_thread((workspace / "ready").read_text), 60)
        assert said == "running"
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())
    for pid in _processes_with(marker):
        assert _ended(pid), f"process {pid} ({marker}) outlived the stopped call"


@BOTH_MODES
def test_a_process_that_leaves_the_scripts_group_holding_its_output_does_not_hang_the_call(
    tmp_path: Path, mode: SandboxMode
) -> None:
    marker = f"contextdesk-escaped-{uuid.uuid4().hex}"
    code = (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(3600)', sys.argv[1]], start_new_session=True)\n"
        "print('left behind')\n"
    )
    folder = skill(tmp_path, {"escape.py": code})
    (tmp_path / "ws").mkdir()
    plan = plan_script(folder, "escape.py", [marker], tmp_path / "ws", sandbox=mode)

    async def bounded() -> ScriptResult:
        return await asyncio.wait_for(run_script_plan(plan, ScriptLimits(timeout_seconds=2)), 60)

    try:
        result = asyncio.run(bounded())
        assert "left behind" in result.stdout
        if mode is SandboxMode.AUTO:
            # The sandbox's processes end with it: the script's own exit ends the call.
            assert (result.exit_code, result.timed_out) == (0, False)
            assert all(_ended(pid) for pid in _processes_with(marker))
        else:
            # Unsandboxed it outlives the script, holding the output: the call ends at the limit.
            assert result.timed_out
    finally:
        for pid in _processes_with(marker):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("arg", ["two\nlines", "gpj.\u202etxt", "zero\u200bwidth", "tab\there"])
def test_an_argument_the_approval_could_not_show_as_it_is_is_refused(tmp_path: Path, arg: str) -> None:
    folder = skill(tmp_path, {"ok.py": "print(1)\n"})
    (tmp_path / "ws").mkdir()
    with pytest.raises(ScriptError, match="could not show as it is") as refused:
        plan_script(folder, "ok.py", ["fine", arg], tmp_path / "ws")
    assert arg.encode("unicode_escape").decode("ascii") in str(refused.value)
