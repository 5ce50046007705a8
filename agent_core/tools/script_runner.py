"""Running a planned script (``script_sandbox.plan_script``): stdin closed, in a process group of
its own that is killed at the timeout, each output stream kept up to a cap and the rest counted
and dropped, so neither a script that never ends nor one that floods its output can hang the
chat or fill its memory."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field

from agent_core.tools.script_sandbox import ScriptError, ScriptPlan

__all__ = [
    "DEFAULT_OUTPUT_BYTES",
    "DEFAULT_TIMEOUT_SECONDS",
    "ScriptLimits",
    "ScriptResult",
    "run_script_plan",
]

DEFAULT_TIMEOUT_SECONDS = 60.0
DEFAULT_OUTPUT_BYTES = 65_536  # of stdout, and as much of stderr
# After the kill, how long the output pipes may stay open (a process that left the group and
# still holds them is not waited for).
_PIPE_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class ScriptLimits:
    timeout_seconds: float = DEFAULT_TIMEOUT_SECONDS
    output_bytes: int = DEFAULT_OUTPUT_BYTES


@dataclass
class _Kept:
    """One output stream: its first bytes, and how many more came after the cap."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def add(self, chunk: bytes) -> None:
        room = max(0, self.cap - len(self.data))
        self.data += chunk[:room]
        self.dropped += len(chunk) - min(room, len(chunk))

    def text(self) -> str:
        shown = self.data.decode("utf-8", errors="replace")
        if self.dropped:
            shown += f"\n[cut: {self.dropped:,} more bytes were not kept (the cap is {self.cap:,} bytes)]"
        return shown


@dataclass(frozen=True)
class ScriptResult:
    command_line: str
    isolation: str
    exit_code: int | None  # None when it was killed at the timeout
    stdout: str
    stderr: str
    elapsed_seconds: float
    timed_out: bool

    @property
    def failed(self) -> bool:
        return self.timed_out or self.exit_code != 0

    def report(self, timeout_seconds: float) -> str:
        """What the model reads: how it ended, the command, the isolation, then both outputs."""
        if self.timed_out:
            ended = f"killed after {timeout_seconds:g} s (the time limit; the skills server's scriptTimeoutSeconds)"
        else:
            ended = f"exit code {self.exit_code}"
        lines = [f"{ended}, {self.elapsed_seconds:.2f} s", f"$ {self.command_line}", self.isolation]
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            lines += [f"--- {name} ---", text if text else "(empty)"]
        return "\n".join(lines)


class _Collector(asyncio.SubprocessProtocol):
    """What the script writes, kept up to the cap as it comes, and when it exited and when its
    pipes closed (apart: a process it started may hold them after it exited)."""

    def __init__(self, cap: int) -> None:
        self.kept = {1: _Kept(cap), 2: _Kept(cap)}
        self.exited = asyncio.Event()
        self.done = asyncio.Event()  # exited, and every pipe closed

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        self.kept[fd].add(data if isinstance(data, bytes) else data.encode())

    def process_exited(self) -> None:
        self.exited.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self.done.set()


async def run_script_plan(plan: ScriptPlan, limits: ScriptLimits) -> ScriptResult:
    """Run ``plan`` to its end or its time limit; a cancelled call kills the script too.

    Raises:
        ScriptError: the program could not be started.
    """
    started = time.monotonic()
    loop = asyncio.get_running_loop()
    try:
        transport, collector = await loop.subprocess_exec(
            lambda: _Collector(limits.output_bytes),
            *plan.argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=plan.workspace,
            env=dict(plan.env),
            start_new_session=True,  # its own process group, which the timeout kills whole
        )
    except OSError as error:
        raise ScriptError(f"{plan.argv[0]} could not be started: {error.strerror or error}.") from error
    timed_out = False
    try:
        try:
            async with asyncio.timeout(limits.timeout_seconds):
                await collector.done.wait()
        except TimeoutError:
            timed_out = True
            _kill_group(transport.get_pid())
            # A process that left the group may still hold the pipes: not waited for long.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(_PIPE_GRACE_SECONDS):
                    await collector.done.wait()
    finally:
        if not collector.exited.is_set():  # cancelled: the reply was stopped
            _kill_group(transport.get_pid())
            with contextlib.suppress(TimeoutError, asyncio.CancelledError):
                async with asyncio.timeout(_PIPE_GRACE_SECONDS):
                    await collector.exited.wait()  # reaped, not left running behind a closed transport
        transport.close()  # our ends of the pipes: nothing more is read
    return ScriptResult(
        command_line=plan.command_line,
        isolation=plan.isolation,
        exit_code=None if timed_out else transport.get_returncode(),
        stdout=collector.kept[1].text(),
        stderr=collector.kept[2].text(),
        elapsed_seconds=time.monotonic() - started,
        timed_out=timed_out,
    )


def _kill_group(pgid: int) -> None:
    """SIGKILL to the script's whole process group (in the sandbox, ending bubblewrap ends every
    process inside it); on Windows, the process itself."""
    if sys.platform == "win32":  # pragma: no cover - no process groups
        with contextlib.suppress(OSError):
            os.kill(pgid, signal.SIGTERM)
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
