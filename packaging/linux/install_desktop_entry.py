"""Add ContextDesk to the desktop's application menu (Linux, freedesktop.org), for this user.

    .venv/bin/python packaging/linux/install_desktop_entry.py [--uninstall]

Writes ~/.local/share/applications/contextdesk.desktop, whose Exec is the absolute path of the
`contextdesk` command next to this Python (so a virtual environment works without being on
PATH), and the icon to ~/.local/share/icons/hicolor/scalable/apps/contextdesk.svg.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

PACKAGING = Path(__file__).resolve().parent
TEMPLATE = PACKAGING / "contextdesk.desktop"
ICON = PACKAGING.parents[1] / "resources" / "icons" / "contextdesk.svg"


def data_home() -> Path:
    return Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")


def entry_text(command: Path) -> str:
    lines = TEMPLATE.read_text(encoding="utf-8").splitlines()
    return "\n".join(f"Exec={command}" if line.startswith("Exec=") else line for line in lines) + "\n"


def install(command: Path) -> list[Path]:
    if not command.is_file():
        raise SystemExit(f"{command} does not exist: install ContextDesk first (python3 dev.py run)")
    entry = data_home() / "applications" / "contextdesk.desktop"
    icon = data_home() / "icons" / "hicolor" / "scalable" / "apps" / "contextdesk.svg"
    for path in (entry, icon):
        path.parent.mkdir(parents=True, exist_ok=True)
    temporary = entry.with_suffix(".tmp")
    temporary.write_text(entry_text(command), encoding="utf-8")
    temporary.replace(entry)
    shutil.copyfile(ICON, icon)
    return [entry, icon]


def uninstall() -> list[Path]:
    removed = []
    for path in (
        data_home() / "applications" / "contextdesk.desktop",
        data_home() / "icons" / "hicolor" / "scalable" / "apps" / "contextdesk.svg",
    ):
        if path.exists():
            path.unlink()
            removed.append(path)
    return removed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--uninstall", action="store_true", help="remove the entry and the icon")
    args = parser.parse_args(argv)
    if args.uninstall:
        paths = uninstall()
        print("\n".join(f"removed {p}" for p in paths) or "nothing to remove")
    else:
        for path in install(Path(sys.executable).with_name("contextdesk")):
            print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
