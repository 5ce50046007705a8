"""Issue #17 rows 11-16: MCP configs of every app, imported with nothing lost and no secret copied."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.importers import AgentImportError, import_source
from agent_core.agent.importers._jsonc import parse_jsonc
from agent_core.agent.importers._secret_detection import is_secret
from agent_core.agent.schema import (
    IncludeMode,
    SseServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)

CORPUS = Path(__file__).parents[2] / "fixtures" / "import_corpus"


def imported(tmp_path: Path, source: str):  # type: ignore[no-untyped-def]
    report = import_source(CORPUS / source, tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    assert not agent.errors
    return agent.config.mcp_servers, "\n".join(report.lines())


def test_a_config_saved_with_a_utf8_bom_by_powershell_is_accepted(tmp_path: Path) -> None:
    assert (CORPUS / "powershell" / "mcp.json").read_bytes().startswith(b"\xef\xbb\xbf")
    servers, _ = imported(tmp_path, "powershell/mcp.json")
    time = servers["time"]
    assert isinstance(time, StdioServerConfig)
    assert time.args == ["mcp-server-time", "--local-timezone=Europe/Berlin"]


def test_jsonc_comments_and_trailing_commas_are_removed_but_strings_are_left_alone() -> None:
    text = '{\n  // a comment\n  "url": "https://x.org//y", /* block, } */ "list": [1, 2,],\n  "s": "a,}",\n}'
    assert parse_jsonc(text) == {"url": "https://x.org//y", "list": [1, 2], "s": "a,}"}
    assert parse_jsonc('{"escaped": "quote \\" // not a comment",}') == {
        "escaped": 'quote " // not a comment'
    }


def test_windsurf_jsonc_with_server_url_and_disabled_is_imported(tmp_path: Path) -> None:
    servers, _ = imported(tmp_path, "windsurf/mcp_config.json")
    deepwiki = servers["deepwiki"]
    assert isinstance(deepwiki, SseServerConfig) and deepwiki.url == "https://mcp.deepwiki.com/sse"
    assert isinstance(servers["figma"], StreamableHttpServerConfig)
    assert servers["puppeteer"].enabled is False


def test_vscode_mcp_json_with_inputs_keeps_variables_and_says_how_inputs_get_their_value(
    tmp_path: Path,
) -> None:
    servers, told = imported(tmp_path, "vscode-project/.vscode/mcp.json")
    perplexity = servers["perplexity"]
    assert isinstance(perplexity, StdioServerConfig)
    assert perplexity.env == {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
    files = servers["files"]
    assert isinstance(files, StdioServerConfig) and files.args[-1] == "${workspaceFolder}"
    github = servers["github"]
    assert isinstance(github, StreamableHttpServerConfig)
    assert github.headers == {"Authorization": "Bearer ${env:GITHUB_TOKEN}"}
    assert "${input:perplexity-key} (Perplexity API Key)" in told
    assert "set the environment variable PERPLEXITY_KEY" in told


def test_vscode_settings_json_mcp_servers_are_imported_from_among_other_settings(tmp_path: Path) -> None:
    servers, _ = imported(tmp_path, "vscode-user/settings.json")
    fetch = servers["fetch"]
    assert isinstance(fetch, StdioServerConfig)
    assert fetch.args == ["mcp-server-fetch", "--user-agent=${USER_AGENT:-ContextDesk}"]


def test_a_project_folder_is_searched_for_vscode_and_gemini_files(tmp_path: Path) -> None:
    import_source(CORPUS / "vscode-project", tmp_path / "a")
    assert "perplexity" in load_agent(tmp_path / "a").config.mcp_servers
    import_source(CORPUS / "gemini-project", tmp_path / "b")
    assert "docs" in load_agent(tmp_path / "b").config.mcp_servers


def test_cline_and_roo_timeouts_approvals_and_disabled_tools_map_onto_tool_settings(tmp_path: Path) -> None:
    servers, told = imported(tmp_path, "cline/cline_mcp_settings.json")
    brave = servers["brave-search"]
    assert brave.call_timeout_seconds == 120
    assert brave.tools["brave_web_search"].permission_required is False
    sqlite = servers["sqlite"]
    assert sqlite.enabled is False
    assert sqlite.call_timeout_seconds == 60  # 60000 is more than Cline allows in seconds: milliseconds
    assert "timeout 60000 read as milliseconds" in told

    roo, told = imported(tmp_path / "roo", "roo/mcp_settings.json")
    context7 = roo["context7"]
    assert context7.call_timeout_seconds == 300
    assert context7.tools["get-library-docs"].permission_required is False
    assert context7.tools["debug-dump"].include is IncludeMode.MANUAL
    assert "'debug-dump' was disabled" in told


def test_gemini_settings_map_http_url_milliseconds_trust_and_tool_lists(tmp_path: Path) -> None:
    servers, _ = imported(tmp_path, "gemini-project/.gemini/settings.json")
    git = servers["git"]
    assert git.call_timeout_seconds == 30  # Gemini writes milliseconds
    assert git.tool_defaults.permission_required is False  # trust: true
    docs = servers["docs"]
    assert isinstance(docs, StreamableHttpServerConfig)
    assert docs.headers == {"Authorization": "Bearer ${DOCS_API_TOKEN}"}  # Gemini's $VAR
    assert docs.tools["delete_page"].include is IncludeMode.MANUAL
    events = servers["events"]
    assert isinstance(events, SseServerConfig)  # Gemini's `url` is SSE
    assert events.tool_defaults.include is IncludeMode.MANUAL
    assert events.tools["list_events"].include is IncludeMode.ALWAYS


def test_a_gemini_extension_resolves_its_own_folder(tmp_path: Path) -> None:
    servers, _ = imported(tmp_path, "gemini-extension/gemini-extension.json")
    weather = servers["weather"]
    assert isinstance(weather, StdioServerConfig)
    assert weather.args == [f"{(CORPUS / 'gemini-extension').resolve()}/dist/server.js"]
    assert weather.env == {"WEATHER_API_KEY": "${WEATHER_API_KEY}"}


def test_zed_context_servers_new_and_old_shapes_and_extensions_reported(tmp_path: Path) -> None:
    servers, told = imported(tmp_path, "zed/settings.json")
    old = servers["old-style"]
    assert isinstance(old, StdioServerConfig)
    assert (old.command, old.args, old.env) == (
        "/usr/local/bin/mcp-sqlite",
        ["--db", "/home/kim/db.sqlite"],
        {"RUST_LOG": "info"},
    )
    assert isinstance(servers["remote-docs"], StreamableHttpServerConfig)
    assert "'postgres-ext': installed as a Zed extension" in told
    assert "'source'" not in told and "'settings'" not in told


def test_claude_code_mcp_json_types_are_read(tmp_path: Path) -> None:
    servers, _ = imported(tmp_path, "claude-code/.mcp.json")
    assert isinstance(servers["sentry"], StreamableHttpServerConfig)
    assert isinstance(servers["linear"], SseServerConfig)
    airtable = servers["airtable"]
    assert isinstance(airtable, StdioServerConfig)
    assert airtable.env == {"AIRTABLE_API_KEY": "${AIRTABLE_API_KEY}"}  # kept as written


def test_goose_extensions_map_cmd_envs_env_keys_uri_and_report_built_ins(tmp_path: Path) -> None:
    servers, told = imported(tmp_path, "goose/config.yaml")
    github = servers["github"]
    assert isinstance(github, StdioServerConfig)
    assert github.command == "npx" and github.args == ["-y", "@modelcontextprotocol/server-github"]
    assert github.env == {"GITHUB_PERSONAL_ACCESS_TOKEN": "env://GITHUB_PERSONAL_ACCESS_TOKEN"}
    assert github.call_timeout_seconds == 300
    remote = servers["remote"]
    assert isinstance(remote, StreamableHttpServerConfig) and remote.enabled is False
    assert "'developer': a Goose 'builtin' extension" in told


def test_secrets_are_found_by_value_and_key_and_numbers_and_paths_stay(tmp_path: Path) -> None:
    servers, told = imported(tmp_path, "claude-desktop/claude_desktop_config.json")
    env = servers["memory-bank"].env  # type: ignore[union-attr]
    assert env["DEFAULT_MINIMUM_TOKENS"] == "6000"
    assert env["GOOGLE_APPLICATION_CREDENTIALS"] == "/Users/ana/.config/gcloud/creds.json"
    assert env["MAX_TOKENS"] == "8192" and env["AUTH_TYPE"] == "oauth" and env["LOG_LEVEL"] == "debug"
    assert env["OPENAI_API_KEY"] == "env://OPENAI_API_KEY"
    assert env["DATABASE_URL"] == "postgresql://ana:${MEMORY_BANK_PASSWORD}@localhost:5432/notes"
    for variable in ("OPENAI_API_KEY", "MEMORY_BANK_PASSWORD", "GITHUB_PERSONAL_ACCESS_TOKEN"):
        assert f"Set {variable} in your environment" in told
    written = (tmp_path / "agent" / "agent.yaml").read_text(encoding="utf-8")
    assert "sk-proj-" not in written and "s3cr3t-pw" not in written and "ghp_" not in written


@pytest.mark.parametrize(
    ("key", "value", "secret"),
    [
        ("DEFAULT_MINIMUM_TOKENS", "6000", False),
        ("SERVICE_CREDENTIALS_PATH", "/home/x/creds.json", False),
        ("GOOGLE_APPLICATION_CREDENTIALS", "C:\\Users\\x\\creds.json", False),
        ("API_BASE_URL", "https://api.example.com/v1", False),
        ("AUTH_TYPE", "oauth", False),
        ("KEYBOARD_LAYOUT", "de-nodeadkeys", False),
        ("AUTH_USER", "ana@example.com", False),
        ("ANYTHING", "ghp_0123456789abcdefghijABCDEFGHIJ012345", True),
        ("AWS_ACCESS_KEY_ID", "AKIAIOSFODNN7EXAMPLE", True),
        ("SLACK_BOT_TOKEN", "xoxb-1234567890-abcdefghij", True),
        ("PASSWORD", "correct horse battery", True),
        ("MY_SERVICE_KEY", "a8f5f167f44f4964e6c998dee827110c", True),
        ("MY_SERVICE_KEY", "shortval", False),
    ],
)
def test_secret_detection_weighs_value_and_key(key: str, value: str, secret: bool) -> None:
    assert is_secret(key, value) is secret


def test_a_file_that_is_not_json_even_as_jsonc_says_where(tmp_path: Path) -> None:
    with pytest.raises(AgentImportError, match=r"line 3 column"):
        import_source(CORPUS / "broken" / "mcp.json", tmp_path / "agent")
    assert not (tmp_path / "agent" / "agent.yaml").exists()
