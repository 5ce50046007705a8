"""Roots: the folders a server is told it may work in (``roots/list``), as file:// URIs.

By default a server's roots are the agent's workspace folder(s), the ``root`` of each built-in
workspace server; a server's own ``roots`` list in agent.yaml replaces them (``roots: []`` gives it
none). Only folders the user configured are ever sent: an agent without a workspace folder and
without a ``roots`` list has no roots.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agent_core.agent.schema import AgentConfig, InternalServerConfig, McpServerConfig

__all__ = ["agent_roots", "root_uri", "server_roots"]


def agent_roots(config: AgentConfig) -> tuple[Path, ...]:
    """The agent's workspace folders (the built-in workspace servers' ``root``), in file order."""
    roots: list[Path] = []
    for server in config.mcp_servers.values():
        if isinstance(server, InternalServerConfig) and server.tool == "workspace" and server.enabled:
            root = server.options.get("root")
            if isinstance(root, str) and root.strip():
                path = Path(root).expanduser()
                if path not in roots:
                    roots.append(path)
    return tuple(roots)


def server_roots(config: McpServerConfig, agent_default: Sequence[Path]) -> tuple[Path, ...]:
    """What one server is told: its own ``roots`` when set, else the agent's."""
    if config.roots is not None:
        return tuple(Path(root).expanduser() for root in config.roots)
    return tuple(agent_default)


def root_uri(path: Path) -> str:
    """``path`` as the file:// URI a server sees (absolute, symlinks resolved)."""
    return path.expanduser().resolve().as_uri()
