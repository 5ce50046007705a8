"""The app pack (``scale/app_pack.jsonl``): real apps and their real operations, read from a
snapshot of the Activepieces repository (community pieces, MIT), rendered with the app template
of ``scale_build.py``. Built by ``scale_build.py --app-pack-from GIT_DIR``.

A piece's app name is the ``displayName`` of its ``createPiece`` call (``src/index.ts``); its
operations are the ``displayName`` of its ``createAction`` calls (any ``.ts`` file under ``src/``,
in path order), lower-cased, at most ``OPS_PER_APP`` of them.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

PACK_LICENCE = "MIT"
PIECES = "packages/pieces/community/"
OPS_PER_APP = 5

# Pieces that are not a third-party app: Activepieces' own helpers and bare protocols.
NOT_APPS = frozenset(
    {
        "activepieces",
        "ai",
        "anyhook-graphql",
        "anyhook-websocket",
        "flow-helper",
        "flow-parser",
        "http-oauth2",
        "imap",
        "json",
        "mcp",
        "queue",
        "rss",
        "soap",
    }
)

_CREATE_PIECE = re.compile(r"createPiece\s*\(")
_CREATE_ACTION = re.compile(r"createAction\s*\(")
_DISPLAY_NAME = re.compile(r"displayName:\s*(['\"`])(.+?)\1")


def _read_blobs(git_dir: Path, paths: list[str]) -> dict[str, str]:
    """The text of each path at HEAD, read through one ``git cat-file --batch``."""
    request = "".join(f"HEAD:{p}\n" for p in paths).encode()
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        input=request,
        check=True,
        capture_output=True,
    ).stdout
    texts: dict[str, str] = {}
    pos = 0
    for path in paths:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue  # "missing": a file the snapshot lacks
        size = int(header[2])
        texts[path] = out[pos : pos + size].decode("utf-8", "replace")
        pos += size + 1
    return texts


def _display_name_after(text: str, call: re.Pattern[str]) -> str | None:
    start = call.search(text)
    if start is None:
        return None
    found = _DISPLAY_NAME.search(text, start.end())
    return " ".join(found.group(2).split()) if found else None


def _words(app: str) -> tuple[str, ...]:
    return tuple(re.findall(r"[a-z0-9]+", app.lower()))


def _names_an_app(app: str, known: Iterable[str]) -> bool:
    """True when ``app`` is one of ``known`` or contains one as whole words ("Jira Cloud", "Microsoft
    Outlook", "Fireflies.ai"): an unlabelled near copy of a labelled app would count against it."""
    words = _words(app)
    for other in known:
        sub = _words(other)
        if any(words[i : i + len(sub)] == sub for i in range(len(words) - len(sub) + 1)):
            return True
    return False


def pieces(git_dir: Path) -> list[tuple[str, str, list[str]]]:
    """``(path of src/index.ts, app name, operations)`` for every community piece with an action."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", "HEAD", PIECES],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    sources = sorted(p for p in listing if p.endswith(".ts") and "/src/" in p and ".spec." not in p)
    texts = _read_blobs(git_dir, sources)
    found = []
    for folder in sorted({p[len(PIECES) :].split("/")[0] for p in sources}):
        index = f"{PIECES}{folder}/src/index.ts"
        if folder in NOT_APPS or index not in texts:
            continue
        app = _display_name_after(texts[index], _CREATE_PIECE)
        ops: list[str] = []
        for path in (p for p in sources if p.startswith(f"{PIECES}{folder}/src/")):
            op = (_display_name_after(texts.get(path, ""), _CREATE_ACTION) or "").rstrip(" .").lower()
            if op and op not in ops and op != "custom api call":
                ops.append(op)
        if app and ops:
            found.append((index, app, ops[:OPS_PER_APP]))
    return found


def pack_items(git_dir: Path, known_apps: Iterable[str], description: str, body: str) -> list[dict[str, Any]]:
    """The pack's items as ``app`` plus the item fields but the names: the apps not among
    ``known_apps`` (two pieces of one name both stay; the names tell them apart)."""
    repo = git_dir.parent.name.replace("+", "/")  # mirrors keep a snapshot as owner+name/repo
    commit = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-parse", "HEAD"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()[:8]
    known = list(known_apps)
    items = []
    for index, app, ops in pieces(git_dir):
        if _names_an_app(app, known):
            continue
        joined = ", ".join(ops)
        items.append(
            {
                "app": app,
                "description": description.format(app=app, ops=joined),
                "text": body.format(app=app, ops=joined).strip(),
                "source": f"{repo}@{commit}:{index}",
                "licence": PACK_LICENCE,
                "group": "app-pack",
            }
        )
    return items
