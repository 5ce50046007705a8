"""Importers: every field with a meaning here is mapped, the rest is reported, secrets stay out."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_core.agent import IncludeMode, load_agent
from agent_core.agent.importers import AgentImportError, import_source, read_source
from agent_core.agent.scaffold import create_agent
from agent_core.agent.schema import (
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
    ToolPermissionPolicy,
)


def agent_text(root: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file())


def test_tsagent_yaml_maps_settings_items_providers_and_tool_modes(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    report = import_source(fixtures_dir / "importers" / "tsagent-agent.yaml", tmp_path / "support")
    agent = load_agent(tmp_path / "support")
    assert agent.errors == []
    config = agent.config
    assert config.name == "Support Bot"
    assert config.description == "Answers customer questions about Acme Cloud"
    assert config.system_prompt.startswith("You are the Acme Cloud support assistant.")
    assert config.chat.model == "anthropic:claude-3-7-sonnet-latest"
    assert (config.chat.max_chat_turns, config.chat.max_output_tokens) == (12, 2000)
    assert (config.chat.temperature, config.chat.top_p) == (0.2, 0.8)
    assert config.chat.tool_permission is ToolPermissionPolicy.ALLOW  # TsAgent "never" ask
    assert (config.selection.top_k, config.selection.top_n, config.selection.include_score) == (30, 4, 0.75)

    assert agent.rules["tone-of-voice"].include is IncludeMode.ALWAYS
    assert agent.rules["tone-of-voice"].priority_level == 10
    refunds = agent.rules["refunds-policy"]  # "refunds policy" is not a safe file name
    assert refunds.include is IncludeMode.AGENT
    assert refunds.text == "Refunds are possible within 30 days of purchase.\n"
    assert agent.references["pricing"].include is IncludeMode.MANUAL
    assert "| Team | $29 |" in agent.references["pricing"].text

    assert set(config.providers) == {"anthropic", "openai", "ollama"}
    assert config.providers["anthropic"].api_key == "env://ANTHROPIC_API_KEY"
    assert config.providers["openai"].api_key == "env://OPENAI_API_KEY"
    assert config.providers["ollama"].base_url == "http://gpu-box:11434/v1"
    assert config.providers["ollama"].type == "openai-compatible"

    time_server = config.mcp_servers["time"]
    assert isinstance(time_server, StdioServerConfig)
    assert time_server.args == ["mcp-server-time", "--local-timezone=Europe/Paris"]
    assert time_server.tool_defaults.include is IncludeMode.AGENT
    assert time_server.tool_defaults.permission_required is False
    github = config.mcp_servers["github"]
    assert isinstance(github, StdioServerConfig)
    assert github.tool_defaults.include is IncludeMode.MANUAL
    assert github.tools["create_issue"].include is IncludeMode.AGENT
    assert github.tools["create_issue"].permission_required is True
    assert github.tools["search_repositories"].permission_required is False
    assert github.env == {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "env://GITHUB_PERSONAL_ACCESS_TOKEN",
        "LOG_LEVEL": "info",
    }
    weather = config.mcp_servers["weather"]
    assert isinstance(weather, SseServerConfig)
    # Only the token moves out: the variable holds the token, the scheme word stays.
    assert weather.headers == {"Authorization": "Bearer ${WEATHER_AUTHORIZATION}"}
    assert config.mcp_servers["refs"].type == "internal"
    assert "rules-server" not in config.mcp_servers

    skipped = "\n".join(report.skipped)
    for expected in (
        "settings.systemPath",
        "settings.theme",
        "metadata: created, lastAccessed, version",
        "provider 'bedrock'",
        "stored embeddings of 1 rules",
        "'rules-server'",
        "embeddings, hash",
    ):
        assert expected in skipped
    written = agent_text(tmp_path / "support")
    for secret in ("sk-ant-literal-secret", "ghp_literal", "Bearer abc", "AKIA0000"):
        assert secret not in written
    assert "embedding" not in written


def test_copy_secrets_keeps_literal_keys_when_the_user_asks(fixtures_dir: Path, tmp_path: Path) -> None:
    import_source(fixtures_dir / "importers" / "tsagent-agent.yaml", tmp_path / "a", copy_secrets=True)
    assert load_agent(tmp_path / "a").config.providers["anthropic"].api_key == "sk-ant-literal-secret"


def test_tsagent_legacy_folder_maps_enabled_and_prompt_and_reports_broken_files(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    report = import_source(fixtures_dir / "importers" / "tsagent-legacy", tmp_path / "legacy")
    agent = load_agent(tmp_path / "legacy")
    assert agent.errors == []
    assert agent.name == "Legacy Dev Helper"
    assert agent.config.system_prompt == "You are a senior engineer helping with the Acme monorepo.\n"
    assert agent.config.chat.model == "gemini:gemini-2.0-flash"
    assert agent.rules["typescript-style"].include is IncludeMode.ALWAYS  # enabled: true
    assert agent.rules["old-habits"].include is IncludeMode.MANUAL  # enabled: false
    assert agent.references["architecture"].include is IncludeMode.AGENT  # include wins over enabled
    assert agent.references["architecture"].text.startswith("# Architecture")
    assert "broken" not in agent.rules
    assert any("broken.mdt" in line and "neither JSON nor YAML" in line for line in report.skipped)
    assert any(line.startswith("settings.maxTurns: no counterpart") for line in report.skipped)
    filesystem = agent.config.mcp_servers["filesystem"]
    assert isinstance(filesystem, StdioServerConfig) and filesystem.command == "npx"


def test_cursor_rules_map_always_apply_description_and_neither(fixtures_dir: Path, tmp_path: Path) -> None:
    report = import_source(fixtures_dir / "importers" / "cursor-project", tmp_path / "cursor")
    agent = load_agent(tmp_path / "cursor")
    assert agent.errors == []
    assert agent.rules["always-typescript"].include is IncludeMode.ALWAYS
    migrations = agent.rules["database-migrations"]
    assert migrations.include is IncludeMode.AGENT
    assert migrations.description == "Writing and reviewing database migrations with Prisma"
    components = agent.rules["frontend-react-components"]
    assert components.include is IncludeMode.MANUAL
    assert components.text.startswith("Components are function components")
    assert components.globs == ("src/components/**/*.tsx", "*.jsx")  # it joins by file (issue 17)
    assert not any("src/components/**/*.tsx" in line for line in report.skipped)


def test_mcp_json_imports_servers_approvals_and_reports_the_rest(fixtures_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "existing"
    create_agent(target)
    report = import_source(fixtures_dir / "importers" / "claude_desktop_config.json", target)
    agent = load_agent(target)
    assert agent.errors == []
    assert "clear-answers" in agent.rules  # an import adds to an agent, it does not replace it
    servers = agent.config.mcp_servers
    assert set(servers) == {
        "workspace",
        "references",  # the default agent's built-in servers stay
        "filesystem",
        "git",
        "brave-search",
        "remote-docs",
        "legacy-sse",
        "weird-name",
    }
    git = servers["git"]
    assert isinstance(git, StdioServerConfig)
    assert git.tools["git_status"].permission_required is False
    assert git.tools["git_log"].permission_required is False
    brave = servers["brave-search"]
    assert isinstance(brave, StdioServerConfig) and brave.env == {"BRAVE_API_KEY": "env://BRAVE_API_KEY"}
    remote = servers["remote-docs"]
    assert isinstance(remote, StreamableHttpServerConfig)
    assert remote.headers == {"Authorization": "Bearer ${DOCS_TOKEN}"}
    legacy = servers["legacy-sse"]
    assert isinstance(legacy, SseServerConfig) and legacy.enabled is False
    assert any("'no-command'" in line and "no command" in line for line in report.skipped)
    assert servers["weird-name"].call_timeout_seconds == 30  # Cline's timeout, in seconds
    assert any("'weird name!' renamed to 'weird-name'" in line for line in report.warnings)
    assert "BSA-literal-key" not in agent_text(target)


def test_importing_twice_adds_a_numbered_copy_of_a_changed_rule_unless_replace(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    source = fixtures_dir / "importers" / "cursor-project"
    import_source(source, tmp_path / "a")
    rule = tmp_path / "a" / "rules" / "always-typescript.md"
    rule.write_text(rule.read_text().replace("strict mode", "strict mode, always"))
    report = import_source(source, tmp_path / "a")
    assert any("'database-migrations': the agent has the same one" in line for line in report.skipped)
    assert any("added as 'always-typescript-2'" in line and "--replace" in line for line in report.warnings)
    assert "strict mode, always" in rule.read_text()
    assert "strict mode, always" not in (tmp_path / "a" / "rules" / "always-typescript-2.md").read_text()
    report = import_source(source, tmp_path / "a", replace=True)
    assert "rule 'always-typescript' replaced (always)" in report.changed
    assert "strict mode, always" not in rule.read_text()


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        ("just: yaml\n", "other.yaml", "not a format ContextDesk imports"),
        ("{not json", "x.json", "cannot read"),
        ('{"servers": 3}', "mcp.json", "not a format"),
    ],
)
def test_unrecognised_sources_are_refused_with_what_was_expected(
    tmp_path: Path, content: str, name: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(AgentImportError, match=message):
        read_source(path)


def test_an_empty_folder_is_refused_listing_the_formats(tmp_path: Path) -> None:
    with pytest.raises(AgentImportError, match="Cursor rules"):
        read_source(tmp_path)


def test_a_failed_import_leaves_an_existing_agent_untouched(fixtures_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "agent"
    create_agent(target)
    before = agent_text(target)
    bad = tmp_path / "bad.json"
    bad.write_text('{"mcpServers": ')
    with pytest.raises(AgentImportError):
        import_source(bad, target)
    assert agent_text(target) == before
    shutil.rmtree(target)


def test_each_source_is_read_by_the_first_importer_that_detects_it(
    fixtures_dir: Path, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    shutil.copytree(fixtures_dir / "importers" / "cursor-project", project)
    shutil.copy(fixtures_dir / "importers" / "claude_desktop_config.json", project / "mcp.json")
    assert read_source(project).report.source_format.startswith("Cursor")  # cursor is asked before mcp-json
    assert read_source(project / "mcp.json").report.source_format == "mcpServers JSON"
    servers_yaml = tmp_path / "servers.yaml"
    servers_yaml.write_text("mcpServers:\n  time:\n    command: uvx\n    args: [mcp-server-time]\n")
    assert list(read_source(servers_yaml).mcp_servers) == ["time"]
    shutil.copy(fixtures_dir / "importers" / "tsagent-agent.yaml", project / "tsagent.yaml")
    assert read_source(project).report.source_format == "TsAgent agent (.yaml)"


def test_an_unknown_tsagent_tool_permission_imports_as_ask(tmp_path: Path) -> None:
    source = tmp_path / "tsagent.yaml"
    source.write_text("metadata:\n  name: Odd\nsettings:\n  toolPermission: Never\n", encoding="utf-8")
    report = import_source(source, tmp_path / "odd")
    assert load_agent(tmp_path / "odd").config.chat.tool_permission is ToolPermissionPolicy.ASK
    assert any("'Never' unknown; 'ask'" in line for line in report.warnings)
