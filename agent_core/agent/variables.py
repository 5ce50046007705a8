"""``${...}`` variables in an MCP server's env, args, url and headers, expanded when it starts.

agent.yaml keeps them as written, so no value an import or the user's environment holds is ever
copied into the agent. What each form means:

- ``${VAR}`` and ``${env:VAR}`` (VS Code): the environment variable; unset is an error.
- ``${VAR:-default}``: the variable, or ``default`` when it is unset or empty (as in a shell).
- ``${workspaceFolder}``: the agent's workspace root (the built-in workspace server's ``root``, or
  the agent folder when it has none); ``${workspaceFolderBasename}`` its name; ``${userHome}``.
- ``${input:id}`` (VS Code): a value the user is asked for once. It is looked up in the system
  keyring (``keyring://contextdesk/<agent>/input-<id>``), then in the environment variable named
  after the id (``${input:api-key}`` -> ``API_KEY``); otherwise the front end's ``ask_input``
  callback asks for it and it is stored in the keyring. With neither a keyring nor a way to ask,
  the error says which variable to set.

A variable that cannot be expanded fails the start of that server only, naming it and where it is.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from agent_core.agent.schema import AgentConfig, InternalServerConfig
from agent_core.agent.secrets import MissingSecretError

if TYPE_CHECKING:
    from agent_core.agent.agent import Agent

__all__ = [
    "InputPrompt",
    "InputRequest",
    "SecretStore",
    "UnsetVariableError",
    "VariableContext",
    "expand_variables",
    "input_variable",
    "variables_for",
    "variables_in",
    "workspace_folder_of",
    "workspace_root_of",
]

VARIABLE = re.compile(r"\$\{([^}]*)\}")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class UnsetVariableError(MissingSecretError):
    """A ``${...}`` variable has no value (the message names it, where it is used and the fix)."""


@dataclass(frozen=True)
class InputRequest:
    """What a front end shows when asking for an ``${input:id}`` value."""

    input_id: str
    where: str  # "MCP server 'github': env GITHUB_TOKEN"


class InputPrompt(Protocol):
    def __call__(self, request: InputRequest) -> str | None:
        """The value the user typed, or None when they declined."""
        ...


class SecretStore(Protocol):
    """Where ``${input:id}`` values are kept between runs (the system keyring by default)."""

    def get(self, reference: str) -> str | None: ...

    def put(self, reference: str, value: str) -> None: ...


class _SystemKeyring:
    """The system keyring through keyring_secrets; a missing keyring holds nothing and stores nothing."""

    def get(self, reference: str) -> str | None:
        from agent_core.agent.keyring_secrets import keyring_available, resolve_keyring_secret

        if not keyring_available():
            return None
        try:
            return resolve_keyring_secret(reference, what="an input value")
        except MissingSecretError:
            return None

    def put(self, reference: str, value: str) -> None:
        from agent_core.agent.keyring_secrets import SecretStoreError, keyring_available, store_secret

        # Without a keyring the value is kept for this run only (VariableContext.asked).
        if keyring_available():
            with contextlib.suppress(SecretStoreError):
                store_secret(reference, value)


@dataclass(frozen=True)
class VariableContext:
    """What variables expand to for one agent's servers."""

    agent_name: str = "agent"
    workspace_root: Path | None = None
    ask_input: InputPrompt | None = None
    environ: Mapping[str, str] | None = None  # None: os.environ, read at expansion time
    store: SecretStore = field(default_factory=_SystemKeyring)
    # ${input:id} values asked for during this run, so each is asked once even without a keyring.
    asked: dict[str, str] = field(default_factory=dict, compare=False)
    # Servers start side by side (each in a thread): one question at a time, each asked once.
    asking: threading.Lock = field(default_factory=threading.Lock, compare=False, repr=False)

    def input_reference(self, input_id: str) -> str:
        from agent_core.agent.keyring_secrets import keyring_reference

        return keyring_reference(self.agent_name, f"input-{input_id}")


def input_variable(input_id: str) -> str:
    """The environment variable that can give ``${input:id}`` its value: ``api-key`` -> ``API_KEY``."""
    return re.sub(r"[^A-Z0-9]+", "_", input_id.upper()).strip("_") or "INPUT"


def variables_in(value: str) -> list[str]:
    """The expressions of the ``${...}`` variables in ``value``, in order."""
    return VARIABLE.findall(value)


def expand_variables(value: str, *, where: str, context: VariableContext | None = None) -> str:
    """``value`` with every ``${...}`` replaced by its value.

    Raises:
        UnsetVariableError: a variable has no value; the message names it and ``where``.
    """
    if "${" not in value:
        return value
    context = context or VariableContext()
    return VARIABLE.sub(lambda match: _value_of(match.group(1), where, context), value)


def _value_of(expression: str, where: str, context: VariableContext) -> str:
    env = os.environ if context.environ is None else context.environ
    if expression in ("workspaceFolder", "workspaceRoot", "workspaceFolderBasename"):
        if context.workspace_root is None:
            raise UnsetVariableError(
                f"{where} uses ${{{expression}}}, but this agent has no workspace folder here: "
                "open the agent in the app or the CLI, or write the folder itself"
            )
        root = context.workspace_root
        return root.name if expression == "workspaceFolderBasename" else str(root)
    if expression == "userHome":
        return str(Path.home())
    if expression.startswith("input:"):
        return _input(expression.removeprefix("input:"), where, context, env)
    name, has_default, default = expression.partition(":-")
    name = name.removeprefix("env:")
    if not _NAME.match(name):
        raise UnsetVariableError(
            f"{where} uses ${{{expression}}}, which ContextDesk does not expand: write ${{VARIABLE}}, "
            "${VARIABLE:-default}, ${env:VARIABLE}, ${workspaceFolder} or ${input:id}"
        )
    found = env.get(name)
    if has_default:
        return found or default
    if found is None:
        raise UnsetVariableError(
            f"{where} uses ${{{expression}}}, and the environment variable {name} is not set: set {name} "
            f"before starting ContextDesk, or give a default as ${{{name}:-value}}"
        )
    return found


def _input(input_id: str, where: str, context: VariableContext, env: Mapping[str, str]) -> str:
    with context.asking:
        return _input_value(input_id, where, context, env)


def _input_value(input_id: str, where: str, context: VariableContext, env: Mapping[str, str]) -> str:
    if input_id in context.asked:
        return context.asked[input_id]
    reference = context.input_reference(input_id)
    stored = context.store.get(reference)
    if stored:
        return stored
    variable = input_variable(input_id)
    if env.get(variable):
        return env[variable]
    answer = context.ask_input(InputRequest(input_id, where)) if context.ask_input else None
    if not answer:
        raise UnsetVariableError(
            f"{where} uses ${{input:{input_id}}}, which has no value yet: restart the server (in the app's "
            f"Tools, or `contextdesk mcp ping AGENT_DIR` in a terminal) to be asked for it once (it is kept "
            f"in the system keyring), or set the environment variable {variable}"
        )
    context.asked[input_id] = answer
    context.store.put(reference, answer)
    return answer


def workspace_folder_of(config: AgentConfig) -> str:
    """The folder the agent's built-in workspace server may read, as written ("" when it has none)."""
    server = config.mcp_servers.get("workspace")
    if isinstance(server, InternalServerConfig) and server.tool == "workspace":
        return str(server.options.get("root", ""))
    return ""


def workspace_root_of(agent: Agent) -> Path:
    """The folder ``${workspaceFolder}`` stands for: the built-in workspace server's ``root``, or
    the agent folder when the agent has no such server."""
    for server in agent.config.mcp_servers.values():
        if isinstance(server, InternalServerConfig) and server.tool == "workspace":
            root = server.options.get("root")
            if isinstance(root, str) and root.strip():
                return Path(root).expanduser()
    return agent.root


def variables_for(agent: Agent, ask_input: InputPrompt | None = None) -> VariableContext:
    """What the variables of ``agent``'s servers expand to; ``ask_input`` asks for ``${input:id}``."""
    return VariableContext(
        agent_name=agent.config.name, workspace_root=workspace_root_of(agent), ask_input=ask_input
    )
