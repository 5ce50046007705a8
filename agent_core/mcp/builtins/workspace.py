"""The ``workspace`` built-in: the date and time, and read-only access to text files in ONE folder.

Options (agent.yaml ``options``): ``root`` (required; ``~`` is expanded), ``maxReadBytes``
(default 200000), ``includeHidden`` (default false: dot files and folders are invisible).
Every path is resolved, symlinks included, and refused unless it stays inside ``root``.
"""

from __future__ import annotations

import fnmatch
import os
import unicodedata
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from agent_core import __version__
from agent_core.mcp.builtins import BuiltinContext, BuiltinOptionError, OptionValue
from agent_core.mcp.builtins._hints import READ_ONLY

__all__ = ["Workspace", "build_workspace_server", "call_target"]

DEFAULT_MAX_READ_BYTES = 200_000
MAX_SEARCH_FILE_BYTES = 1_000_000
MAX_LISTED = 500
MAX_MATCHES = 100
MAX_SEARCHED_FILES = 2_000
MAX_PATH_CHARS = 1024  # far beyond any real relative path; most systems stop at 4096 bytes
MAX_NAME_BYTES = 255  # one file or folder name, in UTF-8: the limit of every common file system


def _shown(path: str) -> str:
    """``path`` as quoted in an error: control characters escaped, long paths shortened."""
    text = path.encode("unicode_escape").decode("ascii") if not path.isprintable() else path
    return text if len(text) <= 80 else f"{text[:60]}...{text[-15:]} ({len(path)} characters)"


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__


def check_path_text(path: str) -> None:
    """Refuse a path no file can have, with a message the model (and the user) can act on.

    Raises:
        ToolError: the path holds a NUL or another control character, is longer than
            MAX_PATH_CHARS, or has a name longer than MAX_NAME_BYTES.
    """
    if "\0" in path:
        raise ToolError(
            f"'{_shown(path)}' contains a NUL character, which no file name can have. "
            "Give the path as plain text relative to the workspace (list_files shows the names)."
        )
    if any(unicodedata.category(character) == "Cc" for character in path):
        raise ToolError(
            f"'{_shown(path)}' contains control characters (such as a line break). "
            "Give the path as plain text relative to the workspace (list_files shows the names)."
        )
    if len(path) > MAX_PATH_CHARS:
        raise ToolError(
            f"The path is {len(path)} characters long; a workspace path can have at most {MAX_PATH_CHARS}. "
            "Give a shorter path relative to the workspace (list_files shows the names)."
        )
    for name in path.replace("\\", "/").split("/"):
        if len(name.encode("utf-8", errors="surrogatepass")) > MAX_NAME_BYTES:
            raise ToolError(
                f"The name '{_shown(name)}' in the path is longer than {MAX_NAME_BYTES} bytes, which no "
                "file or folder name can be. Give an existing name (list_files shows the names)."
            )


class Workspace:
    """Read-only, size-limited access to the files under one folder."""

    def __init__(self, root: Path, *, max_read_bytes: int, include_hidden: bool) -> None:
        self.root = root
        self.max_read_bytes = max_read_bytes
        self.include_hidden = include_hidden

    def _real_root(self) -> Path:
        if not self.root.is_dir():
            raise ToolError(
                f"The workspace folder {self.root} does not exist. "
                "Fix: create it, or choose another folder: File > Preferences > Workspace folder in the "
                "desktop app, or options.root of the workspace server in agent.yaml."
            )
        return self.root.resolve()

    def resolve(self, relative: str) -> Path:
        """The real path of ``relative`` inside the workspace.

        Raises:
            ToolError: the path leaves the workspace (through ``..``, an absolute path or a symlink),
                or names a hidden file while hidden files are off.
        """
        root = self._real_root()
        check_path_text(relative)
        candidate = Path(relative.strip() or ".").expanduser()
        if not candidate.is_absolute():
            candidate = root / candidate
        try:
            real = candidate.resolve()
        except (OSError, RuntimeError) as error:  # a symlink loop, an unreadable folder
            raise ToolError(f"'{_shown(relative)}' cannot be used: {_reason(error)}.") from error
        if not real.is_relative_to(root):
            raise ToolError(
                f"'{relative}' is outside the workspace folder; only files under {root} can be used."
            )
        if not self.include_hidden and any(part.startswith(".") for part in real.relative_to(root).parts):
            raise ToolError(f"'{relative}' is a hidden file or folder, which the workspace does not show.")
        return real

    def display(self, path: Path) -> str:
        relative = path.relative_to(self._real_root()).as_posix()
        return relative or "."

    def walk(self, start: Path, pattern: str, recursive: bool) -> Iterator[Path]:
        """Files and folders under ``start`` matching ``pattern``, never leaving the workspace."""
        root = self._real_root()
        for folder, dirs, files in os.walk(start, followlinks=False):
            dirs[:] = sorted(d for d in dirs if self.include_hidden or not d.startswith("."))
            here = Path(folder)
            for name in [*dirs, *sorted(files)]:
                if not self.include_hidden and name.startswith("."):
                    continue
                path = here / name
                real = path.resolve()
                if not real.is_relative_to(root):
                    continue  # a symlink pointing out of the workspace
                if fnmatch.fnmatch(name, pattern):
                    yield path
            if not recursive:
                return

    def list_files(self, path: str, pattern: str, recursive: bool) -> str:
        start = self.resolve(path)
        if not start.is_dir():
            raise ToolError(f"'{path}' is not a folder.")
        lines: list[str] = []
        for entry in self.walk(start, pattern or "*", recursive):
            if len(lines) >= MAX_LISTED:
                lines.append(f"... (more than {MAX_LISTED} entries; narrow the path or pattern)")
                break
            relative = self.display(entry)
            if entry.is_dir():
                lines.append(f"{relative}/")
            else:
                lines.append(f"{relative}  ({entry.stat().st_size} bytes)")
        return "\n".join(lines) if lines else "No files."

    def read_file(self, path: str) -> str:
        real = self.resolve(path)
        if not real.is_file():
            raise ToolError(f"'{path}' is not a file in the workspace (list_files shows what there is).")
        with real.open("rb") as handle:
            data = handle.read(self.max_read_bytes + 1)
        if b"\0" in data[:8192]:
            raise ToolError(f"'{path}' is not a text file.")
        text = data[: self.max_read_bytes].decode("utf-8", errors="replace")
        if len(data) > self.max_read_bytes:
            text += f"\n[... truncated: only the first {self.max_read_bytes} bytes are shown]"
        return text

    def search_files(self, query: str, path: str, pattern: str) -> str:
        needle = query.lower()
        if not needle.strip():
            raise ToolError("Give some text to search for.")
        start = self.resolve(path)
        matches: list[str] = []
        searched = 0
        for entry in self.walk(start, pattern or "*", recursive=True):
            if not entry.is_file() or entry.stat().st_size > MAX_SEARCH_FILE_BYTES:
                continue
            searched += 1
            if searched > MAX_SEARCHED_FILES:
                matches.append(f"... (stopped after {MAX_SEARCHED_FILES} files; narrow the path or pattern)")
                break
            data = entry.read_bytes()
            if b"\0" in data[:8192]:
                continue
            for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
                if needle in line.lower():
                    matches.append(f"{self.display(entry)}:{number}: {line.strip()[:300]}")
                    if len(matches) >= MAX_MATCHES:
                        matches.append(
                            f"... (more than {MAX_MATCHES} matches; search for something narrower)"
                        )
                        return "\n".join(matches)
        return "\n".join(matches) if matches else f"No matches for '{query}'."


def _explained(path: str, run: Callable[[], str]) -> str:
    """``run()``, with a file system error turned into a message saying which path and why."""
    try:
        return run()
    except OSError as error:
        raise ToolError(f"'{_shown(path)}' cannot be read: {_reason(error)}.") from error


def current_time(timezone: str = "") -> str:
    """The date and time now, in ``timezone`` (IANA name) or the computer's own."""
    if timezone.strip():
        try:
            zone = ZoneInfo(timezone.strip())
        except (ZoneInfoNotFoundError, ValueError) as error:
            raise ToolError(
                f"Unknown time zone '{timezone}'. Use an IANA name such as Europe/Paris or America/New_York."
            ) from error
        now = datetime.now(zone)
        label = timezone.strip()
    else:
        now = datetime.now().astimezone()
        label = now.tzname() or "local time"
    return f"{now.strftime('%A %Y-%m-%d %H:%M:%S')} ({label}, UTC{now.strftime('%z')[:3]}:{now.strftime('%z')[3:]})"


def call_target(options: Mapping[str, OptionValue], tool_name: str) -> str:
    """What a call of ``tool_name`` acts on, for its approval: "in your workspace folder
    ~/Documents" (its paths are relative to the folder, and list_files lists its top by default)."""
    root = options.get("root")
    if tool_name == "current_time" or not isinstance(root, str) or not root.strip():
        return ""
    return f"in your workspace folder {_home_relative(Path(root).expanduser())}"


def _home_relative(path: Path) -> str:
    """``path`` as people write it: ``~/Documents`` for a folder under the home folder."""
    try:
        return str(Path("~") / path.relative_to(Path.home()))
    except ValueError:
        return str(path)


def _int_option(options: Mapping[str, OptionValue], key: str, default: int) -> int:
    value = options.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise BuiltinOptionError(f"options.{key} must be a positive whole number of bytes, not {value!r}")
    return value


def build_workspace_server(context: BuiltinContext, options: Mapping[str, OptionValue]) -> MCPServer:
    """The workspace server over the folder ``options['root']``.

    Raises:
        BuiltinOptionError: ``root`` is missing, or an option has the wrong type.
    """
    unknown = set(options) - {"root", "maxReadBytes", "includeHidden"}
    if unknown:
        raise BuiltinOptionError(
            f"unknown option(s) {', '.join(sorted(unknown))}; the workspace takes root, maxReadBytes, includeHidden"
        )
    root = options.get("root")
    if not isinstance(root, str) or not root.strip():
        raise BuiltinOptionError(
            "the workspace needs a folder: set `options: {root: ~/Documents}` (any folder)"
        )
    include_hidden = options.get("includeHidden", False)
    if not isinstance(include_hidden, bool):
        raise BuiltinOptionError("options.includeHidden must be true or false")
    workspace = Workspace(
        Path(root).expanduser(),
        max_read_bytes=_int_option(options, "maxReadBytes", DEFAULT_MAX_READ_BYTES),
        include_hidden=include_hidden,
    )
    server = MCPServer(
        "contextdesk-workspace",
        version=__version__,
        instructions=f"Date and time, and read-only access to the text files under {workspace.root}.",
    )
    server.add_tool(
        current_time,
        annotations=READ_ONLY,
        name="current_time",
        description="The current date and time. timezone: an IANA name like Europe/Paris; empty for local time.",
    )

    @server.tool(
        annotations=READ_ONLY,
        description="List files and folders in the workspace folder. path: a folder relative to the "
        "workspace ('.' for its top); pattern: a glob like *.md; recursive: include subfolders.",
    )
    def list_files(path: str = ".", pattern: str = "*", recursive: bool = False) -> str:
        return _explained(path, lambda: workspace.list_files(path, pattern, recursive))

    @server.tool(
        annotations=READ_ONLY,
        description="Read a text file of the workspace folder. path: relative to the workspace.",
    )
    def read_file(path: str) -> str:
        return _explained(path, lambda: workspace.read_file(path))

    @server.tool(
        annotations=READ_ONLY,
        description="Search the text files of the workspace for lines containing some text (case-insensitive). "
        "Returns file:line: text for each match.",
    )
    def search_files(query: str, path: str = ".", pattern: str = "*") -> str:
        return _explained(path, lambda: workspace.search_files(query, path, pattern))

    return server
