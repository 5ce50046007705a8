"""Write tools.json: the tools of the routing benchmark, as the real servers list them.

    .venv/bin/python benchmarks/routing/dump_tools.py   # needs node and tests/node_modules

The default agent's built-in servers (workspace, references, memory), the npm filesystem and
everything servers the tests run, and one workflow with required inputs (as its tool is built).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from agent_core.agent.schema import InternalServerConfig, McpServerConfig, StdioServerConfig
from agent_core.mcp.manager import McpManager

HERE = Path(__file__).resolve().parent
NODE_MODULES = HERE.parents[1] / "tests" / "node_modules" / "@modelcontextprotocol"

#: The workflow tool of the issue's failure, as ``agent_core.workflows.tools`` builds it.
RELEASE_NOTES = {
    "server": "workflows",
    "name": "release-notes",
    "description": "Run the workflow 'release-notes': Write release notes for a version from notes",
    "inputSchema": {
        "type": "object",
        "properties": {"topic": {"type": "string"}, "notes": {"type": "string"}},
        "required": ["topic", "notes"],
        "additionalProperties": False,
    },
}


def npm(package: str, *args: str) -> StdioServerConfig:
    entry = NODE_MODULES / package / "dist" / "index.js"
    return StdioServerConfig(type="stdio", command=shutil.which("node") or "node", args=[str(entry), *args])


async def dump(folder: Path) -> list[dict[str, Any]]:
    servers: dict[str, McpServerConfig] = {
        "workspace": InternalServerConfig(type="internal", tool="workspace", options={"root": str(folder)}),
        "references": InternalServerConfig(type="internal", tool="references"),
        "memory": InternalServerConfig(type="internal", tool="memory"),
        "filesystem": npm("server-filesystem", str(folder)),
        "everything": npm("server-everything"),
    }
    async with McpManager(servers) as manager:
        tools = [
            {
                "server": t.server,
                "name": t.name,
                "description": t.description,
                "inputSchema": dict(t.input_schema),
            }
            for t in manager.tools()
        ]
    return [*tools, RELEASE_NOTES]


def main() -> int:
    with tempfile.TemporaryDirectory() as folder:
        tools = asyncio.run(dump(Path(folder)))
    (HERE / "tools.json").write_text(json.dumps(tools, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(tools)} tools: " + ", ".join(f"{t['server']}.{t['name']}" for t in tools))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
