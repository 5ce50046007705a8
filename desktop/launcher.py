"""The ``contextdesk`` program: the desktop app with no command, else a command-line command.

Both front ends hang from this module. It lives in ``desktop`` because that is the only package
allowed to import both ``agent_core`` (the command line) and the desktop app: the core must not
reach up to the GUI. It imports no Qt itself, so ``contextdesk chat ...`` never loads Qt, and
``contextdesk`` with no arguments imports none of the command modules (half a second of imports).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from agent_core.cli.main import build_parser, configure_logging, quiet_on_broken_pipe, run_command

__all__ = ["main", "start_desktop"]


def start_desktop() -> int:
    """Start the desktop app, or explain why it cannot start."""
    try:
        # Imported by name, when asked for: desktop.app loads Qt.
        desktop_main = importlib.import_module("desktop.app").main
    except ModuleNotFoundError as error:
        package = (error.name or "a package it needs").split(".")[0]  # PySide6.QtCore -> PySide6
        print(
            f"contextdesk: the desktop app cannot start: {package} is not installed. "
            "Fix: run `python3 dev.py run`, or `pip install 'contextdesk[desktop]'`; "
            "the command line works without it (`contextdesk --help`).",
            file=sys.stderr,
        )
        return 2
    return int(desktop_main())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``contextdesk`` console script."""
    argv = sys.argv[1:] if argv is None else argv
    return quiet_on_broken_pipe(lambda: _main(argv))


def _main(argv: Sequence[str]) -> int:
    if not argv:
        configure_logging(verbose=False)
        return start_desktop()
    args = build_parser(argv).parse_args(argv)
    configure_logging(verbose=args.verbose)
    if args.command is None:  # only options such as --verbose: the desktop app, as with none
        return start_desktop()
    return run_command(args)


if __name__ == "__main__":
    sys.exit(main())
