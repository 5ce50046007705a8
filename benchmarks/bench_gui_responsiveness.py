"""The desktop's event loop while it indexes 400 references and streams a reply (issue #18).

A copy of the default agent (the bundled SmolLM2 model) gets 400 references written from text
that ships with Python and the installed packages (module documentation, package descriptions).
The app opens it, which starts indexing them with MiniLM; a message is sent at once, so it waits
for the index and then streams from llama.cpp. A 5 ms timer on the GUI thread records how late
each tick comes: a stall is a gap between ticks beyond the interval. Goal: none over 50 ms.

    .venv/bin/python benchmarks/bench_gui_responsiveness.py [--references 400]

Qt runs offscreen unless a display is set (DISPLAY=:N for a real window under Xvfb).
"""

from __future__ import annotations

import argparse
import ast
import itertools
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_MS = 50.0
TICK_MS = 5
MESSAGE = "Give me three tips for writing clear documentation."


def real_texts(count: int) -> list[tuple[str, str]]:
    """(title, text) of ``count`` documents a user could have: package descriptions first, then
    the documentation of standard-library modules (read from their source, never imported)."""
    texts: dict[str, str] = {}
    for dist in metadata.distributions():
        body = dist.metadata.get_payload() if hasattr(dist.metadata, "get_payload") else ""
        name = dist.metadata["Name"] or ""
        if isinstance(body, str) and len(body) > 400 and name:
            texts.setdefault(f"package {name}", body[:20_000])
    for library in (Path(sysconfig.get_paths()["stdlib"]), Path(sysconfig.get_paths()["purelib"])):
        for source in sorted(library.rglob("*.py")):
            if len(texts) >= count:
                break
            if {"test", "tests"} & set(source.parts) or source.name.startswith("_"):
                continue
            if library.name != "site-packages" and "site-packages" in source.parts:
                continue
            try:
                doc = ast.get_docstring(ast.parse(source.read_text(encoding="utf-8")))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            if doc and len(doc) > 300:
                module = ".".join(source.relative_to(library).with_suffix("").parts)
                texts.setdefault(f"python module {module}", doc)
    if len(texts) < count:
        raise SystemExit(f"only {len(texts)} documents found here; ask for fewer with --references")
    return list(texts.items())[:count]


def make_agent(folder: Path, count: int) -> Path:
    agent = folder / "agent"
    shutil.copytree(ROOT / "resources" / "default-agent", agent)
    references = agent / "references"
    for number, (title, text) in enumerate(real_texts(count)):
        description = " ".join(text.split())[:120].replace(":", " ")
        (references / f"doc-{number:03d}.md").write_text(
            f"---\nname: doc-{number:03d}\ndescription: {title} - {description}\ninclude: agent\n---\n\n"
            f"# {title}\n\n{text}\n",
            encoding="utf-8",
        )
    return agent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--references", type=int, default=400)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--verbose", action="store_true", help="list each stall over the goal")
    args = parser.parse_args()
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["HF_HUB_OFFLINE"] = "1"

    with tempfile.TemporaryDirectory() as home:
        os.environ["CONTEXTDESK_HOME"] = str(Path(home) / "home")
        agent = make_agent(Path(home), args.references)

        from PySide6.QtCore import QElapsedTimer, Qt, QTimer

        from desktop.app import DesktopApp, create_app

        app = create_app()
        desktop = DesktopApp()
        clock = QElapsedTimer()
        clock.start()
        ticks: list[float] = []
        marks: dict[str, float] = {}
        timer = QTimer()
        timer.setTimerType(Qt.TimerType.PreciseTimer)
        timer.setInterval(TICK_MS)
        timer.timeout.connect(lambda: ticks.append(clock.nsecsElapsed() / 1e6))

        def send() -> None:
            view = desktop.window.current_view()
            assert view is not None
            marks["sent"] = clock.nsecsElapsed() / 1e6
            controller = view.controller

            def busy(on: bool) -> None:
                if not on and "sent" in marks and "done" not in marks:
                    marks["done"] = clock.nsecsElapsed() / 1e6
                    QTimer.singleShot(200, app.quit)

            controller.busy_changed.connect(busy)
            controller.conversation.dataChanged.connect(
                lambda *_: (
                    marks.setdefault("first words", clock.nsecsElapsed() / 1e6)
                    if controller.conversation.rowCount() >= 2
                    and controller.conversation.entry(controller.conversation.rowCount() - 1).kind
                    == "assistant"
                    and controller.conversation.entry(controller.conversation.rowCount() - 1).text
                    else None
                )
            )
            view.submit(MESSAGE)

        desktop.window.background.indexing.finished.connect(
            lambda _done: marks.setdefault("indexed", clock.nsecsElapsed() / 1e6)
        )
        desktop.window.ready.connect(lambda: QTimer.singleShot(0, send) if "sent" not in marks else None)
        QTimer.singleShot(int(args.timeout * 1000), app.quit)
        timer.start()
        started = time.perf_counter()
        QTimer.singleShot(0, lambda: desktop.start(agent))
        app.exec()
        timer.stop()
        desktop.close()
        seconds = time.perf_counter() - started

    if "done" not in marks:
        print(f"the reply did not finish within {args.timeout:.0f} s: {marks}", file=sys.stderr)
        return 1
    sent = marks["sent"]
    gaps = [(b - a) - TICK_MS for a, b in itertools.pairwise(ticks) if a >= sent]
    late = sorted(gaps)
    p99 = late[int(0.99 * (len(late) - 1))]
    over = sum(1 for gap in gaps if gap > GOAL_MS)
    print(
        f"GUI event loop while indexing {args.references} references and streaming a reply "
        f"({seconds:.0f} s in all; indexed {marks.get('indexed', 0) / 1000:.1f} s after start, "
        f"first words {(marks.get('first words', sent) - sent) / 1000:.1f} s after sending, "
        f"reply done {(marks['done'] - sent) / 1000:.1f} s after sending)"
    )
    print(f"{'':34}{'measured':>12}{'goal':>10}")
    print(f"{'longest stall':34}{max(gaps):>10.1f} ms{'≤ 50 ms':>10}")
    print(f"{'99th percentile of tick lateness':34}{p99:>10.1f} ms")
    print(f"{'median tick lateness':34}{statistics.median(gaps):>10.1f} ms")
    print(f"{'stalls over 50 ms':34}{over:>12}{'0':>10}")
    print(f"{'ticks measured':34}{len(gaps):>12}")
    if args.verbose:
        for a, b in itertools.pairwise(ticks):
            if a >= sent and b - a - TICK_MS > GOAL_MS:
                print(f"  stall of {b - a - TICK_MS:.0f} ms at {(a - sent) / 1000:.2f} s after sending")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
