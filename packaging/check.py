"""Smoke-test a built package as a new user would meet it.

    python3 packaging/check.py linux [--package dist/contextdesk_<version>_amd64.deb] [--runs 3]
    python3 packaging/check.py macos [--package dist/ContextDesk-<version>-macos-<arch>.dmg]
    python3 packaging/check.py windows [--package dist/ContextDesk-<version>-windows-x64-setup.exe]

Linux: unpacks the .deb into a fresh root (`dpkg-deb -x`: no root rights, nothing touches the
system). macOS: copies ContextDesk.app out of the mounted .dmg. Windows: runs the installer silently
into a temporary folder. Then, from that install, with a new empty HOME, HF_HUB_OFFLINE=1 and, on
Linux where the kernel allows it, no network at all (`unshare -rn`):

- `contextdesk --version` names the package's version;
- `contextdesk chat --yes "hello"` answers from the bundled offline model;
- the desktop app's window appears, on a virtual X display (Xvfb) on Linux, offscreen elsewhere
  (macOS and Windows CI runners have no display to spare): the app is started with
  CONTEXTDESK_EXIT_AFTER_SHOWN=1, says when its window is exposed and its chat open, and quits;
- the user's data is in HOME's platform folders, and nothing was written inside the install;
- removing the install (its whole root; on Windows its uninstaller) leaves the user's data as it was.

It prints the installed size, the time to a usable window and to the first offline answer, and
exits 1 if a check failed. tests/packaging/test_linux_package.py runs the same checks when a .deb
has been built; .github/workflows/installers.yml runs it on all three systems (only Linux has been
run on the project's machines). Runs with any Python 3.11+; on Linux needs dpkg-deb and Xvfb.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
INSTALL_DIR = "opt/contextdesk"
SIZE_GOAL_MB = 450
WINDOW_GOAL_S = 1.5
ANSWER_GOAL_S = 5.0
TIMEOUT_S = 180


class CheckFailed(Exception):
    """A check of the package failed; the message says which and what it printed."""


@dataclass
class Report:
    package: Path
    version: str = ""
    installed_mb: float = 0.0
    first_answer_s: float = 0.0
    later_answer_s: float = 0.0
    answer: str = ""
    first_window_s: float = 0.0
    window_s: list[float] = field(default_factory=list)
    chat_open_s: list[float] = field(default_factory=list)
    window_title: str = ""
    offline: str = ""
    data_folder: Path | None = None

    def lines(self) -> list[str]:
        window = statistics.median(self.window_s) if self.window_s else float("nan")
        chat = statistics.median(self.chat_open_s) if self.chat_open_s else float("nan")
        return [
            f"package: {self.package.name} (version {self.version})",
            f"installed size: {self.installed_mb:.0f} MB (goal under {SIZE_GOAL_MB} MB)",
            f"network: {self.offline}",
            f"first offline answer (process start to reply, new HOME): {self.first_answer_s:.2f} s "
            f"(goal {ANSWER_GOAL_S} s): {self.answer!r}",
            f"offline answer, later start (the agent and its index exist): {self.later_answer_s:.2f} s",
            f"window shown, first desktop start: {self.first_window_s:.2f} s",
            f"window shown, message box focused, median of {len(self.window_s)}: {window:.2f} s "
            f"(goal {WINDOW_GOAL_S} s); chat open: {chat:.2f} s; title {self.window_title!r}",
            f"user data: {self.data_folder} (left in place after the install was removed)",
        ]


@dataclass
class Installed:
    """A package installed for the check: the program, its folder, and where user data must go."""

    program: Path  # the console program (on Windows the GUI one has no stdout)
    install_root: Path  # everything the install put down; nothing may be written here
    data: Path  # the platform folder for user data, under the check's HOME
    uninstall: Callable[[], None]


def newest_package(target: str) -> Path:
    pattern = PACKAGE_PATTERNS[target]
    built = sorted((REPO / "dist").glob(pattern), key=lambda path: path.stat().st_mtime)
    if not built:
        raise CheckFailed(f"no dist/{pattern}: build it first with `python3 packaging/build.py {target}`")
    return built[-1]


def install_linux(deb: Path, work: Path, home: Path) -> Installed:
    """Unpack ``deb`` into a fresh root as dpkg would lay it out."""
    root = work / "root"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    program = root / INSTALL_DIR / "contextdesk"
    launcher = root / "usr" / "bin" / "contextdesk"
    expect(
        launcher.is_symlink() and str(launcher.readlink()) == f"/{INSTALL_DIR}/contextdesk",
        "/usr/bin/contextdesk",
    )
    expect(program.is_file() and os.access(program, os.X_OK), f"/{INSTALL_DIR}/contextdesk")
    entry = root / "usr" / "share" / "applications" / "contextdesk.desktop"
    expect(entry.is_file() and "Exec=contextdesk" in entry.read_text(encoding="utf-8"), "the desktop entry")
    expect((root / "usr/share/icons/hicolor/scalable/apps/contextdesk.svg").is_file(), "the icon")
    data = home / ".local" / "share" / "contextdesk"
    return Installed(program, root, data, uninstall=lambda: shutil.rmtree(root))


def install_macos(dmg: Path, work: Path, home: Path) -> Installed:
    """Copy ContextDesk.app out of the disk image, as a user drags it to Applications."""
    mount, applications = work / "mount", work / "Applications"
    applications.mkdir()
    subprocess.run(
        ["hdiutil", "attach", "-nobrowse", "-readonly", "-mountpoint", str(mount), str(dmg)], check=True
    )
    try:
        shutil.copytree(mount / "ContextDesk.app", applications / "ContextDesk.app", symlinks=True)
    finally:
        subprocess.run(["hdiutil", "detach", str(mount)], check=True)
    app = applications / "ContextDesk.app"
    expect((app / "Contents" / "Info.plist").is_file(), "Contents/Info.plist")
    data = home / "Library" / "Application Support" / "contextdesk"
    return Installed(
        app / "Contents" / "MacOS" / "contextdesk", app, data, uninstall=lambda: shutil.rmtree(app)
    )


def install_windows(setup: Path, work: Path, home: Path) -> Installed:
    """Run the installer silently for this user into a temporary folder."""
    folder = work / "ContextDesk"
    flags = ["/VERYSILENT", "/SUPPRESSMSGBOXES", "/NORESTART", "/CURRENTUSER", f"/DIR={folder}"]
    subprocess.run([str(setup), *flags], check=True, timeout=TIMEOUT_S)
    expect((folder / "ContextDesk.exe").is_file(), "ContextDesk.exe")

    def uninstall() -> None:
        subprocess.run([str(folder / "unins000.exe"), "/VERYSILENT", "/SUPPRESSMSGBOXES"], check=True)
        # The uninstaller hands over to a copy of itself and returns before the files are gone.
        deadline = time.monotonic() + TIMEOUT_S
        while (folder / "ContextDesk.exe").exists() and time.monotonic() < deadline:
            time.sleep(0.5)

    # Windows finds its known folders through the shell, not the environment: the check points
    # the app at the temporary HOME with CONTEXTDESK_HOME instead (user_env).
    return Installed(folder / "contextdesk-cli.exe", folder, home / "contextdesk" / "data", uninstall)


INSTALLERS = {"linux": install_linux, "macos": install_macos, "windows": install_windows}
PACKAGE_PATTERNS = {
    "linux": "contextdesk_*.deb",
    "macos": "ContextDesk-*-macos-*.dmg",
    "windows": "ContextDesk-*-windows-x64-setup.exe",
}


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise CheckFailed(f"the package lacks {what} or has it wrong")


def folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file() and not path.is_symlink())


def snapshot(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` with a hash of its content."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


def no_network_prefix() -> tuple[list[str], str]:
    """``unshare -rn`` (a new, empty network namespace) when this kernel lets a user make one."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True, check=False).returncode == 0:
        return [unshare, "-rn"], "none (run in an empty network namespace)"
    return [], "not cut off (unshare -rn is not allowed here); HF_HUB_OFFLINE=1 still set"


def user_env(home: Path, target: str) -> dict[str, str]:
    """A new user's environment: nothing from this checkout or its .venv."""
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    if target == "windows":  # the system's variables Windows programs need, and a home of our own
        keep = ("SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "PATH", "PATHEXT", "COMSPEC", "NUMBER_OF_PROCESSORS")
        env = {key: os.environ[key] for key in keep if key in os.environ}
        env.update(USERPROFILE=str(home), TEMP=str(home / "tmp"), TMP=str(home / "tmp"))
        env["CONTEXTDESK_HOME"] = str(home / "contextdesk")
    else:
        env = {"HOME": str(home), "PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}
        env["TMPDIR"] = str(home / "tmp")
    env.update(HF_HUB_OFFLINE="1", PYTHONIOENCODING="utf-8")
    return env


def run(command: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise CheckFailed(
            f"`{' '.join(command[-3:])}` failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        )
    return result, seconds


@contextmanager
def display_for(target: str) -> Iterator[dict[str, str]]:
    """Where the window goes: a real X display (Xvfb) on Linux, Qt's offscreen platform elsewhere."""
    if target != "linux":
        yield {"QT_QPA_PLATFORM": "offscreen"}
        return
    with virtual_display() as display:
        yield {"DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}


@contextmanager
def virtual_display() -> Iterator[str]:
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        raise CheckFailed("Xvfb is missing: install it (`apt-get install xvfb`) to check the window")
    read, write = os.pipe()
    server = subprocess.Popen(
        [xvfb, "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
        pass_fds=(write,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    try:
        with os.fdopen(read) as chosen:
            number = chosen.readline().strip()  # written once the server accepts clients
        if not number.isdigit():
            raise CheckFailed("Xvfb did not start")
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=30)


def window_start(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Start the desktop app; seconds until its window is shown and until its chat is open."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    shown = chat_open = 0.0
    title = ""
    assert process.stdout is not None
    for line in process.stdout:  # the app quits after "chat open"; a hang ends at the timeout below
        if line.startswith("window shown: "):
            shown, title = time.perf_counter() - started, line.removeprefix("window shown: ").strip()
        elif line.strip() == "chat open":
            chat_open = time.perf_counter() - started
    try:
        code = process.wait(timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        raise CheckFailed("the desktop app did not quit after showing its window") from None
    errors = process.stderr.read() if process.stderr else ""
    if code != 0 or not shown or not chat_open:
        raise CheckFailed(f"the window did not appear (exit {code}, shown {shown:.2f} s):\n{errors}")
    return shown, chat_open, title


def package_version(target: str, package: Path) -> str:
    if target == "linux":
        command = ["dpkg-deb", "-f", str(package), "Version"]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()
    return package.name.split("-")[1]  # ContextDesk-<version>-...


def check_package(target: str, package: Path, work: Path, runs: int = 3) -> Report:
    """Every check on ``package``, in ``work`` (an empty folder). Raises CheckFailed."""
    report = Report(package=package, version=package_version(target, package))
    home = work / "home"
    installed = INSTALLERS[target](package, work, home)
    report.installed_mb = folder_bytes(installed.install_root) / 1e6
    install_files = set(installed.install_root.rglob("*"))
    prefix, report.offline = no_network_prefix() if target == "linux" else ([], "not cut off (not Linux)")
    env = user_env(home, target)
    program = str(installed.program)

    version, _ = run([*prefix, program, "--version"], env)
    if version.stdout.strip() != f"contextdesk {report.version}":
        raise CheckFailed(f"--version printed {version.stdout!r}, the package is {report.version}")

    answer, report.first_answer_s = run([*prefix, program, "chat", "--yes", "hello"], env)
    report.answer = answer.stdout.strip()
    if not report.answer:
        raise CheckFailed(f"the offline model gave no answer:\n{answer.stderr}")
    _, report.later_answer_s = run([*prefix, program, "chat", "--yes", "hello"], env)

    with display_for(target) as display:
        desktop = {**env, **display, "CONTEXTDESK_EXIT_AFTER_SHOWN": "1"}
        report.first_window_s, _, report.window_title = window_start([*prefix, program], desktop)
        for _ in range(runs):
            shown, chat_open, _ = window_start([*prefix, program], desktop)
            report.window_s.append(shown)
            report.chat_open_s.append(chat_open)
    if "ContextDesk" not in report.window_title:
        raise CheckFailed(f"the window's title is {report.window_title!r}")

    if not (installed.data / "contextdesk.sqlite3").is_file():
        raise CheckFailed(f"no chat database in {installed.data}: the app did not keep its data there")
    written = set(installed.install_root.rglob("*")) - install_files
    if written:
        raise CheckFailed(f"the app wrote inside its install: {sorted(map(str, written))[:5]}")
    report.data_folder = installed.data

    before = snapshot(installed.data)
    installed.uninstall()
    if installed.install_root.exists() and (installed.install_root / installed.program.name).exists():
        raise CheckFailed("the uninstall left the program in place")
    if not before or snapshot(installed.data) != before:
        raise CheckFailed("removing the install changed the user's data")
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("target", choices=tuple(INSTALLERS))
    parser.add_argument("--package", type=Path, help="the package (default: the newest one in dist/)")
    parser.add_argument("--runs", type=int, default=3, help="window starts to take the median of")
    args = parser.parse_args(argv)
    try:
        package = args.package or newest_package(args.target)
        if not package.is_file():
            raise CheckFailed(
                f"{package} does not exist: build it with `python3 packaging/build.py {args.target}`"
            )
        with tempfile.TemporaryDirectory(prefix="contextdesk-check-") as work:
            report = check_package(args.target, package.resolve(), Path(work), args.runs)
    except CheckFailed as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    print("\n".join(report.lines()))
    print("all checks passed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
