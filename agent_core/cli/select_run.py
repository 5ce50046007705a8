"""The work behind ``contextdesk select`` (its parser, and why it is separate: ``select_command``)."""

from __future__ import annotations

import argparse
import asyncio
import json
import shlex
import sys
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.schema import IncludeMode, SelectionConfig
from agent_core.agent.server_trust import TrustGate
from agent_core.agent.variables import variables_for
from agent_core.cli.progress_lines import indexing_progress
from agent_core.context.items import ItemRef
from agent_core.context.judged_short import judged_short_summary, judged_short_tag
from agent_core.context.learned import LearnedSelections
from agent_core.context.reason_words import reason_words
from agent_core.context.selection import ContextSelector, SelectionOutcome
from agent_core.context.session_context import agent_candidates
from agent_core.errors import ContextDeskError
from agent_core.memory.service import MemoryService, RecalledMemories
from agent_core.paths import user_dirs
from agent_core.tools.runtime import ToolDescriptor

__all__ = ["CatalogueTool", "load_tool_catalogue", "run_select"]


class CatalogueTool(BaseModel):
    """One tool in a ``--tools`` file: a JSON list of these."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    server: str = Field(min_length=1)
    name: str = Field(min_length=1)
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=dict, alias="inputSchema")


@dataclass(frozen=True)
class _Tool:
    server: str
    name: str
    description: str
    input_schema: dict[str, Any]
    include: IncludeMode
    permission_required: bool = True


class _BatchLine(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str | int
    message: str
    previous: str | None = None


def run_select(args: argparse.Namespace, selector: ContextSelector) -> int:
    """``contextdesk select`` with ``selector`` (its model already loading).

    Raises:
        ContextDeskError: bad arguments, or the agent folder cannot be read.
    """
    try:
        if (args.message is None) == (args.batch is None):
            raise ContextDeskError("give either a MESSAGE or --batch FILE (not both)")
        agent = load_agent(args.agent)
        config = _settings(agent.config.selection, args)
        if not getattr(args, "no_learned", False):
            selector.learned = LearnedSelections(user_dirs().database)
        selector.indexer.progress = indexing_progress(sys.stderr)
        return asyncio.run(_run(args, agent, config, selector))
    finally:
        if selector.learned is not None:
            selector.learned.close()
        selector.indexer.close()


async def _tools(args: argparse.Namespace, agent: Agent) -> Sequence[ToolDescriptor]:
    if args.tools:
        return load_tool_catalogue(args.tools, agent)
    if args.no_tools or not agent.config.mcp_servers:
        return []
    from agent_core.mcp import inspect_servers  # the MCP SDK takes ~0.6 s to import: only when needed

    statuses, tools = await inspect_servers(
        agent.config.mcp_servers,
        references_source=lambda: agent.references,
        start_timeout=args.server_timeout,
        variables=variables_for(agent),
        trust=TrustGate(agent.root),  # an untrusted server is reported, never started
    )
    for status in statuses:
        if status.state in ("failed", "not trusted"):
            print(f"contextdesk: tools of {status.name} left out: {status.reason}", file=sys.stderr)
        elif status.reason:  # ready, with a warning (some tools left out)
            print(f"contextdesk: {status.reason}", file=sys.stderr)
    return tools


async def _run(
    args: argparse.Namespace, agent: Agent, config: SelectionConfig, selector: ContextSelector
) -> int:
    candidates = agent_candidates(agent, (), await _tools(args, agent))
    memories = None
    if not getattr(args, "no_memory", False) and agent.config.memory.enabled:
        memories = MemoryService(user_dirs().database, selector)
    try:

        async def recall(message: str) -> RecalledMemories:
            if memories is None:
                return RecalledMemories()
            recalled = await memories.recall(agent, message, agent.config.memory, session_id=None)
            if recalled.note:
                print(f"contextdesk: {recalled.note}", file=sys.stderr)
            return recalled

        if args.batch:
            short: set[ItemRef] = set()
            for line in _batch_lines(args.batch):
                outcome = await selector.select(
                    line.message, candidates, config, line.previous, agent_path=str(agent.root)
                )
                _fail_if_unusable(outcome)
                short.update(outcome.run.description_only)
                data = outcome_json(outcome, await recall(line.message))
                print(json.dumps({"id": line.id, **data}, ensure_ascii=False), flush=True)
            _hint_whole_items(short, args.agent)
            return 0
        outcome = await selector.select(
            args.message, candidates, config, args.previous, agent_path=str(agent.root)
        )
        _fail_if_unusable(outcome)
        recalled = await recall(args.message)
        if args.json:
            print(json.dumps(outcome_json(outcome, recalled), indent=2, ensure_ascii=False))
        else:
            _print_outcome(outcome, len(candidates), recalled)
        _hint_whole_items(outcome.run.description_only, args.agent)
        return 0
    finally:
        if memories is not None:
            memories.close()


def _hint_whole_items(short: Collection[ItemRef], agent: Path) -> None:
    """Tell how to get whole-item ranking when the ``short`` items were judged before indexed whole."""
    if short:
        print(
            f"contextdesk: {judged_short_summary(short, still_indexing=False)}. For whole-item ranking run "
            f"`contextdesk index --agent {shlex.quote(str(agent))}` once (or open the agent in the app).",
            file=sys.stderr,
        )


def outcome_json(outcome: SelectionOutcome, recalled: RecalledMemories | None = None) -> dict[str, Any]:
    """Selected items and near misses; recalled memories come as ``{"type": "memory", "name": ID,
    "score", "text", "reason"}`` in both lists. ``description_only`` (only when there are any, as
    in an export): the items judged on their name, description and examples, their bodies not
    being indexed yet."""
    recalled = recalled or RecalledMemories()
    short = outcome.run.description_only
    return {
        "selected": [
            *(
                {**_ref_json(item.ref), "score": item.score, "via": outcome.via.get(item.ref, "text"),
                 **({"reason": item.reason} if item.reason else {})}
                for item in outcome.items
            ),
            *(
                {"type": "memory", "name": item.ref.name, "score": item.score, "via": "memory",
                 "text": recalled.texts.get(item.ref.name, ""), "reason": item.reason}
                for item in recalled.items
            ),
        ],
        "near_misses": [
            *({**_ref_json(miss.ref), "score": miss.score, "reason": miss.reason,
               **({"needed": miss.needed} if miss.needed is not None else {})}
              for miss in outcome.near_misses),
            *(
                {"type": "memory", "name": miss.ref.name, "score": miss.score,
                 "text": recalled.texts.get(miss.ref.name, ""), "reason": miss.reason}
                for miss in recalled.near_misses
            ),
        ],
        **({"description_only": [_ref_json(ref) for ref in short]} if short else {}),
    }  # fmt: skip


_CATALOGUE = TypeAdapter(list[CatalogueTool])


def load_tool_catalogue(path: Path, agent: Agent) -> list[_Tool]:
    """Tools from a JSON file, with include modes from the agent's server settings.

    Raises:
        ContextDeskError: the file cannot be read or is not a list of tools.
    """
    try:
        entries = _CATALOGUE.validate_json(path.read_bytes())
    except OSError as error:
        raise ContextDeskError(
            f"cannot read the tool list {path} ({error}): give a JSON list of tools"
        ) from error
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "json_invalid":
            raise ContextDeskError(
                f"cannot read the tool list {path} ({first['msg']}): give a JSON list of tools"
            ) from error
        raise ContextDeskError(
            f"{path}: {'.'.join(map(str, first['loc']))}: {first['msg']}; each tool needs server, name, "
            "description and inputSchema"
        ) from error
    tools = []
    for entry in entries:
        server = agent.config.mcp_servers.get(entry.server)
        include = IncludeMode.AGENT
        if server is not None:
            override = server.tools.get(entry.name)
            include = (
                override.include if override and override.include else None
            ) or server.tool_defaults.include
        tools.append(_Tool(entry.server, entry.name, entry.description, entry.input_schema, include))
    return tools


def _settings(base: SelectionConfig, args: argparse.Namespace) -> SelectionConfig:
    updates = {
        key: value
        for key, value in (
            ("top_k", args.top_k),
            ("top_n", args.top_n),
            ("include_score", args.include_score),
            ("strategy", args.strategy),
            ("min_score", args.min_score),
        )
        if value is not None
    }
    try:
        return SelectionConfig.model_validate({**base.model_dump(), **updates})
    except ValidationError as error:
        first = error.errors()[0]
        raise ContextDeskError(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}") from error


def _batch_lines(path: Path) -> Iterator[_BatchLine]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ContextDeskError(f"cannot read {path} ({error.strerror})") from error
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            yield _BatchLine.model_validate_json(text)
        except ValidationError as error:
            raise ContextDeskError(
                f'{path}:{number}: not a JSON object with "id" and "message" ({error.errors()[0]["msg"]})'
            ) from error


def _fail_if_unusable(outcome: SelectionOutcome) -> None:
    if outcome.run.status in ("failed", "model_loading"):
        raise ContextDeskError(f"selection did not run: {outcome.run.detail}")


def _ref_json(ref: ItemRef) -> dict[str, Any]:
    data: dict[str, Any] = {"type": ref.type, "name": ref.name}
    if ref.server is not None:
        data["server"] = ref.server
    return data


def _print_outcome(outcome: SelectionOutcome, candidates: int, recalled: RecalledMemories) -> None:
    run = outcome.run
    short = set(run.description_only)
    print(
        f"{candidates:,} agent-mode candidates; strategy {run.strategy}, topK {run.top_k}, topN {run.top_n}, "
        f"includeScore {run.include_score} ({run.elapsed_ms} ms)"
    )
    if short:
        print(f"of them, {judged_short_summary(short, still_indexing=False)}")
    print("\nSelected:" if outcome.items else "\nSelected: nothing")
    for item in outcome.items:
        how = f"  ({item.reason})" if item.reason else ""
        print(f"  {item.score:.2f}  {item.ref.type:<9} {item.ref.label()}{how}")
    if outcome.near_misses:
        print("\nNot selected (best first):")
        for miss in outcome.near_misses:
            needed = "" if miss.needed is None else f" (needed {miss.needed:.2f})"
            judged = f"; {judged_short_tag(miss.ref)}" if miss.ref in short else ""
            print(
                f"  {miss.score or 0:.2f}  {miss.ref.type:<9} {miss.ref.label():<40} "
                f"{reason_words(miss.reason)}{needed}{judged}"
            )
    if recalled.items or recalled.near_misses:
        print("\nMemories recalled:" if recalled.items else "\nMemories recalled: none")
        for item in recalled.items:
            print(
                f"  {item.score or 0:.2f}  {item.ref.name:<16} {recalled.texts.get(item.ref.name, '')}  ({item.reason})"
            )
        for miss in recalled.near_misses:
            print(
                f"  {miss.score:.2f}  {miss.ref.name:<16} {recalled.texts.get(miss.ref.name, '')}  (not recalled: {miss.reason})"
            )
