"""Import every file of a folder tree into a fresh agent each, as a new user would (issue #17).

    .venv/bin/python benchmarks/import_corpus.py FOLDER [--json]

Reported: files tried, imported, failed with a clear message, tracebacks (goal 0), half-written
agents (goal 0), MCP servers in the sources against servers in the agents with command, args, env
and url intact (goal >= 97 %), rules in the sources against rules in the agents, and each content
difference. A value the import moved out as a secret (``env://VAR``, ``${VAR}``) or a variable
spelled another way (Gemini's ``$VAR``) counts as intact: the agent refers to it, the report says
how to set it. Servers are counted from the raw files here, not by the importer, so a server the
importer overlooks shows up as missing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import traceback
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from agent_core.agent import load_agent
from agent_core.agent._frontmatter import FrontmatterError, split_frontmatter
from agent_core.agent.importers import import_source
from agent_core.agent.importers._common import AgentImportError, read_structured_file
from agent_core.agent.names import name_problem, suggest_name
from agent_core.errors import ContextDeskError

GOAL_INTACT = 0.97
# Where each app keeps its servers (independent of the importer's own detection).
_SERVER_KEYS = (("mcpServers",), ("servers",), ("mcp", "servers"), ("context_servers",), ("extensions",))
_REFERENCE = re.compile(r"env://[A-Za-z0-9_]+|\$\{[^}]*\}|(?<![$\w])\$[A-Za-z_][A-Za-z0-9_]*")
_RULE_SUFFIXES = (".mdc", ".mdt")
_RULE_NAMES = (".cursorrules",)


@dataclass
class CorpusReport:
    files: int = 0
    imported: int = 0
    failed: int = 0  # with a message (AgentImportError or another ContextDeskError)
    tracebacks: int = 0
    half_written: int = 0  # a failed import that left files in the target
    servers_in_sources: int = 0
    servers_in_agents: int = 0
    servers_intact: int = 0
    rules_in_sources: int = 0
    rules_in_agents: int = 0
    rule_bodies_same: int = 0  # a rule file's body found, whitespace aside, in the agent
    failures: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)

    @property
    def intact_share(self) -> float:
        return self.servers_intact / self.servers_in_sources if self.servers_in_sources else 1.0

    def lines(self) -> list[str]:
        share = f"{self.intact_share:.1%}"
        goal = "ok" if self.intact_share >= GOAL_INTACT else f"below the goal of {GOAL_INTACT:.0%}"
        out = [
            f"files tried: {self.files}",
            f"imported: {self.imported}",
            f"failed with a message: {self.failed}",
            f"tracebacks: {self.tracebacks}" + ("" if not self.tracebacks else "  <-- goal 0"),
            f"half-written agents: {self.half_written}" + ("" if not self.half_written else "  <-- goal 0"),
            f"MCP servers: {self.servers_in_sources} in the sources, {self.servers_in_agents} in the agents, "
            f"{self.servers_intact} intact ({share}, {goal})",
            f"rules: {self.rules_in_sources} in the sources, {self.rules_in_agents} in the agents, "
            f"{self.rule_bodies_same} with the same body (whitespace aside)",
        ]
        out += [f"  failed: {line}" for line in self.failures]
        out += [f"  traceback: {line}" for line in self.crashes]
        out += [f"  difference: {line}" for line in self.differences]
        return out


def run_corpus(folder: Path) -> CorpusReport:
    """Import each file under ``folder`` into its own temporary agent and compare."""
    report = CorpusReport()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        report.files += 1
        expected = _source_servers(path)
        report.servers_in_sources += len(expected)
        report.rules_in_sources += _source_rules(path)
        with tempfile.TemporaryDirectory() as temporary:
            target = Path(temporary) / "agent"
            try:
                import_source(path, target)
            except (AgentImportError, ContextDeskError) as error:
                report.failed += 1
                report.failures.append(f"{path.relative_to(folder)}: {error}")
                if target.exists() and any(target.iterdir()):
                    report.half_written += 1
                continue
            except Exception:  # noqa: BLE001 - what is measured: every crash is counted, none stops the run
                report.tracebacks += 1
                report.crashes.append(f"{path.relative_to(folder)}: {traceback.format_exc(limit=3)}")
                continue
            report.imported += 1
            agent = load_agent(target)
            report.rules_in_agents += len(agent.rules)
            body = _source_body(path)
            if body is not None:
                bodies = {_normal(item.text) for item in [*agent.rules.values(), *agent.references.values()]}
                if _normal(body) in bodies:
                    report.rule_bodies_same += 1
                else:
                    report.differences.append(f"{path.relative_to(folder)}: the rule's body differs")
            servers = agent.config.mcp_servers
            report.servers_in_agents += len(servers)
            for name, block in expected.items():
                found = servers.get(name) or servers.get(suggest_name(name) if name_problem(name) else name)
                if found is None:
                    report.differences.append(f"{path.relative_to(folder)}: server '{name}' is missing")
                    continue
                problems = _differences(block, found.model_dump(by_alias=True))
                if problems:
                    report.differences.append(f"{path.relative_to(folder)}: '{name}' {'; '.join(problems)}")
                else:
                    report.servers_intact += 1
    return report


def _source_servers(path: Path) -> dict[str, dict[str, Any]]:
    """The servers a file describes, each as {command, args, env, url}, read from the raw data."""
    try:
        data = read_structured_file(path)
    except AgentImportError:
        return {}
    for keys in _SERVER_KEYS:
        found: Any = data
        for key in keys:
            found = found.get(key) if isinstance(found, Mapping) else None
        if isinstance(found, Mapping) and found:
            break
    else:
        return {}
    servers: dict[str, dict[str, Any]] = {}
    for name, block in found.items():
        if not isinstance(block, Mapping):
            continue
        command = block.get("command", block.get("cmd"))
        args, env = block.get("args") or [], block.get("env", block.get("envs")) or {}
        if isinstance(command, Mapping):  # Zed's older {"path", "args", "env"}
            args, env, command = command.get("args") or [], command.get("env") or {}, command.get("path")
        url = next((block[k] for k in ("url", "serverUrl", "httpUrl", "uri") if block.get(k)), None)
        if command or url:  # no command and no url: built into the other app, nothing to start
            servers[str(name)] = {"command": command, "args": list(args), "env": dict(env), "url": url}
    return servers


def _source_body(path: Path) -> str | None:
    """The body of a single rule file (its text after the header), or None for other files."""
    if not _source_rules(path):
        return None
    text = path.read_bytes().decode("utf-8", errors="replace").lstrip("\ufeff")
    try:
        return split_frontmatter(text.replace("\r\n", "\n")).body
    except FrontmatterError:
        return None


def _normal(text: str) -> str:
    return " ".join(text.split())


def _source_rules(path: Path) -> int:
    return 1 if path.suffix in _RULE_SUFFIXES or path.name in _RULE_NAMES else 0


def _differences(expected: Mapping[str, Any], imported: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    if expected["command"] and expected["command"] != imported.get("command"):
        problems.append(f"command {imported.get('command')!r} != {expected['command']!r}")
    if expected["url"] and not _same(str(expected["url"]), str(imported.get("url"))):
        problems.append("url differs")
    args = [str(a) for a in expected["args"]]
    got = list(imported.get("args") or [])
    if len(args) != len(got) or not all(_same(a, b) for a, b in zip(args, got, strict=False)):
        problems.append(f"args {got!r} != {args!r}")
    env = imported.get("env") or {}
    for key, value in expected["env"].items():
        if key not in env:
            problems.append(f"env {key} is missing")
        elif not _same(str(value), str(env[key])):
            problems.append(f"env {key} differs")
    return problems


def _same(source: str, imported: str) -> bool:
    """Equal, or equal once references and variables on either side stand for any text."""
    if source == imported:
        return True
    return bool(_pattern(imported).fullmatch(source) or _pattern(source).fullmatch(imported))


def _pattern(text: str) -> re.Pattern[str]:
    parts = _REFERENCE.split(text)
    return re.compile(".*?".join(re.escape(part) for part in parts), re.DOTALL)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    report = run_corpus(args.folder)
    if args.json:
        print(json.dumps({**asdict(report), "intactShare": report.intact_share}, indent=2))
    else:
        print("\n".join(report.lines()))
    return 1 if report.tracebacks or report.half_written or report.intact_share < GOAL_INTACT else 0


if __name__ == "__main__":
    sys.exit(main())
