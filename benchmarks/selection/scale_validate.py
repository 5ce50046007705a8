"""Check the selection-at-scale data set (``benchmarks/selection/scale/``) and print its counts.

    .venv/bin/python benchmarks/selection/scale_validate.py

Checks: every item has a valid, unique skill name, a description and a text of at most 2,000
characters, a source and a licence, and ``same_body_as`` names an earlier item with the same
text; the 31-item library names 31 distinct items; every message has a unique id, a message
written once across both splits, labels that name existing items (none twice), and known tags;
tags agree with labels (``nothing-needed`` exactly when nothing is expected); every item of the
app pack (``app_pack.jsonl``, when there) has the item fields, a valid name unique against the
items and the pack, the group ``app-pack``, and the app template's description and title. Exits 1
on any problem. Standard library only.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "scale"
SPLITS = ("dev", "holdout")
NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_TEXT = 2000
LIBRARY_SIZE = 31
ITEM_KEYS = {"name", "original_name", "description", "text", "source", "licence", "group", "same_body_as"}
MESSAGE_KEYS = {"id", "message", "expected", "tags"}
PACK_KEYS = ITEM_KEYS - {"same_body_as"}
# APP_DESCRIPTION of scale_build.py, the app and its operations left open.
PACK_DESCRIPTION = re.compile(
    r"^Automate (?P<app>.+?) tasks via the connected MCP tool server: (?P<ops>.*[^.])\. "
    r"Always search tools first for current schemas\.$"
)
TAGS = {
    "nothing-needed",  # expects nothing
    "near-domain",  # expects nothing but sounds close to an item
    "short",  # a few words
    "typo",  # misspelt
    "compound",  # "do X and Y": several items, or one clause-heavy request
    "app",  # needs one of the templated app skills
    "use-when",  # needs a process skill described by when to use it
    "name",  # names a library, tool, file type or product that an item names
    "duplicate",  # the labelled item has byte-identical copies in the set
    "paraphrase",  # shares few words with the item it needs
}


def _rows(path: Path, problems: list[str]) -> list[dict[str, Any]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            problems.append(f"{path.name}:{number}: not JSON ({error})")
            continue
        if not isinstance(row, dict):
            problems.append(f"{path.name}:{number}: not an object")
            continue
        rows.append(row)
    return rows


def check_items(data: Path, problems: list[str]) -> dict[str, dict[str, Any]]:
    items: dict[str, dict[str, Any]] = {}
    for row in _rows(data / "items.jsonl", problems):
        name = row.get("name", "")
        where = f"items.jsonl {name!r}"
        if set(row) - ITEM_KEYS or not {"name", "description", "text", "source", "licence"} <= set(row):
            problems.append(f"{where}: keys {sorted(row)}; expected {sorted(ITEM_KEYS)}")
        if not isinstance(name, str) or not NAME.match(name) or len(name) > 64:
            problems.append(f"{where}: not a valid skill name")
        if name in items:
            problems.append(f"{where}: name used twice")
        if not str(row.get("description", "")).strip():
            problems.append(f"{where}: empty description")
        if not str(row.get("text", "")).strip() or len(str(row.get("text", ""))) > MAX_TEXT:
            problems.append(f"{where}: text empty or over {MAX_TEXT} characters")
        twin = row.get("same_body_as")
        if twin is not None and (twin not in items or items[twin]["text"] != row.get("text")):
            problems.append(f"{where}: same_body_as {twin!r} is not an earlier item with the same text")
        items[name] = row
    return items


def check_app_pack(data: Path, items: dict[str, dict[str, Any]], problems: list[str]) -> int:
    """The pack's problems; how many items it has (0 without the file)."""
    path = data / "app_pack.jsonl"
    if not path.exists():
        return 0
    names: set[str] = set()
    rows = _rows(path, problems)
    for row in rows:
        name = row.get("name", "")
        where = f"app_pack.jsonl {name!r}"
        if set(row) != PACK_KEYS:
            problems.append(f"{where}: keys {sorted(row)}; expected {sorted(PACK_KEYS)}")
        if not isinstance(name, str) or not NAME.match(name) or len(name) > 64:
            problems.append(f"{where}: not a valid skill name")
        if name in items or name in names:
            problems.append(f"{where}: name used twice (the items and the pack share one namespace)")
        names.add(str(name))
        if row.get("group") != "app-pack":
            problems.append(f"{where}: group {row.get('group')!r}; expected 'app-pack'")
        described = PACK_DESCRIPTION.match(str(row.get("description", "")))
        if described is None:
            problems.append(f"{where}: description does not follow the app template")
        elif not str(row.get("text", "")).startswith(f"# {described['app']} Automation\n"):
            problems.append(f"{where}: text does not follow the app template for {described['app']!r}")
        if len(str(row.get("text", ""))) > MAX_TEXT or not row.get("source") or not row.get("licence"):
            problems.append(f"{where}: text over {MAX_TEXT} characters, or no source or licence")
    return len(rows)


def check_library(data: Path, items: dict[str, dict[str, Any]], problems: list[str]) -> list[str]:
    lines = (data / "library31.txt").read_text(encoding="utf-8").splitlines()
    library = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    if len(library) != LIBRARY_SIZE or len(set(library)) != LIBRARY_SIZE:
        problems.append(f"library31.txt: {len(set(library))} distinct names; expected {LIBRARY_SIZE}")
    problems.extend(f"library31.txt: {name!r} is not an item" for name in library if name not in items)
    return library


def check_messages(
    data: Path, items: dict[str, dict[str, Any]], problems: list[str]
) -> dict[str, list[dict[str, Any]]]:
    splits = {split: _rows(data / f"messages_{split}.jsonl", problems) for split in SPLITS}
    every = [row for rows in splits.values() for row in rows]
    for key, label in (("id", "id"), ("message", "message")):
        counts = Counter(str(row.get(key, "")).strip().lower() for row in every)
        problems.extend(f"messages: {label} {value!r} used {n} times" for value, n in counts.items() if n > 1)
    for row in every:
        where = f"message {row.get('id')!r}"
        if set(row) != MESSAGE_KEYS:
            problems.append(f"{where}: keys {sorted(row)}; expected {sorted(MESSAGE_KEYS)}")
            continue
        expected, tags = row["expected"], row["tags"]
        if not str(row["message"]).strip():
            problems.append(f"{where}: empty message")
        problems.extend(f"{where}: {name!r} is not an item" for name in expected if name not in items)
        if len(set(expected)) != len(expected):
            problems.append(f"{where}: an item is expected twice")
        problems.extend(f"{where}: unknown tag {tag!r}" for tag in tags if tag not in TAGS)
        if ("nothing-needed" in tags) != (not expected):
            problems.append(f"{where}: tagged nothing-needed exactly when nothing is expected")
        duplicated = any(
            items.get(name, {}).get("same_body_as") or _has_copy(name, items) for name in expected
        )
        if ("duplicate" in tags) != duplicated:
            problems.append(f"{where}: tagged duplicate exactly when a labelled item has a copy")
    return splits


def _has_copy(name: str, items: dict[str, dict[str, Any]]) -> bool:
    return any(row.get("same_body_as") == name for row in items.values())


def validate(data: Path = DATA) -> tuple[list[str], str]:
    """(problems, a summary of the counts)."""
    problems: list[str] = []
    items = check_items(data, problems)
    library = set(check_library(data, items, problems))
    splits = check_messages(data, items, problems)
    pack = check_app_pack(data, items, problems)
    groups = Counter(row.get("group") for row in items.values())
    sources = Counter(
        str(row["source"]).split("@")[0] for row in items.values() if row.get("group") == "collection"
    )
    lines = [
        f"items: {len(items)} ({groups['collection']} from {len(sources)} collections, "
        f"{groups['app-template']} templated app skills, {sum('same_body_as' in r for r in items.values())} "
        f"byte-identical copies); app pack: {pack} unlabelled templated app skills"
    ]
    for split, rows in splits.items():
        tags = Counter(tag for row in rows for tag in row.get("tags", ()))
        served = sum(1 for row in rows if row.get("expected") and set(row["expected"]) <= library)
        lines.append(
            f"{split}: {len(rows)} messages, {tags['nothing-needed']} need nothing, {served} served by the "
            f"31-item library; tags " + ", ".join(f"{tag} {n}" for tag, n in sorted(tags.items()))
        )
    return problems, "\n".join(lines)


def main() -> int:
    problems, summary = validate()
    print(summary)
    for problem in problems:
        print(f"problem: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
