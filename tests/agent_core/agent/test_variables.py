"""Issue #17 row 15: ${...} in a server's env, args, cwd, url and headers, expanded at start only."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.importers import import_source
from agent_core.agent.schema import StdioServerConfig, StreamableHttpServerConfig
from agent_core.agent.variables import (
    InputRequest,
    UnsetVariableError,
    VariableContext,
    expand_variables,
    variables_for,
)
from agent_core.mcp import ServerStatus
from agent_core.mcp._transports import resolve_headers, stdio_parameters

CORPUS = Path(__file__).parents[2] / "fixtures" / "import_corpus"


class MemoryStore:
    """A keyring stand-in: what was stored, by reference."""

    def __init__(self) -> None:
        self.saved: dict[str, str] = {}

    def get(self, reference: str) -> str | None:
        return self.saved.get(reference)

    def put(self, reference: str, value: str) -> None:
        self.saved[reference] = value


def context(environ: dict[str, str], **kwargs: object) -> VariableContext:
    return VariableContext(environ=environ, store=MemoryStore(), **kwargs)  # type: ignore[arg-type]


def test_env_default_and_vscode_env_forms_expand_from_the_environment() -> None:
    env = {"HOST": "db.local", "EMPTY": ""}
    expanded = expand_variables(
        "${HOST}:${PORT:-5432}/${env:HOST}?m=${EMPTY:-x}", where="test", context=context(env)
    )
    assert expanded == "db.local:5432/db.local?m=x"


def test_an_unset_variable_names_itself_and_where_it_is_used() -> None:
    with pytest.raises(UnsetVariableError) as raised:
        expand_variables(
            "Bearer ${API_TOKEN}", where="MCP server 'x': header Authorization", context=context({})
        )
    message = str(raised.value)
    assert "API_TOKEN" in message and "MCP server 'x': header Authorization" in message
    assert "${API_TOKEN:-value}" in message  # and how to fix it


def test_workspace_folder_is_the_agents_workspace_root_or_its_folder(tmp_path: Path) -> None:
    import_source(CORPUS / "vscode-project" / ".vscode" / "mcp.json", tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    files = agent.config.mcp_servers["files"]
    assert isinstance(files, StdioServerConfig)
    variables = variables_for(agent)
    assert variables.workspace_root == agent.root  # an imported agent has no workspace server
    assert stdio_parameters("files", files, variables=variables).args[-1] == str(agent.root)
    workspace = tmp_path / "project"
    with_root = VariableContext(workspace_root=workspace)
    assert stdio_parameters("files", files, variables=with_root).args[-1] == str(workspace)


def test_values_are_expanded_at_start_and_never_written_into_the_agent(tmp_path: Path) -> None:
    import_source(CORPUS / "vscode-project" / ".vscode" / "mcp.json", tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    github = agent.config.mcp_servers["github"]
    assert isinstance(github, StreamableHttpServerConfig)
    headers = resolve_headers("github", github.headers, context({"GITHUB_TOKEN": "gho_secret_value"}))
    assert headers == {"Authorization": "Bearer gho_secret_value"}
    assert "gho_secret_value" not in (tmp_path / "agent" / "agent.yaml").read_text(encoding="utf-8")


def test_an_input_is_asked_for_once_and_kept_in_the_keyring() -> None:
    asked: list[InputRequest] = []

    def ask(request: InputRequest) -> str:
        asked.append(request)
        return "pplx-typed"

    store = MemoryStore()
    variables = VariableContext(agent_name="Research", environ={}, ask_input=ask, store=store)
    for _ in range(2):
        value = expand_variables(
            "${input:perplexity-key}", where="MCP server 'p': env KEY", context=variables
        )
        assert value == "pplx-typed"
    assert [request.input_id for request in asked] == ["perplexity-key"]
    assert store.saved == {"keyring://contextdesk/Research/input-perplexity-key": "pplx-typed"}
    # The next run finds it in the keyring and does not ask.
    later = VariableContext(agent_name="Research", environ={}, ask_input=ask, store=store)
    assert expand_variables("${input:perplexity-key}", where="w", context=later) == "pplx-typed"
    assert len(asked) == 1


def test_an_input_without_a_way_to_ask_says_how_to_set_it() -> None:
    with pytest.raises(UnsetVariableError) as raised:
        expand_variables("${input:perplexity-key}", where="MCP server 'p': env KEY", context=context({}))
    assert "contextdesk mcp ping" in str(raised.value)
    assert "restart the server (in the app's Tools" in str(raised.value)  # a cancelled question too
    assert "PERPLEXITY_KEY" in str(raised.value)
    from_env = context({"PERPLEXITY_KEY": "pplx-env"})
    assert expand_variables("${input:perplexity-key}", where="w", context=from_env) == "pplx-env"


def test_an_unknown_variable_form_is_refused_with_the_forms_that_work() -> None:
    with pytest.raises(UnsetVariableError, match=r"does not expand.*\$\{workspaceFolder\}"):
        expand_variables("${command:pickFile}", where="w", context=context({}))


def test_an_unset_variable_fails_that_server_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from agent_core.mcp import McpManager, ServerState

    monkeypatch.delenv("CD_TEST_UNSET_TOKEN", raising=False)
    broken = StdioServerConfig(
        command=sys.executable, args=["-c", "pass"], env={"T": "${CD_TEST_UNSET_TOKEN}"}
    )
    fine = StdioServerConfig(command=sys.executable, args=["-c", "pass"], enabled=False)

    async def start() -> dict[str, ServerStatus]:
        async with McpManager({"broken": broken, "other": fine}) as manager:
            return {status.name: status for status in manager.statuses()}

    statuses = asyncio.run(start())
    assert statuses["broken"].state is ServerState.FAILED
    assert "CD_TEST_UNSET_TOKEN" in (statuses["broken"].reason or "")
    assert "env T" in (statuses["broken"].reason or "")
    assert statuses["other"].state is ServerState.DISABLED
