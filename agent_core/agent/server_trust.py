"""Which MCP servers of which agent folders the user trusts to start.

An agent folder may come from someone else (a cloned project, an import): its ``mcpServers`` name
programs to run and addresses to connect to. A server that runs a command or connects to a URL
starts only once the user has seen exactly what it launches and trusted it, as VS Code asks before
starting a workspace's servers. The app's built-in servers (``type: internal``) run no command and
need no trust.

Trust is kept in ``trusted-servers.json`` in the user's config folder, by the agent folder's real
path and the server's name, with a fingerprint of exactly what would be launched: the command, its
arguments, its environment and folder as written (references such as ``env://TOKEN``, never the
resolved secrets), or the URL and headers as written (and, for OAuth, where the user's stored
secrets are sent: the grant, client id, issuer and identity provider, when set). A server whose fingerprint changes needs trust
again. Servers the app writes itself (the desktop's server dialog) are trusted as they are written.

A trust file that cannot be read trusts nothing (each server is asked about again); it is replaced
the next time trust is recorded.
"""

from __future__ import annotations

import hashlib
import json
import logging
import shlex
import threading
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent_core.agent._text_file import FileRefused, read_bytes
from agent_core.agent.schema import (
    InternalServerConfig,
    McpServerConfig,
    StdioServerConfig,
    StreamableHttpServerConfig,
)
from agent_core.atomic import atomic_write_text
from agent_core.paths import user_dirs

__all__ = [
    "MAX_TRUSTED_SERVERS",
    "TRUST_FILE",
    "ServerTrust",
    "TrustGate",
    "UntrustedServer",
    "fingerprint",
    "launch_text",
    "needs_trust",
    "trust_command",
]

logger = logging.getLogger(__name__)

TRUST_FILE = "trusted-servers.json"
#: Trusted servers kept in all; past it the agents trusted longest ago are forgotten (asked again).
MAX_TRUSTED_SERVERS = 5_000
_SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
_REFERENCE_PREFIXES = ("env://", "keyring://", "${")
_LOCK = threading.Lock()  # one read-modify-write of the file at a time in this process


class _TrustFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = Field(default=1, ge=1, le=1)
    # The agent folder's real path -> server name -> fingerprint of what it launches.
    agents: dict[str, dict[str, str]] = Field(default_factory=dict)


def needs_trust(config: McpServerConfig) -> bool:
    """Whether ``config`` runs a command or connects somewhere (everything but a built-in server)."""
    return not isinstance(config, InternalServerConfig)


def _launched(config: McpServerConfig) -> dict[str, object]:
    if isinstance(config, StdioServerConfig):
        return {
            "type": config.type,
            "command": config.command,
            "args": list(config.args),
            "env": dict(sorted(config.env.items())),
            "cwd": config.cwd,
        }
    if isinstance(config, InternalServerConfig):
        return {"type": config.type, "tool": config.tool}
    launched: dict[str, object] = {
        "type": config.type,
        "url": config.url,
        "headers": dict(sorted(config.headers.items())),
    }
    if oauth := _oauth_destinations(config):
        launched["oauth"] = oauth  # only when set, so a server without them keeps its trust
    return launched


def _oauth_destinations(config: McpServerConfig) -> dict[str, str]:
    """Where a remote server's OAuth settings send the user's stored secrets, and as whom: a
    cloned folder that changes them must be trusted again (the secrets are kept per server URL)."""
    settings = config.oauth_settings if isinstance(config, StreamableHttpServerConfig) else None
    if settings is None:
        return {}
    chosen = {
        "grant": settings.grant if settings.grant != "authorization-code" else None,
        "clientId": settings.client_id,
        "clientMetadataUrl": settings.client_metadata_url,
        "issuer": settings.issuer,
        "idpTokenEndpoint": settings.idp_token_endpoint,
        "idpClientId": settings.idp_client_id,
    }
    return {key: value for key, value in chosen.items() if value is not None}


def fingerprint(config: McpServerConfig) -> str:
    """A digest of exactly what ``config`` launches, as written."""
    data = json.dumps(_launched(config), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _visible(text: str) -> str:
    """``text`` with control and formatting characters (escape sequences, right-to-left marks)
    written as escapes, so what is shown is what runs."""
    return "".join(
        char.encode("unicode_escape").decode("ascii") if unicodedata.category(char) in ("Cc", "Cf") else char
        for char in text
    )


def _env_value(name: str, value: str) -> str:
    if value.startswith(_REFERENCE_PREFIXES) or not any(p in name.upper() for p in _SECRET_NAME_PARTS):
        return value
    return f"<a literal secret, {len(value)} characters>"


def launch_text(config: McpServerConfig) -> str:
    """Exactly what ``config`` launches, for the user to judge: the command line (then its
    environment and folder, one line each), or the URL it connects to."""
    if isinstance(config, StdioServerConfig):
        lines = [shlex.join([config.command, *config.args])]
        if config.env:
            lines.append(
                "environment: "
                + " ".join(f"{k}={shlex.quote(_env_value(k, v))}" for k, v in config.env.items())
            )
        if config.cwd:
            lines.append(f"in folder: {config.cwd}")
        return "\n".join(_visible(line) for line in lines)  # the line breaks between them are ours
    if isinstance(config, InternalServerConfig):
        return f"built in: {config.tool}"
    oauth = _oauth_destinations(config)
    lines = [
        f"connects to {config.url}",
        *([f"headers: {', '.join(config.headers)}"] if config.headers else []),
        *([f"OAuth: {', '.join(f'{k} {v}' for k, v in oauth.items())}"] if oauth else []),
    ]
    return "\n".join(_visible(line) for line in lines)


def trust_command(agent_root: Path, server: str | None = None) -> str:
    """The command that trusts ``server`` (every server when None) of the agent at ``agent_root``."""
    words = ["contextdesk", "agent", "trust", str(agent_root)] + ([server] if server else [])
    return _visible(shlex.join(words))


@dataclass(frozen=True)
class UntrustedServer:
    """A server that will not start until the user trusts it."""

    name: str
    config: McpServerConfig
    launch: str  # launch_text(config)


class ServerTrust:
    """The trust file (default: ``trusted-servers.json`` in the config folder in force at each call)."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path

    @property
    def path(self) -> Path:
        return self._path or user_dirs().config / TRUST_FILE

    def is_trusted(self, agent_root: Path, name: str, config: McpServerConfig) -> bool:
        if not needs_trust(config):
            return True
        return self._read().agents.get(_key(agent_root), {}).get(name) == fingerprint(config)

    def untrusted(self, agent_root: Path, servers: Mapping[str, McpServerConfig]) -> list[UntrustedServer]:
        """The enabled servers of ``servers`` that need trust and lack it (a disabled one never starts)."""
        trusted = self._read().agents.get(_key(agent_root), {})
        return [
            UntrustedServer(name, config, launch_text(config))
            for name, config in servers.items()
            if config.enabled and needs_trust(config) and trusted.get(name) != fingerprint(config)
        ]

    def trust(self, agent_root: Path, servers: Mapping[str, McpServerConfig]) -> None:
        """Record ``servers`` of the agent at ``agent_root`` as trusted, as they are now.

        Raises:
            AtomicWriteError: the trust file could not be written (nothing is trusted then).
        """
        key = _key(agent_root)
        with _LOCK:
            data = self._read()
            entries = data.agents.pop(key, {})  # re-added last: the most recently trusted
            entries.update({name: fingerprint(c) for name, c in servers.items() if needs_trust(c)})
            data.agents[key] = entries
            _forget_oldest(data.agents)
            atomic_write_text(self.path, data.model_dump_json(indent=1) + "\n")

    def _read(self) -> _TrustFile:
        path = self.path
        if not path.is_file():
            return _TrustFile()
        try:
            return _TrustFile.model_validate_json(read_bytes(path))
        except (FileRefused, ValidationError) as error:
            logger.warning(
                "%s cannot be used, so no server is trusted until trust is recorded: %s", path, error
            )
            return _TrustFile()


@dataclass(frozen=True)
class TrustGate:
    """What an agent's server manager asks before it starts a server of ``agent_root``."""

    agent_root: Path
    store: ServerTrust = field(default_factory=ServerTrust)

    def allows(self, name: str, config: McpServerConfig) -> bool:
        return self.store.is_trusted(self.agent_root, name, config)

    def untrusted(self, servers: Mapping[str, McpServerConfig]) -> list[UntrustedServer]:
        return self.store.untrusted(self.agent_root, servers)

    def trust(self, servers: Mapping[str, McpServerConfig]) -> None:
        """Raises: AtomicWriteError: the trust file could not be written."""
        self.store.trust(self.agent_root, servers)

    def held_reason(self, name: str) -> str:
        show = _visible(shlex.join(["contextdesk", "agent", "show", str(self.agent_root)]))
        return (
            "not started: this agent's folder names it, and you have not trusted what it runs yet. "
            f"Fix: check its command line (`{show}` lists it), then run "
            f"`{trust_command(self.agent_root, name)}`, or choose Trust and start in the desktop app"
        )


def _key(agent_root: Path) -> str:
    return str(agent_root.expanduser().resolve())


def _forget_oldest(agents: dict[str, dict[str, str]]) -> None:
    total = sum(len(entries) for entries in agents.values())
    for key in list(agents)[:-1]:
        if total <= MAX_TRUSTED_SERVERS:
            return
        total -= len(agents.pop(key))
