"""Writing one benchmark's section of docs/benchmarks.md, leaving the other sections as they are."""

from __future__ import annotations

from pathlib import Path

BENCHMARKS_DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"


def replace_section(section: str, path: Path = BENCHMARKS_DOC) -> None:
    """Put ``section`` (text starting with its ``## `` heading) into ``path`` in place of the section
    with the same heading, or at the end if there is none."""
    heading = section.split("\n", 1)[0]
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    body = section.rstrip("\n") + "\n"
    start = text.find(heading + "\n")
    if start == -1:
        text = text.rstrip("\n") + "\n\n" + body
    else:
        end = text.find("\n## ", start + 1)
        text = text[:start] + body + ("\n" + text[end + 1 :] if end != -1 else "")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
