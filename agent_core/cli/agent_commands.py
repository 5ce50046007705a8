"""``contextdesk agent new|check|import|show|get|set``."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from agent_core.agent import AGENT_FILE, Agent, load_agent
from agent_core.agent.config_keys import read_setting, write_setting
from agent_core.agent.importers import import_source
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import (
    InternalServerConfig,
    McpServerConfig,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)
from agent_core.agent.secrets import env_var_name
from agent_core.agent.server_trust import TrustGate
from agent_core.agent.skill_files.trust_check import trust_problems
from agent_core.agent.subagent_files.definition import Subagent
from agent_core.agent.variables import variables_for
from agent_core.agent.writer import dump_yaml
from agent_core.cli import learned_command
from agent_core.cli.input_prompt import ask_in_terminal
from agent_core.cli.skill_commands import check_skill_key, print_skills, skill_summary
from agent_core.cli.trust_prompt import register_trust, trust_written_server
from agent_core.errors import AgentFileError

__all__ = ["register"]


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("agent", help="create, check, import and show agents")
    commands = parser.add_subparsers(dest="agent_command", metavar="ACTION", required=True)

    new = commands.add_parser("new", help="create an agent from the default one")
    new.add_argument("dir", type=Path, help="an empty or new folder")
    new.add_argument("--name", help="the agent's name (default: the default agent's)")
    new.set_defaults(handler=run_new)

    check = commands.add_parser("check", help="list every problem in an agent folder (exit 1 if any error)")
    check.add_argument("dir", type=Path)
    check.add_argument("--strict", action="store_true", help="treat warnings as errors too")
    check.set_defaults(handler=run_check)

    importer = commands.add_parser(
        "import",
        help="import a TsAgent agent, Cursor rules, skills, instruction files or an mcpServers JSON file",
        description="SRC may be a TsAgent .yaml agent file, a legacy TsAgent folder (tsagent.json or "
        "tspark.json), a project with .cursor/rules or .cursorrules, one .mdc rule or .cursorrules file, "
        "a JSON file with an mcpServers object, a skill folder (with a SKILL.md) or a folder of skills at "
        "any depth, or AGENTS.md, CLAUDE.md, GEMINI.md and Copilot instruction files (always-on rules). "
        "A project folder with several of these imports them all. DIR is created if missing; an existing agent there "
        "is merged into: a name it already uses for something different gets a numbered suffix "
        "(rule-2), and its own settings are kept. The import is all or nothing.",
    )
    importer.add_argument("src", type=Path)
    importer.add_argument("dir", type=Path)
    importer.add_argument(
        "--replace",
        "--overwrite",
        dest="replace",
        action="store_true",
        help="overwrite the agent's items and settings of the same name instead of adding numbered copies",
    )
    importer.add_argument(
        "--dry-run",
        action="store_true",
        help="list what would be added, changed and skipped, and write nothing",
    )
    importer.add_argument(
        "--keep-duplicates",
        action="store_true",
        help="keep every copy of a skill found twice (same name or the same SKILL.md) as name-2, name-3... "
        "(default: keep the first and report the others)",
    )
    importer.add_argument(
        "--only",
        action="append",
        metavar="IMPORTER",
        help="import only what these importers read (skills, instruction-files, cursor, claude-agents, "
        "mcp-json...; repeat it or separate names with commas), e.g. --only skills for a collection's "
        "skills without its own AGENTS.md; the report lists what else was found and was not imported",
    )
    importer.add_argument(
        "--copy-secrets",
        action="store_true",
        help="copy literal API keys and tokens as they are (default: replace them with env://VAR references)",
    )
    importer.set_defaults(handler=run_import)

    learned_command.add_parser(commands)
    register_trust(commands)

    show = commands.add_parser("show", help="summarise an agent")
    show.add_argument("dir", type=Path)
    show.add_argument("--json", action="store_true", help="print JSON for scripts")
    show.add_argument(
        "--no-start", action="store_true", help="do not start the MCP servers to list their status and tools"
    )
    show.add_argument(
        "--timeout",
        type=float,
        default=15.0,
        metavar="SECONDS",
        help="wait at most this long for each MCP server to start (default 15)",
    )
    show.set_defaults(handler=run_show)

    getter = commands.add_parser(
        "get",
        help="print one setting of agent.yaml, e.g. selection.topN",
        description="KEY is dotted, spelt as in agent.yaml (camelCase): chat.model, selection.topN, "
        "mcpServers.time.enabled. A key that is not set prints its default (and says so on stderr).",
    )
    getter.add_argument("dir", type=Path)
    getter.add_argument("key")
    getter.set_defaults(handler=run_get)

    setter = commands.add_parser(
        "set",
        help="change one setting of agent.yaml, keeping the rest of the file as it is",
        description="KEY is dotted, spelt as in agent.yaml (camelCase): chat.model, selection.topN, "
        "mcpServers.time.enabled. VALUE is read as YAML (3, false, null, 'text', [a, b]). It is "
        "checked against the schema first; only that key's line changes.",
    )
    setter.add_argument("dir", type=Path)
    setter.add_argument("key")
    setter.add_argument("value")
    setter.set_defaults(handler=run_set)


def run_new(args: argparse.Namespace) -> int:
    agent = create_agent(args.dir, name=args.name)
    print(f"Created agent '{agent.name}' in {agent.root}")
    print(
        f"  {len(agent.rules)} rules, {len(agent.references)} references, {len(agent.skills)} "
        f"skill{'' if len(agent.skills) == 1 else 's'}. Try: contextdesk agent show {args.dir}"
    )
    return 0


def run_check(args: argparse.Namespace) -> int:
    agent = load_agent(args.dir)
    # The skills' trust checks read every file of every skill, so they run here, not on each load.
    problems = sorted(
        agent.problems + trust_problems(agent.skills.values()), key=lambda p: (str(p.path), p.line or 0)
    )
    for problem in problems:
        print(problem.describe(agent.root))
    errors = len(agent.errors)
    warnings = len(problems) - errors
    summary = (
        f"{agent.root}: {len(agent.rules)} rules, {len(agent.references)} references, "
        f"{len(agent.skills)} skill{'' if len(agent.skills) == 1 else 's'}, "
        f"{len(agent.config.mcp_servers)} MCP servers loaded; "
        f"{errors} errors, {warnings} warnings"
    )
    print(summary, file=sys.stderr if problems else sys.stdout)
    return 1 if errors or (args.strict and warnings) else 0


def run_import(args: argparse.Namespace) -> int:
    report = import_source(
        args.src,
        args.dir,
        replace=args.replace,
        dry_run=args.dry_run,
        copy_secrets=args.copy_secrets,
        keep_duplicates=args.keep_duplicates,
        only=None
        if args.only is None
        else {name.strip() for names in args.only for name in names.split(",")},
    )
    if report.nothing_imported:
        print(f"{report.headline.removesuffix('.')} (from {args.src} into {args.dir})")
    else:
        print(f"{'Dry run: would import' if args.dry_run else 'Imported'} {args.src} into {args.dir}")
    for line in report.lines():
        print(line)
    if report.nothing_imported and not (args.dir.expanduser() / AGENT_FILE).is_file():
        # No agent was created: a script must not carry on as though there were one. Into an
        # existing agent that already has everything, importing again is a success (a re-sync).
        return 1
    if args.dry_run:
        return 0
    agent = load_agent(args.dir)
    for problem in agent.problems:
        print(f"  check: {problem.describe(agent.root)}")
    return 0


def run_get(args: argparse.Namespace) -> int:
    found = read_setting(_agent_file(args.dir), args.key)
    if found.note:
        print(f"contextdesk: {found.note}", file=sys.stderr)
    print(_shown(found.value))
    return 0


def run_set(args: argparse.Namespace) -> int:
    agent_file = _agent_file(args.dir)
    check_skill_key(args.dir, args.key)
    write_setting(agent_file, args.key, args.value)
    trust_written_server(args.dir, args.key)  # a whole server block the user typed: trusted as typed
    return 0


def _agent_file(folder: Path) -> Path:
    path = folder.expanduser() / AGENT_FILE
    if not path.is_file():
        raise AgentFileError(
            f"{folder} has no {AGENT_FILE}: pass an agent folder, or create one with `contextdesk agent new {folder}`"
        )
    return path


def _shown(value: Any) -> str:
    """A value as `get` prints it: scalars bare, mappings and lists as YAML."""
    if isinstance(value, dict | list):
        return dump_yaml(value).rstrip("\n")
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def run_show(args: argparse.Namespace) -> int:
    agent = load_agent(args.dir)
    summary = agent_summary(agent)
    if not args.no_start and agent.config.mcp_servers:
        _add_server_status(agent, summary, args.timeout)
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
        return 0
    print(f"{summary['name']}  ({agent.root})")
    if summary["description"]:
        print(f"  {summary['description']}")
    chat, selection = summary["chat"], summary["selection"]
    print(
        f"\nModel {chat['model']}  turns {chat['maxChatTurns']}  max output {chat['maxOutputTokens']}  "
        f"temperature {chat['temperature']}  topP {chat['topP']}  tools {chat['toolPermission']}"
    )
    print(
        f"Selection topK {selection['topK']}  topN {selection['topN']}  includeScore {selection['includeScore']}  "
        f"strategy {selection['strategy']}"
    )
    for title, key in (("Rules", "rules"), ("References", "references")):
        print(f"\n{title} ({len(summary[key])})")
        for item in summary[key]:
            print(
                f"  {item['priorityLevel']:03d}  {item['name']:<32} {item['include']:<7} {item['description']}"
            )
    print(f"\nProviders ({len(summary['providers'])})")
    for provider in summary["providers"]:
        print(f"  {provider['id']:<16} {provider['type']:<18} key: {provider['apiKey']}")
    print(f"\nMCP servers ({len(summary['mcpServers'])})")
    for server in summary["mcpServers"]:
        defaults = server["toolDefaults"]
        print(
            f"  {server['name']:<16} {server['type']:<16} {server['target']}  "
            f"(tools: include {defaults['include']}, permission {'ask' if defaults['permissionRequired'] else 'allow'})"
        )
        _print_server_status(server)
    if summary["subagents"]:
        print(f"\nSub-agents ({len(summary['subagents'])})")
        for sub in summary["subagents"]:
            tools = "every tool" if sub["tools"] is None else ", ".join(sub["tools"]) or "no tools"
            limits = sub["limits"]
            print(
                f"  {sub['name']:<24} {sub['context']:<8} {sub['model']:<20} {tools}  "
                f"(turns {limits['maxTurns']}, tokens {limits['maxTokens']:,}, {limits['timeoutSeconds']:g} s)"
            )
            print(f"    {sub['description']}")
    print_skills(summary["skills"])
    if agent.problems:
        print(f"\n{len(agent.problems)} problems; see `contextdesk agent check {args.dir}`")
    return 0


def _add_server_status(agent: Agent, summary: dict[str, Any], timeout: float) -> None:
    """Start the agent's MCP servers for a moment and add their status and tools to ``summary``."""
    try:
        from agent_core.mcp import inspect_servers
    except ModuleNotFoundError as error:
        if error.name != "mcp":
            raise
        for server in summary["mcpServers"]:
            server["status"] = {
                "state": "unknown",
                "reason": "the mcp package is not installed: pip install 'contextdesk[mcp]'",
            }
        return
    statuses, tools = asyncio.run(
        inspect_servers(
            agent.config.mcp_servers,
            references_source=lambda: agent.references,
            start_timeout=timeout,
            variables=variables_for(agent, ask_input=ask_in_terminal),
            trust=TrustGate(agent.root),  # an untrusted server is listed "not trusted", never started
        )
    )
    by_name = {status.name: status for status in statuses}
    for server in summary["mcpServers"]:
        status = by_name[server["name"]]
        server["status"] = {
            "state": status.state.value,
            "reason": status.reason,
            "serverName": status.server_name,
            "serverVersion": status.server_version,
            "logTail": list(status.log_tail),
        }
        server["availableTools"] = [
            {
                "name": tool.name,
                "description": tool.description,
                "include": tool.include.value,
                "permission": tool.permission,
                "hints": list(tool.annotations.badges),
                "fingerprint": tool.fingerprint,
                "inputSchema": tool.input_schema,
            }
            for tool in tools
            if tool.server == server["name"]
        ]


def _print_server_status(server: dict[str, Any]) -> None:
    status = server.get("status")
    if status is None:
        return
    if status["state"] != "ready":
        reason = status.get("reason") or ""
        print(f"    {status['state']}" + (": " + reason.replace("\n", "\n    ") if reason else ""))
        return
    identity = " ".join(part for part in (status["serverName"], status["serverVersion"]) if part)
    tools = server.get("availableTools", [])
    print(f"    ready ({identity}), {len(tools)} tools")
    if status.get("reason"):  # a warning, such as tools left out
        print(f"    warning: {status['reason']}")
    for tool in tools:
        description = tool["description"].strip().splitlines()[0] if tool["description"].strip() else ""
        hints = f"  [{', '.join(tool['hints'])}]" if tool.get("hints") else ""
        print(
            f"      {tool['name']:<28} {tool['include']:<7} {tool['permission']:<6} {description[:70]}{hints}"
        )


def agent_summary(agent: Agent) -> dict[str, Any]:
    """A JSON-ready description of an agent; secrets are described, never shown."""
    config = agent.config
    return {
        "name": config.name,
        "path": str(agent.root),
        "description": config.description,
        "chat": config.chat.model_dump(mode="json", by_alias=True),
        "selection": config.selection.model_dump(mode="json", by_alias=True),
        "rules": [_document(item) for item in sorted(agent.rules.values(), key=_order)],
        "references": [_document(item) for item in sorted(agent.references.values(), key=_order)],
        "providers": [
            {
                "id": provider_id,
                "type": provider.type or provider_id,
                "apiKey": _describe_secret(provider.api_key),
            }
            for provider_id, provider in config.providers.items()
        ],
        "mcpServers": [_server(name, server) for name, server in config.mcp_servers.items()],
        "skills": [skill_summary(skill, agent.root) for skill in sorted(agent.skills.values(), key=_order)],
        "subagents": [_subagent(subagent) for subagent in agent.subagents.values()],
        "problems": [
            {"file": str(p.path), "line": p.line, "severity": p.severity, "message": p.message, "fix": p.fix}
            for p in agent.problems
        ],
    }


def _subagent(subagent: Subagent) -> dict[str, Any]:
    limits = subagent.limits
    return {
        "name": subagent.name,
        "displayName": subagent.display_name,  # the header's own name, when it had to be made valid
        "description": subagent.description,
        "tools": None if subagent.tools is None else list(subagent.tools),
        "disallowedTools": list(subagent.disallowed_tools),
        "model": subagent.model,
        "context": subagent.context,
        "include": subagent.include.value,
        "rules": list(subagent.rules),
        "references": list(subagent.references),
        "output": subagent.output_schema,
        "limits": {
            "maxTurns": limits.max_turns,
            "maxTokens": limits.max_tokens,
            "timeoutSeconds": limits.timeout_seconds,
            "maxDepth": limits.max_depth,
            "maxParallel": limits.max_parallel,
        },
        "path": str(subagent.path) if subagent.path else None,
    }


def _order(item: Any) -> tuple[int, str]:
    return item.priority_level, item.name.lower()


def _document(item: Any) -> dict[str, Any]:
    return {
        "name": item.name,
        "description": item.description,
        "priorityLevel": item.priority_level,
        "include": item.include.value,
        "characters": len(item.text),
    }


def _describe_secret(value: str | None) -> str:
    if not value:
        return "none"
    variable = env_var_name(value)
    return f"env://{variable}" if variable else "literal (hidden)"


def _server(name: str, server: McpServerConfig) -> dict[str, Any]:
    if isinstance(server, StdioServerConfig):
        target = " ".join([server.command, *server.args])
    elif isinstance(server, SseServerConfig | StreamableHttpServerConfig):
        target = server.url
    elif isinstance(server, InternalServerConfig):
        target = f"built-in '{server.tool}'"
    return {
        "name": name,
        "type": server.type,
        "target": target,
        "enabled": server.enabled,
        "toolDefaults": server.tool_defaults.model_dump(mode="json", by_alias=True),
        "tools": {
            tool: s.model_dump(mode="json", by_alias=True, exclude_none=True)
            for tool, s in server.tools.items()
        },
    }
