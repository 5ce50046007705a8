"""``contextdesk memory import``: progress lines on stderr, Ctrl+C stops cleanly after the batch
being written (the first press; a second one stops at once), and the way to finish is printed."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from types import FrameType
from typing import Any

from agent_core.errors import ContextDeskError

__all__ = ["run_import"]

MAX_LINES = 1_000_000  # lines a file may have (about 1 KB of memory each while it is imported)
PROGRESS_EVERY = 2.0  # seconds between two progress lines (and one each tenth of the file)
_COUNTS = ("added", "merged", "superseded", "kept", "blocked", "unchanged")


def run_import(args: argparse.Namespace) -> int:
    from agent_core.agent._text_file import FileRefused, read_bytes
    from agent_core.memory.importing import ImportInterrupted, ImportProgress, import_memories
    from agent_core.memory.jsonl import parse_lines
    from agent_core.memory.opening import open_memory_book

    try:
        text = read_bytes(args.file, limit=200 * 1024 * 1024).decode("utf-8")
    except FileRefused as error:
        raise ContextDeskError(f"{args.file}: {error}") from None
    except UnicodeDecodeError as error:
        raise ContextDeskError(
            f"{args.file} is not UTF-8 text (byte {error.start}): save it as UTF-8."
        ) from None
    rows = text.splitlines()
    del text
    if len(rows) > MAX_LINES:
        raise ContextDeskError(
            f"{args.file} has {len(rows):,} lines; an import reads at most {MAX_LINES:,} (each is held in memory "
            f"while it runs): split it, for example `split -l {MAX_LINES} {args.file} part-`, and import each part."
        )
    lines = parse_lines(rows)
    del rows
    shown = {"at": time.monotonic(), "tenth": 0}

    def progress(step: ImportProgress) -> None:
        tenth = step.done * 10 // max(1, step.total)
        now = time.monotonic()
        if now - shown["at"] >= PROGRESS_EVERY or tenth > shown["tenth"]:
            shown["at"], shown["tenth"] = now, tenth
            print(
                f"[import: {step.done:,} of {step.total:,} lines, {step.saved:,} memories saved]",
                file=sys.stderr,
                flush=True,
            )

    cancel = threading.Event()
    with open_memory_book(args.agent) as book, _stop_on_ctrl_c(cancel):
        try:
            report = import_memories(book, lines, progress=progress, cancel=cancel)
        except ImportInterrupted as error:
            raise ContextDeskError(str(error)) from None
    counts = {key: report.counts.get(key, 0) for key in _COUNTS}
    data = {
        **counts,
        "failed": report.failed,
        "problems": report.problems,
        "ignored_fields": dict(report.ignored_fields),
        "stopped": report.stopped,
        "lines": report.total,
        "done": report.done,
    }
    summary = ", ".join(f"{value} {key}" for key, value in counts.items()) + f", {report.failed} failed"
    out = [f"Imported {args.file}: {summary}."]
    out += [f"  {problem}" for problem in report.problems[:50]]
    if len(report.problems) > 50:
        out.append(f"  … and {len(report.problems) - 50} more (--json lists them all)")
    if report.ignored_fields:
        out.append("  fields ignored: " + ", ".join(sorted(report.ignored_fields)))
    if not report.checked:
        out.append(
            "  a large import: lines were merged only with memories of the same words, not compared by "
            "meaning; their embeddings are made the first time the agent's memories are searched (a chat, "
            "`memory add`), about a minute per 10,000 memories"
        )
    print(json.dumps(data, ensure_ascii=False) if args.json else "\n".join(out))
    if report.stopped:
        print(
            f"Stopped after {report.done:,} of {report.total:,} lines ({report.saved:,} memories saved): run the "
            "same command again to finish; lines already imported are skipped.",
            file=sys.stderr,
        )
        return 130
    return 0 if not report.problems else 1


@contextmanager
def _stop_on_ctrl_c(cancel: threading.Event) -> Iterator[None]:
    """The first Ctrl+C sets ``cancel``; the second interrupts at once (the batch being written
    is rolled back; committed ones stay)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(_signum: int, _frame: FrameType | None) -> Any:
        if cancel.is_set():
            raise KeyboardInterrupt
        cancel.set()
        with suppress(RuntimeError):  # arriving mid-write to stderr: the final message still says it
            print(
                "[import: stopping after the batch being written; Ctrl+C again to stop at once]",
                file=sys.stderr,
            )

    previous = signal.signal(signal.SIGINT, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
