"""Running a planned script (``script_sandbox.plan_script``): stdin closed, in a process group of
its own that is killed at the timeout, each output stream kept up to a cap and the rest counted
and dropped, so neither a script that never ends nor one that floods its output can hang the
chat or fill its memory."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
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
_CHUNK_BYTES = 65_536
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


async def run_script_plan(plan: ScriptPlan, limits: ScriptLimits) -> ScriptResult:
    """Run ``plan`` to its end or its time limit; a cancelled call kills the script too.

    Raises:
        ScriptError: the program could not be started.
    """
    started = time.monotonic()
    try:
        process = await asyncio.create_subprocess_exec(
            *plan.argv,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            cwd=plan.workspace,
            env=dict(plan.env),
            start_new_session=True,  # its own process group, which the timeout kills whole
        )
    except OSError as error:
        raise ScriptError(f"{plan.argv[0]} could not be started: {error.strerror or error}.") from error
    assert process.stdout is not None and process.stderr is not None
    out, err = _Kept(limits.output_bytes), _Kept(limits.output_bytes)
    readers = [
        asyncio.ensure_future(_read(process.stdout, out)),
        asyncio.ensure_future(_read(process.stderr, err)),
    ]
    timed_out = False
    try:
        try:
            async with asyncio.timeout(limits.timeout_seconds):
                await asyncio.gather(*readers)
                await process.wait()
        except TimeoutError:
            timed_out = True
            _kill_group(process.pid)
            await process.wait()
            await asyncio.wait(readers, timeout=_PIPE_GRACE_SECONDS)
    finally:
        if process.returncode is None:  # cancelled: the reply was stopped
            _kill_group(process.pid)
        for reader in readers:
            reader.cancel()
    return ScriptResult(
        command_line=plan.command_line,
        isolation=plan.isolation,
        exit_code=None if timed_out else process.returncode,
        stdout=out.text(),
        stderr=err.text(),
        elapsed_seconds=time.monotonic() - started,
        timed_out=timed_out,
    )


async def _read(stream: asyncio.StreamReader, kept: _Kept) -> None:
    while chunk := await stream.read(_CHUNK_BYTES):
        kept.add(chunk)


def _kill_group(pgid: int) -> None:
    """SIGKILL to the script's whole process group (in the sandbox, ending bubblewrap ends every
    process inside it); on Windows, the process itself."""
    if sys.platform == "win32":  # pragma: no cover - no process groups
        with contextlib.suppress(OSError):
            os.kill(pgid, signal.SIGTERM)
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)
