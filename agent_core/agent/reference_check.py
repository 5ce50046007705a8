"""Every environment variable agent.yaml refers to that is not set, with where it is used.

``env://VAR`` may stand anywhere a secret may (provider keys, MCP server env, headers, args, url),
and ``${VAR}`` in a server's env, args, cwd, url or headers is expanded when it starts. Either one
unset makes a provider or a server fail later; ``agent check`` says so up front.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from agent_core.agent.schema import AgentConfig
from agent_core.agent.secrets import env_var_name
from agent_core.agent.variables import VARIABLE

__all__ = ["UnsetVariable", "unset_variables"]


@dataclass(frozen=True)
class UnsetVariable:
    variable: str
    where: str  # the dotted key in agent.yaml: "mcpServers.github.env.GITHUB_TOKEN"
    written: str  # how agent.yaml refers to it: "env://GITHUB_TOKEN" or "${GITHUB_TOKEN}"


def unset_variables(config: AgentConfig, environ: Mapping[str, str] | None = None) -> list[UnsetVariable]:
    """The references in ``config`` whose variable is unset or empty, in file order."""
    env = os.environ if environ is None else environ
    found: list[UnsetVariable] = []
    for where, value in _strings(config.model_dump(by_alias=True, exclude_defaults=True), ""):
        variable = env_var_name(value)
        if variable is not None:
            if not env.get(variable):
                found.append(UnsetVariable(variable, where, value))
            continue
        if not where.startswith("mcpServers."):
            continue  # ${...} is expanded in server settings only
        for expression in VARIABLE.findall(value):
            variable = _required_variable(expression)
            if variable is not None and not env.get(variable):
                found.append(UnsetVariable(variable, where, "${" + expression + "}"))
    return found


def _required_variable(expression: str) -> str | None:
    """The environment variable ``${expression}`` cannot do without, if any."""
    if expression.startswith("input:"):
        return None  # asked for at start, or kept in the keyring: not knowable here
    if ":-" in expression or expression in (
        "workspaceFolder",
        "workspaceRoot",
        "workspaceFolderBasename",
        "userHome",
    ):
        return None
    name = expression.removeprefix("env:")
    return name if name.isidentifier() else None


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for number, item in enumerate(value, start=1):
            yield from _strings(item, f"{where}[{number}]")
