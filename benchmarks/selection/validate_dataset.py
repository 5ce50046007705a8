#!/usr/bin/env python3
"""Validate the context-selection benchmark data set and print its counts.

Usage:
    python benchmarks/selection/validate_dataset.py [--quiet]

Checks:
- agent/agent.yaml parses and has name, description and systemPrompt;
- every rules/*.md and references/*.md file has YAML frontmatter whose keys are
  only name/description/priorityLevel/include, whose name equals the file stem
  and matches the allowed pattern, with an int priorityLevel in 0..999 and
  include == "agent", followed by a non-empty body;
- agent/tools.json is a list of MCP tools with server, name, description and an
  object inputSchema whose properties all have descriptions; (server, name) is unique;
- queries_*.jsonl parse, ids are unique across all query files, every expected
  item exists in the agent, and no expected item is listed twice in one query.

Exits with status 1 if any check fails. Only the standard library and PyYAML are used.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
AGENT = HERE / "agent"
QUERY_FILES = [HERE / "queries_dev.jsonl", HERE / "queries_holdout.jsonl"]

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$")
ALLOWED_FM_KEYS = {"name", "description", "priorityLevel", "include"}
REQUIRED_FM_KEYS = {"name", "description", "priorityLevel", "include"}
QUERY_KEYS = {"id", "message", "expected", "previous", "tags"}
KNOWN_TAGS = {
    "nothing-needed",
    "paraphrase",
    "lexical",
    "follow-up",
    "multi",
    "tool",
    "typo",
    "short",
    "near-domain",
    "mixed",
    "convention",
    "near-twin",
    "indirect",
}
# Failure classes from issue 16; their counts are printed on their own line.
CLASS_TAGS = ("mixed", "convention", "near-twin", "indirect")
# Soft size guidance from the brief (words in the body); violations are warnings.
WORD_RANGES = {"rule": (50, 400), "reference": (300, 2500)}

errors: list[str] = []
warnings: list[str] = []


def err(msg: str) -> None:
    errors.append(msg)


def warn(msg: str) -> None:
    warnings.append(msg)


def split_frontmatter(text: str) -> tuple[str, str] | None:
    if not text.startswith("---\n"):
        return None
    end = text.find("\n---\n", 4)
    if end == -1:
        return None
    return text[4:end], text[end + 5 :]


def load_items(kind: str, folder: Path) -> dict[str, dict]:
    items: dict[str, dict] = {}
    if not folder.is_dir():
        err(f"missing folder {folder}")
        return items
    for path in sorted(folder.glob("*.md")):
        rel = path.relative_to(HERE)
        parts = split_frontmatter(path.read_text(encoding="utf-8"))
        if parts is None:
            err(f"{rel}: no YAML frontmatter delimited by '---' lines")
            continue
        fm_text, body = parts
        try:
            fm = yaml.safe_load(fm_text)
        except yaml.YAMLError as exc:
            err(f"{rel}: frontmatter is not valid YAML: {exc}")
            continue
        if not isinstance(fm, dict):
            err(f"{rel}: frontmatter is not a mapping")
            continue
        extra = set(fm) - ALLOWED_FM_KEYS
        missing = REQUIRED_FM_KEYS - set(fm)
        if extra:
            err(f"{rel}: unexpected frontmatter keys {sorted(extra)}")
        if missing:
            err(f"{rel}: missing frontmatter keys {sorted(missing)}")
        name = fm.get("name")
        if name != path.stem:
            err(f"{rel}: name {name!r} does not match file stem {path.stem!r}")
        if not isinstance(name, str) or not NAME_RE.match(name):
            err(f"{rel}: name {name!r} does not match {NAME_RE.pattern}")
        if not isinstance(fm.get("description"), str) or not fm.get("description", "").strip():
            err(f"{rel}: description must be a non-empty string")
        prio = fm.get("priorityLevel")
        if not isinstance(prio, int) or isinstance(prio, bool) or not 0 <= prio <= 999:
            err(f"{rel}: priorityLevel {prio!r} must be an int in 0..999")
        if fm.get("include") != "agent":
            err(f"{rel}: include must be 'agent', got {fm.get('include')!r}")
        words = len(body.split())
        if words == 0:
            err(f"{rel}: empty body")
        lo, hi = WORD_RANGES[kind]
        if not lo <= words <= hi:
            warn(f"{rel}: body has {words} words (guideline {lo}-{hi})")
        if name in items:
            err(f"{rel}: duplicate {kind} name {name!r}")
        items[str(name)] = {"words": words, "description": fm.get("description")}
    return items


def check_agent_yaml() -> None:
    path = AGENT / "agent.yaml"
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        err(f"agent/agent.yaml: cannot load: {exc}")
        return
    if not isinstance(data, dict):
        err("agent/agent.yaml: not a mapping")
        return
    for key in ("name", "description", "systemPrompt"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            err(f"agent/agent.yaml: missing or empty {key!r}")


def load_tools() -> set[tuple[str, str]]:
    path = AGENT / "tools.json"
    try:
        tools = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        err(f"agent/tools.json: cannot load: {exc}")
        return set()
    if not isinstance(tools, list):
        err("agent/tools.json: top level must be a list")
        return set()
    keys: set[tuple[str, str]] = set()
    for idx, tool in enumerate(tools):
        where = f"agent/tools.json[{idx}]"
        if not isinstance(tool, dict):
            err(f"{where}: not an object")
            continue
        extra = set(tool) - {"server", "name", "description", "inputSchema"}
        if extra:
            err(f"{where}: unexpected keys {sorted(extra)}")
        for key in ("server", "name", "description"):
            if not isinstance(tool.get(key), str) or not tool[key].strip():
                err(f"{where}: missing or empty {key!r}")
        schema = tool.get("inputSchema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            err(f"{where} ({tool.get('name')}): inputSchema must be a JSON schema of type object")
        else:
            props = schema.get("properties", {})
            if not isinstance(props, dict):
                err(f"{where}: inputSchema.properties must be an object")
                props = {}
            for pname, pschema in props.items():
                if not isinstance(pschema, dict) or not str(pschema.get("description", "")).strip():
                    err(f"{where} ({tool.get('name')}): property {pname!r} has no description")
            for req in schema.get("required", []):
                if req not in props:
                    err(f"{where} ({tool.get('name')}): required {req!r} not in properties")
        key = (str(tool.get("server")), str(tool.get("name")))
        if key in keys:
            err(f"{where}: duplicate tool {key}")
        keys.add(key)
    return keys


def load_queries(
    path: Path,
    rules: set[str],
    refs: set[str],
    tools: set[tuple[str, str]],
    seen_ids: set[str],
    seen_messages: dict[tuple[str, str | None], str],
) -> list[dict]:
    rel = path.name
    queries: list[dict] = []
    if not path.exists():
        err(f"missing {rel}")
        return queries
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        where = f"{rel}:{lineno}"
        try:
            q = json.loads(line)
        except json.JSONDecodeError as exc:
            err(f"{where}: invalid JSON: {exc}")
            continue
        if not isinstance(q, dict):
            err(f"{where}: not an object")
            continue
        extra = set(q) - QUERY_KEYS
        if extra:
            err(f"{where}: unexpected keys {sorted(extra)}")
        qid = q.get("id")
        if not isinstance(qid, str) or not qid:
            err(f"{where}: missing id")
        elif qid in seen_ids:
            err(f"{where}: duplicate id {qid!r}")
        else:
            seen_ids.add(qid)
        msg = q.get("message")
        if not isinstance(msg, str) or not msg.strip():
            err(f"{where}: missing message")
        prev = q.get("previous")
        if prev is not None and (not isinstance(prev, str) or not prev.strip()):
            err(f"{where}: previous must be a non-empty string when present")
        mkey = (str(msg).strip().lower(), prev)
        if mkey in seen_messages:
            err(f"{where}: same message as {seen_messages[mkey]}")
        else:
            seen_messages[mkey] = f"{rel} {qid}"
        tags = q.get("tags", [])
        if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
            err(f"{where}: tags must be a list of strings")
            tags = []
        for t in tags:
            if t not in KNOWN_TAGS:
                warn(f"{where}: unknown tag {t!r}")
        expected = q.get("expected")
        if not isinstance(expected, list):
            err(f"{where}: expected must be a list")
            expected = []
        seen_exp: set[tuple] = set()
        for e in expected:
            if not isinstance(e, dict):
                err(f"{where}: expected entry {e!r} is not an object")
                continue
            etype, name = e.get("type"), e.get("name")
            if etype == "rule":
                ok, key = name in rules, ("rule", name)
            elif etype == "reference":
                ok, key = name in refs, ("reference", name)
            elif etype == "tool":
                key = ("tool", e.get("server"), name)
                ok = (e.get("server"), name) in tools
            else:
                err(f"{where}: unknown expected type {etype!r}")
                continue
            if etype != "tool" and "server" in e:
                err(f"{where}: server given for non-tool item {name!r}")
            if not ok:
                err(f"{where}: expected item does not exist: {e}")
            if key in seen_exp:
                err(f"{where}: expected item listed twice: {e}")
            seen_exp.add(key)
        # consistency between tags and labels
        if "nothing-needed" in tags and expected:
            err(f"{where}: tagged nothing-needed but has expected items")
        if not expected and "nothing-needed" not in tags:
            err(f"{where}: empty expected but not tagged nothing-needed")
        if "follow-up" in tags and prev is None:
            err(f"{where}: tagged follow-up but has no previous")
        if prev is not None and "follow-up" not in tags:
            warn(f"{where}: has previous but is not tagged follow-up")
        if "multi" in tags and len(expected) < 2:
            err(f"{where}: tagged multi but has {len(expected)} expected items")
        has_tool = any(isinstance(e, dict) and e.get("type") == "tool" for e in expected)
        if has_tool != ("tool" in tags):
            err(f"{where}: 'tool' tag does not match presence of tool labels")
        queries.append(q)
    return queries


def summarise(name: str, queries: list[dict]) -> None:
    n = len(queries)
    tag_counts = Counter(t for q in queries for t in q.get("tags", []))
    type_counts = Counter(e["type"] for q in queries for e in q["expected"])
    sizes = Counter(len(q["expected"]) for q in queries)
    print(f"\n{name}: {n} queries")
    print("  tags:", ", ".join(f"{t}={c} ({100 * c / n:.0f}%)" for t, c in sorted(tag_counts.items())))
    print(
        "  classes:",
        ", ".join(f"{t}={tag_counts.get(t, 0)} ({100 * tag_counts.get(t, 0) / n:.0f}%)" for t in CLASS_TAGS),
    )
    print("  expected labels by type:", dict(sorted(type_counts.items())))
    print("  queries by number of expected items:", dict(sorted(sizes.items())))


def main() -> int:
    quiet = "--quiet" in sys.argv
    check_agent_yaml()
    rules = load_items("rule", AGENT / "rules")
    refs = load_items("reference", AGENT / "references")
    tools = load_tools()

    seen_ids: set[str] = set()
    seen_messages: dict = {}
    all_queries: dict[str, list[dict]] = {}
    for path in QUERY_FILES:
        all_queries[path.name] = load_queries(path, set(rules), set(refs), tools, seen_ids, seen_messages)

    print("Agent items")
    print(
        f"  rules: {len(rules)}  references: {len(refs)}  tools: {len(tools)}  total: {len(rules) + len(refs) + len(tools)}"
    )
    servers = Counter(s for s, _ in tools)
    print("  tools per server:", dict(sorted(servers.items())))
    if rules:
        w = sorted(v["words"] for v in rules.values())
        print(f"  rule body words: min {w[0]}, median {w[len(w) // 2]}, max {w[-1]}")
    if refs:
        w = sorted(v["words"] for v in refs.values())
        print(f"  reference body words: min {w[0]}, median {w[len(w) // 2]}, max {w[-1]}")

    for name, qs in all_queries.items():
        summarise(name, qs)

    used = Counter()
    for qs in all_queries.values():
        for q in qs:
            for e in q["expected"]:
                used[(e["type"], e.get("server"), e["name"])] += 1
    unused_rules = sorted(r for r in rules if ("rule", None, r) not in used)
    unused_refs = sorted(r for r in refs if ("reference", None, r) not in used)
    unused_tools = sorted(f"{s}/{t}" for s, t in tools if ("tool", s, t) not in used)
    print("\nItems never expected (distractors):")
    print(f"  rules ({len(unused_rules)}): {', '.join(unused_rules) or '-'}")
    print(f"  references ({len(unused_refs)}): {', '.join(unused_refs) or '-'}")
    print(f"  tools ({len(unused_tools)}): {', '.join(unused_tools) or '-'}")

    if warnings and not quiet:
        print(f"\nWarnings ({len(warnings)}):")
        for w in warnings:
            print("  -", w)
    if errors:
        print(f"\nERRORS ({len(errors)}):")
        for e in errors:
            print("  -", e)
        return 1
    print("\nOK: all checks passed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
