"""The ``contextdesk`` commands: parsing the command line and running one command.

Each command group lives in its own module with a ``register(subparsers)`` function that adds
its parser and sets ``handler`` to a function taking the parsed arguments and returning an exit
code. Adding a command means adding its module to ``COMMAND_MODULES``. Only the module of the
command being run is imported (each pulls in up to half a second of dependencies); all of them
for top-level help or an unknown command.

The ``contextdesk`` program itself is :mod:`desktop.launcher`: it sits above both front ends and
starts the desktop app when no command is given. This module knows nothing of the desktop.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence

from agent_core import __version__
from agent_core.errors import ContextDeskError
from agent_core.redaction import RedactingFilter

__all__ = [
    "BROKEN_PIPE_EXIT",
    "build_parser",
    "configure_logging",
    "main",
    "quiet_on_broken_pipe",
    "run_command",
]

BROKEN_PIPE_EXIT = 141  # 128 + SIGPIPE: what a shell reports for a program whose reader went away

COMMAND_MODULES = {
    "agent": "agent_core.cli.agent_commands",
    "mcp": "agent_core.cli.mcp_commands",
    "select": "agent_core.cli.select_command",
    "index": "agent_core.cli.index_command",
    "chat": "agent_core.cli.chat_command",
    "sessions": "agent_core.cli.sessions_commands",
    "memory": "agent_core.cli.memory_commands",
    "skill": "agent_core.cli.skill_commands",
    "subagent": "agent_core.cli.subagent_commands",
    "workflow": "agent_core.cli.workflow_commands",
}


def _command_in(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (its first word that is not an option), if it is one we know."""
    word = next((arg for arg in argv if not arg.startswith("-")), None)
    return word if word in COMMAND_MODULES else None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the named command's module is imported and registered."""
    parser = argparse.ArgumentParser(
        prog="contextdesk",
        description="A local AI agent whose context you can see and control. "
        "With no command, starts the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"contextdesk {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    command = _command_in(argv) if argv is not None else None
    for module_name in [COMMAND_MODULES[command]] if command else COMMAND_MODULES.values():
        importlib.import_module(module_name).register(subparsers)
    return parser


def run_command(args: argparse.Namespace) -> int:
    """Run the command parsed into ``args``; a ContextDeskError is printed with exit code 1."""
    try:
        return int(args.handler(args))
    except ContextDeskError as error:
        print(f"contextdesk: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def quiet_on_broken_pipe(run: Callable[[], int]) -> int:
    """``run()``, ending quietly with exit code 141 when standard output's reader goes away.

    ``contextdesk sessions list --json | head -1``: ``head`` exits after one line and the next
    write (or the final flush) raises BrokenPipeError. Python's documented recipe: point standard
    output at devnull so the flush at exit cannot fail again, and exit without a traceback.
    """
    try:
        try:
            return run()
        finally:
            sys.stdout.flush()  # inside the try: a broken pipe shows here, not at interpreter exit
    except BrokenPipeError:
        _discard_stdout()
        return BROKEN_PIPE_EXIT


def _discard_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # standard output is no real file (captured in tests)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """The command line alone (no desktop): run the command in ``argv``, or print the help."""
    argv = sys.argv[1:] if argv is None else argv
    return quiet_on_broken_pipe(lambda: _main(argv))


def _main(argv: Sequence[str]) -> int:
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    configure_logging(verbose=args.verbose)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    return run_command(args)


def configure_logging(*, verbose: bool) -> None:
    """Warnings and errors to stderr; with ``verbose``, debug details too."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    for handler in logging.getLogger().handlers:
        handler.addFilter(RedactingFilter())


if __name__ == "__main__":
    sys.exit(main())
