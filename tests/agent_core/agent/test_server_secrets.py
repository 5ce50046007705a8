"""A token typed into a server's settings is kept in the keyring and agent.yaml gets a reference;
without a keyring nothing is saved and the error says how to use an environment variable."""

from __future__ import annotations

from collections.abc import Iterator

import keyring
import pytest
from keyring.backends import fail

from agent_core.agent.keyring_secrets import SecretStoreError
from agent_core.agent.schema import StdioServerConfig, StreamableHttpServerConfig
from agent_core.agent.secrets import resolve_secret
from agent_core.agent.server_secrets import keep_secrets_in_the_keyring
from tests.support.memory_keyring import MemoryKeyring

TOKEN = "ghp_SECRETTOKEN1234567890abcdefABCDEF"


def github_server() -> StdioServerConfig:
    return StdioServerConfig(
        type="stdio",
        command="npx",
        args=["-y", "@modelcontextprotocol/server-github"],
        env={"GITHUB_TOKEN": TOKEN, "LOG_LEVEL": "debug", "HOME_DIR": "/home/me"},
    )


def test_a_typed_token_goes_to_the_keyring_and_the_file_gets_its_reference(
    memory_keyring: MemoryKeyring,
) -> None:
    kept = keep_secrets_in_the_keyring("My Agent", "github", github_server())
    assert isinstance(kept.config, StdioServerConfig)
    reference = kept.config.env["GITHUB_TOKEN"]
    assert reference == "keyring://contextdesk/My-Agent/github.GITHUB_TOKEN"
    assert TOKEN not in kept.config.model_dump_json()
    assert resolve_secret(reference, what="GITHUB_TOKEN") == TOKEN  # what the server's start reads
    assert kept.config.env["LOG_LEVEL"] == "debug" and kept.config.env["HOME_DIR"] == "/home/me"
    assert kept.moved == ("env GITHUB_TOKEN",)


def test_a_header_with_a_bearer_token_goes_to_the_keyring_too(memory_keyring: MemoryKeyring) -> None:
    server = StreamableHttpServerConfig(
        type="streamable-http",
        url="https://mcp.example.com/mcp",
        headers={"Authorization": f"Bearer {TOKEN}", "Accept": "application/json"},
    )
    kept = keep_secrets_in_the_keyring("a", "remote", server)
    assert isinstance(kept.config, StreamableHttpServerConfig)
    assert kept.config.headers["Authorization"].startswith("keyring://") and kept.moved == (
        "header Authorization",
    )
    assert kept.config.headers["Accept"] == "application/json"


def test_references_and_plain_values_are_left_as_they_are(memory_keyring: MemoryKeyring) -> None:
    server = github_server().model_copy(update={"env": {"GITHUB_TOKEN": "env://GITHUB_TOKEN", "DEBUG": "1"}})
    kept = keep_secrets_in_the_keyring("a", "github", server)
    assert kept.config is server and kept.moved == ()


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    yield
    keyring.set_keyring(previous)


def test_without_a_keyring_a_token_is_refused_with_the_environment_variable_way(no_keyring: None) -> None:
    with pytest.raises(SecretStoreError) as raised:
        keep_secrets_in_the_keyring("a", "github", github_server())
    message = str(raised.value)
    assert "GITHUB_TOKEN looks like a secret" in message and "env://GITHUB_TOKEN" in message
    assert TOKEN not in message
