"""Planning one run of a skill's script: which file, which interpreter, which environment, and
inside what sandbox; nothing runs here (``script_runner`` does).

A skill is someone else's code. Its script must be a regular file inside the skill's own
``scripts/`` folder (no ``..``, no absolute path, no symlink out); it runs through an interpreter
chosen by its extension or ``#!`` line (never a shell string, never the file itself); its
environment holds an allow-list of variables, so no API key, provider variable or keyring address
reaches it. Where bubblewrap is installed (Linux) the script runs without a network, sees the
system read-only and its home folder hidden, and may write only to the workspace folder.
"""

from __future__ import annotations

import functools
import os
import shlex
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path, PurePosixPath, PureWindowsPath

from agent_core.errors import ContextDeskError

__all__ = [
    "MAX_SCRIPT_ARGS",
    "MAX_SCRIPT_ARG_CHARS",
    "SCRIPTS_FOLDER",
    "SandboxMode",
    "ScriptError",
    "ScriptPlan",
    "plan_script",
    "sandbox_problem",
]

SCRIPTS_FOLDER = "scripts"
MAX_SCRIPT_ARGS = 64
MAX_SCRIPT_ARG_CHARS = 4_096
_SHEBANG_BYTES = 256
_PROBE_SECONDS = 10.0
# By extension, then by the program a `#!` line names: always a program looked up on PATH.
_BY_EXTENSION = {
    ".py": "python3",
    ".sh": "bash",
    ".bash": "bash",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
}
_BY_SHEBANG = {"python3": "python3", "python": "python3", "bash": "bash", "sh": "sh", "node": "node"}
# What a script may see of the app's environment: where programs are, who and where the user is,
# language and time zone. Nothing else: no API keys, no provider or proxy settings, no D-Bus or
# ssh-agent address (the keyring is reached through D-Bus).
_ALLOWED_VARIABLES = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "PYENV_VERSION")
_ALLOWED_PREFIXES = ("LC_",)
# Characters a command line shown for approval must not hold: controls (line breaks), invisible
# formatting (right-to-left marks, zero-width characters), line and paragraph separators.
_UNSHOWABLE = frozenset({"Cc", "Cf", "Zl", "Zp"})


class ScriptError(ContextDeskError):
    """A skill's script cannot be run as asked (the message says why and what to do)."""


class SandboxMode(StrEnum):
    AUTO = "auto"  # bubblewrap when it works here; otherwise run unsandboxed, and say so
    REQUIRED = "required"  # refuse to run without the sandbox
    OFF = "off"  # never sandbox (the approval says so)


@dataclass(frozen=True)
class ScriptPlan:
    """One run of a script, decided: the script's own command line, what is executed (the same,
    inside the sandbox when there is one), where, with what environment, and how isolated."""

    command: tuple[str, ...]
    argv: tuple[str, ...]
    workspace: Path
    env: Mapping[str, str]
    sandboxed: bool
    isolation: str  # one sentence for the approval and the result

    @property
    def command_line(self) -> str:
        return shlex.join(self.command)


def plan_script(
    skill_folder: Path,
    script: str,
    args: Sequence[str],
    workspace: Path,
    *,
    sandbox: SandboxMode = SandboxMode.AUTO,
) -> ScriptPlan:
    """How ``script`` (a path under the skill's ``scripts/``) would run with ``args`` in ``workspace``.

    Raises:
        ScriptError: the path leaves the skill's scripts/ folder or is not a regular file, an
            argument is unusable, the interpreter is not installed, the workspace folder does not
            exist, or the sandbox is required and cannot be made.
    """
    path = confined_script(skill_folder, script)
    real_skill = skill_folder.resolve()
    _check_args(args)
    if not workspace.is_dir():
        raise ScriptError(
            f"The workspace folder {workspace} does not exist, and scripts run in it. Create it, or "
            "choose another (File > Preferences > Workspace folder, or the skills server's options.workspace)."
        )
    workspace = workspace.resolve()
    env = script_environment()
    interpreter = _interpreter(path, env["PATH"])
    command = (interpreter, str(path), *args)
    _check_showable(command)
    problem = sandbox_problem(sandbox)
    if problem is None:
        argv = (*_bwrap_prefix(workspace, real_skill, interpreter), *command)
        isolation = (
            f"Sandboxed (bubblewrap): no network, writes only to {_shown(workspace)}; the rest of the "
            "system is read-only, and its home folder and /tmp are empty and thrown away after."
        )
        env = {**env, "TMPDIR": "/tmp"}  # the sandbox's own empty /tmp
        return ScriptPlan(command, argv, workspace, env, True, isolation)
    if sandbox is SandboxMode.REQUIRED:
        raise ScriptError(
            f"The script would run without a sandbox ({problem}), and the skills server's "
            "options.scriptSandbox is 'required'. Install bubblewrap, or set scriptSandbox to auto."
        )
    isolation = f"NOT sandboxed: {problem}; the script can use the network and write anywhere you can."
    return ScriptPlan(command, command, workspace, env, False, isolation)


def confined_script(skill_folder: Path, script: str) -> Path:
    """The real path of ``script``, which must be a regular file inside ``skill_folder/scripts``
    ("scripts/x.py" and "x.py" both name scripts/x.py).

    Raises:
        ScriptError: the path is empty, absolute, has ``..`` or control characters, leaves the
            scripts/ folder (a symlink out included), or is not an existing regular file.
    """
    text = script.strip().replace("\\", "/")
    if not text or any(unicodedata.category(c) == "Cc" for c in text) or len(text) > 1024:
        raise ScriptError(
            f"{script!r} is not a script path: give one of the skill's files such as scripts/run.py."
        )
    relative = PurePosixPath(text)
    if relative.is_absolute() or PureWindowsPath(script).is_absolute() or PureWindowsPath(script).drive:
        raise ScriptError(
            f"'{script}' is an absolute path; a script is named relative to its skill, such as scripts/run.py."
        )
    if ".." in relative.parts:
        raise ScriptError(f"'{script}' goes up with '..'; only files in the skill's scripts/ folder can run.")
    parts = relative.parts[1:] if relative.parts[:1] == (SCRIPTS_FOLDER,) else relative.parts
    scripts_folder = skill_folder / SCRIPTS_FOLDER
    try:
        real_skill = skill_folder.resolve(strict=True)
        real_scripts = scripts_folder.resolve(strict=True)
        real = scripts_folder.joinpath(*parts).resolve(strict=True)
    except (OSError, RuntimeError) as error:  # missing, a symlink loop, unreadable
        raise ScriptError(
            f"The skill has no script '{script}' ({_reason(error)}); its scripts are the files under "
            f"{SCRIPTS_FOLDER}/ that skills.load lists."
        ) from error
    if not real_scripts.is_relative_to(real_skill) or not real.is_relative_to(real_scripts):
        raise ScriptError(
            f"'{script}' leads out of the skill's scripts/ folder (through a symbolic link); "
            "only files inside it can run."
        )
    if not real.is_file():
        raise ScriptError(f"'{script}' is not a regular file; give one of the skill's script files.")
    return real


def script_environment() -> dict[str, str]:
    """The variables a script sees: the allow-list, with the app's own virtualenv out of PATH (the
    user's python3 runs, not the app's) and Python told not to write bytecode into the skill."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key in _ALLOWED_VARIABLES or key.startswith(_ALLOWED_PREFIXES)
    }
    own_bin = str(Path(sys.prefix) / "bin") if sys.prefix != sys.base_prefix else None
    folders = [part for part in env.get("PATH", os.defpath).split(os.pathsep) if part and part != own_bin]
    env["PATH"] = os.pathsep.join(folders) or os.defpath
    env.setdefault("HOME", str(Path.home()))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _check_showable(command: Sequence[str]) -> None:
    """Refuse a command line the approval could not show as it is: a line break, a control
    character or an invisible formatting one (a right-to-left mark can make the text shown read
    differently from what would run).

    Raises:
        ScriptError: naming the part, with the character escaped.
    """
    for part in command:
        if any(unicodedata.category(character) in _UNSHOWABLE for character in part):
            shown = part.encode("unicode_escape").decode("ascii")
            raise ScriptError(
                f"'{shown[:200]}' holds a line break, a control character or an invisible formatting "
                "character, which the approval could not show as it is. Write such text to a file in "
                "the workspace and pass the file's name (or rename the file)."
            )


def _check_args(args: Sequence[str]) -> None:
    if len(args) > MAX_SCRIPT_ARGS:
        raise ScriptError(f"{len(args)} arguments; a script takes at most {MAX_SCRIPT_ARGS}. Pass fewer.")
    for arg in args:
        if "\0" in arg:
            raise ScriptError(
                "An argument holds a NUL character, which no command line can carry. Remove it."
            )
        if len(arg) > MAX_SCRIPT_ARG_CHARS:
            raise ScriptError(
                f"An argument is {len(arg):,} characters long; at most {MAX_SCRIPT_ARG_CHARS:,}. "
                "Write long input to a file in the workspace and pass its name."
            )


def _interpreter(path: Path, search_path: str) -> str:
    """The interpreter's full path, by the script's extension or its ``#!`` line.

    Raises:
        ScriptError: no interpreter is known for the script, or it is not installed.
    """
    name = _BY_EXTENSION.get(path.suffix.lower())
    if name is None:
        try:
            name = _BY_SHEBANG.get(_shebang_program(path))
        except OSError as error:
            raise ScriptError(
                f"'{path.name}' cannot be read ({_reason(error)}), so it cannot run."
            ) from error
    if name is None:
        raise ScriptError(
            f"ContextDesk runs .py, .sh and .js scripts (or a #! line naming python3, bash, sh or node); "
            f"'{path.name}' is none of these. Run it yourself in a terminal if you trust it."
        )
    found = shutil.which(name, path=search_path)
    if found is None:
        raise ScriptError(f"{name} is not installed (not found on PATH); install it to run '{path.name}'.")
    return found


def _shebang_program(path: Path) -> str:
    """The program a ``#!`` line names ("python3" for ``#!/usr/bin/env python3``), or ""."""
    with path.open("rb") as handle:
        first = handle.read(_SHEBANG_BYTES).split(b"\n", 1)[0]
    if not first.startswith(b"#!"):
        return ""
    words = first[2:].decode("utf-8", errors="replace").split()
    if words and Path(words[0]).name == "env":
        words = [word for word in words[1:] if not word.startswith("-")]  # env -S python3
    return Path(words[0]).name if words else ""


def sandbox_problem(mode: SandboxMode) -> str | None:
    """Why the script would run unsandboxed here, or None when bubblewrap can sandbox it."""
    if mode is SandboxMode.OFF:
        return "the skills server's options.scriptSandbox is off"
    if not sys.platform.startswith("linux"):
        return f"ContextDesk has no sandbox for scripts on {sys.platform}"
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "bubblewrap is not installed (install the bubblewrap package to sandbox scripts)"
    return _bwrap_probe(bwrap)


@functools.cache
def _bwrap_probe(bwrap: str) -> str | None:
    """Whether bubblewrap can make a sandbox on this machine (some containers forbid namespaces);
    asked once per run of the app."""
    true = shutil.which("true") or "/bin/true"
    # The same kind of sandbox a script gets (some containers allow namespaces but not /proc).
    shape = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    try:
        done = subprocess.run(  # a fixed command line
            [bwrap, *shape, "--unshare-all", "--die-with-parent", "--new-session", "--", true],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=_PROBE_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap cannot make a sandbox here ({_reason(error)})"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        return (
            f"bubblewrap cannot make a sandbox here ({said[-1] if said else f'exit code {done.returncode}'})"
        )
    return None


def _bwrap_prefix(workspace: Path, skill: Path, interpreter: str) -> tuple[str, ...]:
    """bubblewrap's arguments: the system read-only; /tmp, /run/user (the session's D-Bus, so the
    keyring) and the home folder empty; the interpreter's own folder under home and the skill's
    folder read-only; the workspace writable; no network, its own processes, ended with its parent."""
    home = Path.home().resolve()
    bwrap = shutil.which("bwrap") or "bwrap"
    prefix = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    for hidden in (Path("/run/user"), home):
        if hidden.is_dir() and hidden != Path("/"):
            prefix += ["--tmpfs", str(hidden)]
    for found in {Path(interpreter), Path(interpreter).resolve()}:
        if found.is_relative_to(home) and found != home:
            top = home / found.relative_to(home).parts[0]  # ~/.pyenv, ~/.nvm, ~/miniconda3
            prefix += ["--ro-bind", str(top), str(top)]
    prefix += ["--ro-bind", str(skill), str(skill), "--bind", str(workspace), str(workspace)]
    prefix += ["--chdir", str(workspace), "--unshare-all", "--die-with-parent", "--new-session", "--"]
    return tuple(prefix)


def _shown(path: Path) -> str:
    """``path`` as people write it: ``~/proj`` for a folder under the home folder."""
    try:
        return str(Path("~") / path.relative_to(Path.home().resolve()))
    except ValueError:
        return str(path)


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__
