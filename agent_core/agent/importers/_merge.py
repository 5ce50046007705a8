"""Deciding how an import merges into an agent, before anything is written.

Each imported entry is added, replaces the agent's (``replace``), is renamed with a numbered
suffix (a different entry already has its name), or is left out (identical to the agent's, or a
provider the agent already has). The decisions and their reasons go into the report, so a dry run
and a real import print the same lines.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from agent_core.agent.agent import AGENT_FILE, Agent
from agent_core.agent.document_loader import ITEM_SUFFIX
from agent_core.agent.importers._common import ImportedAgent, ImportReport
from agent_core.agent.importers._skill_plan import SkillPlan, plan_skills
from agent_core.agent.items import FOLDER_OF_KIND, DocumentItem
from agent_core.agent.loader import load_agent
from agent_core.agent.names import numbered_name
from agent_core.agent.schema import (
    AgentConfig,
    ChatDefaults,
    McpServerConfig,
    ProviderConfig,
    SelectionConfig,
)
from agent_core.agent.subagent_files.loader import SUBAGENTS_FOLDER
from agent_core.agent.workflow_files.loader import WORKFLOWS_FOLDER
from agent_core.agent.writer import check_agent_file_saveable

__all__ = ["ImportPlan", "plan_import"]

ModelT = TypeVar("ModelT", bound=BaseModel)
_SERVER_ADAPTER: TypeAdapter[McpServerConfig] = TypeAdapter(McpServerConfig)
_AGAIN_WITH_REPLACE = "import again with --replace to overwrite it"


@dataclass
class ImportPlan:
    """What an import will write: the agent's new settings and the files to add or replace."""

    agent: Agent  # the target agent with the import's settings applied (root: the target)
    is_new: bool  # no agent.yaml at the target yet
    documents: list[DocumentItem] = field(default_factory=list)  # under their final names
    subagent_files: dict[str, str] = field(default_factory=dict)  # NAME -> text of subagents/NAME.md
    workflow_files: dict[str, str] = field(default_factory=dict)  # NAME -> text of workflows/NAME.yaml
    skills: SkillPlan = field(default_factory=SkillPlan)  # skill folders, and files they replace


def plan_import(
    imported: ImportedAgent, target: Path, *, replace: bool, keep_duplicates: bool = False
) -> ImportPlan:
    """Decide how ``imported`` merges into the agent at ``target`` (a new agent when there is none).

    Fills ``imported.report``: what is added, changed, renamed and left out, with the reason and
    what to do. Writes nothing. ``keep_duplicates``: a skill found twice is kept twice.

    Raises:
        AgentFileError: the agent.yaml at ``target`` could not be saved over (it is left untouched).
    """
    report = imported.report
    report.created.clear()  # importers may note what they read; the plan says what is written
    is_new = not (target / AGENT_FILE).is_file()
    if is_new:
        agent = Agent(root=target.resolve(), config=AgentConfig(name=imported.name or target.name))
    else:
        check_agent_file_saveable(target)  # refuse before anything is decided or written
        agent = load_agent(target)
    plan = ImportPlan(agent=agent, is_new=is_new)
    _plan_settings(imported, agent.config, report, replace=replace, is_new=is_new)
    _plan_providers(imported, agent, report, replace=replace)
    _plan_servers(imported, agent, report, replace=replace)
    for document in imported.documents:
        _plan_document(document, plan, report, replace=replace)
    for name, text in imported.subagent_files.items():
        _plan_file(
            "sub-agent", name, text, target / SUBAGENTS_FOLDER, ".md", plan.subagent_files, report, replace
        )
    for name, text in imported.workflow_files.items():
        _plan_file(
            "workflow", name, text, target / WORKFLOWS_FOLDER, ".yaml", plan.workflow_files, report, replace
        )
    plan.skills = plan_skills(
        imported.skills, target, agent.config, report, replace=replace, keep_duplicates=keep_duplicates
    )
    return plan


def _plan_settings(
    imported: ImportedAgent, config: AgentConfig, report: ImportReport, *, replace: bool, is_new: bool
) -> None:
    # An existing agent keeps its own name, prompt and chat settings unless the user asks for the
    # source's: adding rules to an agent must not quietly change how it chats.
    texts = (
        ("name", "name", imported.name),
        ("description", "description", imported.description),
        ("system prompt", "system_prompt", imported.system_prompt),
    )
    for label, attribute, value in texts:
        current = getattr(config, attribute)
        if value is None or value == current:
            continue
        if replace or is_new or not current:
            setattr(config, attribute, value)
            if current and not is_new:
                report.changed.append(f"{label}: the source's replaces the agent's")
        else:
            report.skipped.append(
                f"{label}: the agent's own is kept (import again with --replace to take the source's)"
            )
    for label, attribute, model, updates in (
        ("chat settings", "chat", ChatDefaults, imported.chat),
        ("selection settings", "selection", SelectionConfig, imported.selection),
    ):
        if not updates:
            continue
        current = getattr(config, attribute)
        merged = _merge(model, current, updates, report, attribute)
        if merged == current:
            continue
        keys = ", ".join(sorted(updates))
        if is_new:
            setattr(config, attribute, merged)
            report.created.append(f"{label} ({keys})")
        elif replace:
            setattr(config, attribute, merged)
            report.changed.append(f"{label} ({keys}) set from the source")
        else:
            report.skipped.append(
                f"{label} ({keys}): the agent's own are kept (import again with --replace to take the source's)"
            )


def _plan_providers(imported: ImportedAgent, agent: Agent, report: ImportReport, *, replace: bool) -> None:
    providers = dict(agent.config.providers)
    for provider_id, block in imported.providers.items():
        try:
            provider = ProviderConfig.model_validate(block)
        except ValidationError as error:
            report.warnings.append(
                f"provider '{provider_id}' kept as written but invalid: {_first(error)}; correct it in {AGENT_FILE}"
            )
            agent.unparsed_providers[provider_id] = block
            continue
        existing = providers.get(provider_id)
        if existing == provider:
            report.skipped.append(f"provider '{provider_id}': the agent has the same one; nothing to do")
            continue
        if existing is not None and not replace:
            # A provider id names one service, so a numbered copy would only confuse the model picker.
            report.skipped.append(
                f"provider '{provider_id}': the agent has one with other settings, which is kept ({_AGAIN_WITH_REPLACE})"
            )
            continue
        providers[provider_id] = provider
        (report.changed if existing else report.created).append(
            f"provider '{provider_id}'" + (" replaced" if existing else "")
        )
    if providers != agent.config.providers:
        agent.config.providers = providers


def _plan_servers(imported: ImportedAgent, agent: Agent, report: ImportReport, *, replace: bool) -> None:
    servers = dict(agent.config.mcp_servers)
    taken = {name.lower() for name in (*servers, *agent.unparsed_servers)}
    for raw_name, block in imported.mcp_servers.items():
        name = raw_name
        try:
            server: McpServerConfig | None = _SERVER_ADAPTER.validate_python(block)
        except ValidationError as error:
            server = None
            problem = _first(error)
        existing = servers.get(name)
        if server is not None and existing == server:
            report.skipped.append(f"MCP server '{name}': the agent has the same one; nothing to do")
            continue
        if name.lower() in taken and not replace:
            name = numbered_name(name, taken)
            report.warnings.append(
                f"MCP server '{raw_name}': the agent has a different server of that name; "
                f"added as '{name}' ({_AGAIN_WITH_REPLACE})"
            )
        taken.add(name.lower())
        if server is None:
            report.warnings.append(
                f"MCP server '{name}' kept as written but invalid: {problem}; correct it in {AGENT_FILE}"
            )
            agent.unparsed_servers[name] = block
            continue
        servers[name] = server
        agent.unparsed_servers.pop(name, None)  # the valid block replaces the one that failed to load
        kind = str(block.get("type", server.type))
        if name in agent.config.mcp_servers:
            report.changed.append(f"MCP server '{name}' ({kind}) replaced")
        else:
            report.created.append(f"MCP server '{name}' ({kind})")
    if servers != agent.config.mcp_servers:
        agent.config.mcp_servers = servers


def _plan_document(document: DocumentItem, plan: ImportPlan, report: ImportReport, *, replace: bool) -> None:
    root = plan.agent.root
    label = f"{document.kind} '{document.name}'"
    if twin := _same_in_agent(plan.agent, document, numbered_copies=not replace):
        where = "" if twin == document.name else f" (as '{twin}', from an earlier import)"
        report.skipped.append(f"{label}: the agent has the same one{where}; nothing to do")
        return
    on_disk = _names_in(root / FOLDER_OF_KIND[document.kind], ITEM_SUFFIX)
    taken = on_disk | {d.name.lower() for d in plan.documents if d.kind == document.kind}
    name = document.name
    if name.lower() in taken:
        if replace and name.lower() in on_disk:
            plan.documents.append(document)
            report.changed.append(f"{label} replaced ({document.include.value})")
            return
        name = numbered_name(name, taken)
        document = dataclasses.replace(document, name=name)
        report.warnings.append(
            f"{label}: the agent has a different {document.kind} of that name; added as '{name}' "
            f"({_AGAIN_WITH_REPLACE})"
        )
    plan.documents.append(document)
    report.created.append(f"{document.kind} '{name}' ({document.include.value})")


def _plan_file(
    kind: str,
    name: str,
    text: str,
    folder: Path,
    suffix: str,
    planned: dict[str, str],
    report: ImportReport,
    replace: bool,
) -> None:
    # Sub-agent and workflow files are copied verbatim and name themselves inside, so a numbered
    # copy would clash with the original: an existing one is kept unless the user says --replace.
    path = folder / f"{name}{suffix}"
    if path.is_file():
        try:
            same = path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        if same:
            report.skipped.append(f"{kind} '{name}': the agent has the same one; nothing to do")
            return
        if not replace:
            report.skipped.append(
                f"{kind} '{name}': the agent has a different one, which is kept ({_AGAIN_WITH_REPLACE})"
            )
            return
        report.changed.append(f"{kind} '{name}' replaced")
    else:
        report.created.append(f"{kind} '{name}'")
    planned[name] = text


def _same_in_agent(agent: Agent, document: DocumentItem, *, numbered_copies: bool) -> str | None:
    """The agent's name for an identical document: its own name, or (``numbered_copies``) a
    numbered copy of it, so importing the same source twice adds nothing."""
    copies = re.compile(re.escape(document.name[:70]) + r".*-\d+", re.IGNORECASE)
    for name, existing in agent.documents(document.kind).items():
        same_name = name == document.name or (numbered_copies and copies.fullmatch(name))
        if same_name and _same_document(existing, document):
            return name
    return None


def _same_document(existing: DocumentItem, imported: DocumentItem) -> bool:
    return (
        existing.description == imported.description
        and existing.include == imported.include
        and existing.priority_level == imported.priority_level
        and existing.text.strip() == imported.text.strip()
        and existing.examples == imported.examples
        and existing.globs == imported.globs
    )


def _names_in(folder: Path, suffix: str) -> set[str]:
    if not folder.is_dir():
        return set()
    return {path.stem.lower() for path in folder.iterdir() if path.suffix == suffix}


def _merge(
    model: type[ModelT], current: ModelT, updates: dict[str, Any], report: ImportReport, section: str
) -> ModelT:
    values = {**current.model_dump(exclude_unset=True), **updates}
    while True:
        try:
            return model.model_validate(values)
        except ValidationError as error:
            bad = {str(item["loc"][0]) for item in error.errors() if item["loc"]}
            if not bad & set(values):
                return current
            for key in bad & set(values):
                report.warnings.append(
                    f"{section}.{key}: {values.pop(key)!r} is out of range; the default is used"
                )


def _first(error: ValidationError) -> str:
    item = error.errors()[0]
    return f"{'.'.join(map(str, item['loc']))}: {item['msg']}"
