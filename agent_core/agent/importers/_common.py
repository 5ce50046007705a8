"""What every importer produces, and the helpers they share."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import yaml

from agent_core.agent._text_file import FileRefused, read_bytes
from agent_core.agent.importers._jsonc import parse_jsonc
from agent_core.agent.importers._skill_read import ImportedSkill
from agent_core.agent.importers._source_root import link_out_problem
from agent_core.agent.items import DocumentItem, DocumentKind
from agent_core.agent.names import name_problem, numbered_name, suggest_name
from agent_core.agent.schema import IncludeMode
from agent_core.agent.secrets import ENV_SCHEME
from agent_core.errors import AgentFileError

__all__ = [
    "AgentImportError",
    "ImportReport",
    "ImportedAgent",
    "Importer",
    "ReadImport",
    "read_structured_file",
    "safe_item_name",
    "secret_value",
    "too_deeply_nested",
]


class AgentImportError(AgentFileError):
    """A source cannot be imported at all."""


class ReadImport(Protocol):
    def __call__(self, source: Path, *, copy_secrets: bool) -> ImportedAgent:
        """Read ``source``, which the importer detected.

        Raises:
            AgentImportError: ``source`` cannot be read after all.
        """
        ...


@dataclass(frozen=True)
class Importer:
    """One format ContextDesk imports, as registered in the ``importers`` plug-in registry.

    ``detects`` is asked about an existing file or folder and must not raise; importers are asked in
    registration order (built-ins first), and the first that detects the source reads it. When that
    one ``combines`` (it reads one part of a project: its rules, skills, sub-agents or MCP servers)
    and the source is a folder, every other importer that combines and detects the folder reads it
    too, and the parts are imported together.
    """

    expected: str  # what a user should point at, for "nothing to import": "Cursor rules (...)"
    detects: Callable[[Path], bool]
    read: ReadImport
    combines: bool = False  # a part of a project folder (not a whole agent of another app)


def read_structured_file(path: Path) -> Any:
    """The data of a JSON file (``.json``, read as JSONC: editors allow comments) or a YAML file
    (any other name).

    Raises:
        AgentImportError: the file cannot be read or parsed.
    """
    text = read_import_text(path)
    try:
        return parse_jsonc(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (json.JSONDecodeError, yaml.YAMLError) as error:
        raise AgentImportError(f"cannot read {path} ({error}): check the file") from error
    except RecursionError:
        raise AgentImportError(too_deeply_nested(path)) from None


def too_deeply_nested(path: Path) -> str:
    """What to say of a file nested deeper than a parser can follow (``[[[[…`` many times over)."""
    return (
        f"cannot read {path}: it is nested deeper than any settings file needs (hundreds of levels "
        "of lists or objects inside one another): check that it is the file you meant"
    )


def read_import_text(path: Path) -> str:
    """The UTF-8 text of a file to import: an ordinary file of at most 5 MB (a named pipe or a
    device would block the import forever; a huge file would fill memory).

    A file found inside the source that links out of it is refused (``_source_root``).

    Raises:
        AgentImportError: the file is not an ordinary file, too large, unreadable or not UTF-8, or
            it links out of the folder being imported.
    """
    if problem := link_out_problem(path):
        raise AgentImportError(f"cannot import {path}: {problem}")
    try:
        return read_bytes(path).decode("utf-8")
    except FileRefused as error:
        raise AgentImportError(f"cannot import {path}: {error.message}; {error.fix}") from error
    except UnicodeDecodeError as error:
        raise AgentImportError(
            f"cannot import {path}: it is not UTF-8 text (byte {error.start}); save it as UTF-8"
        ) from error


def read_rule_text(path: Path) -> str:
    """The text of a rule file to import, without a byte-order mark (Windows PowerShell 5.1 and
    Notepad write one; it is not part of the rule) and with plain ``\n`` line breaks.

    Raises:
        AgentImportError: as :func:`read_import_text`.
    """
    text = read_import_text(path).removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n")


@dataclass
class ImportReport:
    """What an import did and did not carry over, for the user to read."""

    source_format: str
    created: list[str] = field(default_factory=list)  # added to the agent (filled when merging)
    changed: list[str] = field(default_factory=list)  # the agent's own, replaced (--replace)
    skipped: list[str] = field(default_factory=list)  # left out, each with the reason and what to do
    warnings: list[str] = field(default_factory=list)  # imported, but not quite as written: why
    # What a skill's text asks of the model that the user should read first (agent check's warnings).
    trust_warnings: list[str] = field(default_factory=list)
    dry_run: bool = False  # nothing was written: the lines say what an import would do
    nothing_imported: bool = False  # nothing found could be added: no file was written

    @property
    def headline(self) -> str:
        """One sentence on the outcome when nothing was imported: that, and where to look; '' else."""
        if not self.nothing_imported:
            return ""
        why = "the lines below say why" if self.skipped else "the source holds nothing the agent lacks"
        return f"Nothing {'would be' if self.dry_run else 'was'} imported: {why}."

    def lines(self) -> list[str]:
        would = "would be " if self.dry_run else ""
        out = [f"format: {self.source_format}" + (" (dry run: nothing written)" if self.dry_run else "")]
        out += [f"  {'would import' if self.dry_run else 'imported'}: {line}" for line in self.created]
        out += [f"  {would}changed: {line}" for line in self.changed]
        out += [f"  {would}skipped: {line}" for line in self.skipped]
        out += [f"  warning: {line}" for line in self.warnings]
        out += [f"  read before trusting: {line}" for line in self.trust_warnings]
        return out


@dataclass
class ImportedAgent:
    """Parts of an agent read from another format; ``None`` means the source does not say."""

    report: ImportReport
    name: str | None = None
    description: str | None = None
    system_prompt: str | None = None
    chat: dict[str, Any] = field(default_factory=dict)  # snake_case ChatDefaults fields
    selection: dict[str, Any] = field(default_factory=dict)  # snake_case SelectionConfig fields
    providers: dict[str, dict[str, Any]] = field(default_factory=dict)  # camelCase blocks
    mcp_servers: dict[str, dict[str, Any]] = field(default_factory=dict)  # camelCase blocks
    documents: list[DocumentItem] = field(default_factory=list)
    # Sub-agent files by name, their text as read (written unchanged to subagents/NAME.md).
    subagent_files: dict[str, str] = field(default_factory=dict)
    # Workflow files by name (written to workflows/NAME.yaml).
    workflow_files: dict[str, str] = field(default_factory=dict)
    # Skill folders, each written byte for byte to skills/NAME/.
    skills: list[ImportedSkill] = field(default_factory=list)

    def add_document(
        self,
        kind: DocumentKind,
        raw_name: str,
        *,
        description: str = "",
        priority_level: Any = 500,
        include: IncludeMode = IncludeMode.MANUAL,
        text: str = "",
        globs: tuple[str, ...] = (),
    ) -> None:
        name = safe_item_name(raw_name, self.report, kind)
        taken = {d.name.lower() for d in self.documents if d.kind == kind}
        if name.lower() in taken:
            name = numbered_name(name, taken)
            self.report.warnings.append(
                f"{kind} '{raw_name}' renamed to '{name}': another {kind} of the source has the same name"
            )
        self.documents.append(
            DocumentItem(
                kind=kind,
                name=name,
                description=description,
                priority_level=clamp_priority(priority_level, self.report, name),
                include=include,
                text=text,
                globs=globs,
            )
        )


def safe_item_name(raw_name: str, report: ImportReport, what: str) -> str:
    if name_problem(raw_name) is None:
        return raw_name
    name = suggest_name(raw_name)
    report.warnings.append(f"{what} '{raw_name}' renamed to '{name}' (names must be safe file names)")
    return name


def clamp_priority(value: Any, report: ImportReport, name: str) -> int:
    try:
        number = int(float(value))
    except (TypeError, ValueError):
        report.warnings.append(f"'{name}': priorityLevel {value!r} is not a number; 500 used")
        return 500
    if not 0 <= number <= 999:
        report.warnings.append(f"'{name}': priorityLevel {number} is outside 0-999; clamped")
    return max(0, min(999, number))


def secret_value(value: Any, variable: str, report: ImportReport, where: str, copy_secrets: bool) -> str:
    """The value to write for a secret found in a source file.

    Literal secrets become ``env://VAR`` references unless the user asked to copy them, so an
    import never spreads a key into another plain-text file by surprise.
    """
    text = str(value)
    if text.startswith(ENV_SCHEME) or copy_secrets or not text:
        return text
    if text.startswith("${") and text.endswith("}") and text.count("${") == 1:
        return ENV_SCHEME + text[2:-1]
    if "${" in text:
        return text  # a template over environment variables holds no secret itself
    report.warnings.append(
        f"{where}: the literal secret was not copied; it now reads {ENV_SCHEME}{variable}. "
        f"Set {variable} in your environment, or import again with --copy-secrets"
    )
    return ENV_SCHEME + variable


def env_variable_for(*parts: str) -> str:
    return re.sub(r"[^A-Z0-9]+", "_", "_".join(parts).upper()).strip("_")
