"""Memory and time under hostile volumes (issue #12, "Measured"): a 50 MB reply to a chat that
allows 512 output tokens, an MCP server flooding 200 MB of stderr without a newline, and an MCP
server offering 10,000 tools (with a cold selection among them).

    .venv/bin/python benchmarks/reliability_memory.py [--section]

Each case runs ContextDesk's side in a fresh child process, so its peak RSS is the case's alone
(the fake provider and the MCP servers run in other processes). Goal: every peak under 500 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.docs_section import replace_section  # noqa: E402
from tests.support.fake_api import FakeApi, Reply  # noqa: E402

GOAL_MB = 500
FIXTURES = ROOT / "tests" / "fixtures" / "mcp"

PEAK = "import resource; peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024"

REPLY_CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from pathlib import Path
    from agent_core.agent import load_agent
    from agent_core.agent.scaffold import create_agent
    from agent_core.chat.events import ReplyFinished
    from agent_core.chat.services import ChatServices
    from agent_core.chat.session import ChatSession
    from agent_core.tools.runtime import NoTools
    from agent_core.providers.base import ProviderSettings
    from agent_core.providers.openai_compatible import OpenAICompatibleProvider
    from agent_core.store.chats import ChatStore

    url, home = sys.argv[1], Path(sys.argv[2])
    create_agent(home / "agent")
    store = ChatStore(home / "chats.sqlite3")
    before = store.path.stat().st_size
    provider = OpenAICompatibleProvider(ProviderSettings("lab", "openai-compatible", base_url=url, api_key="x"))
    session = ChatSession.create(load_agent(home / "agent"), store,
        ChatServices(resolve_provider=lambda model: (provider, "m"), tools=NoTools()))
    session.override_settings(chat={"max_output_tokens": 512})

    async def run():
        async for event in session.send("hello"):
            if isinstance(event, ReplyFinished):
                return event.message
    started = time.perf_counter()
    message = asyncio.run(run())
    seconds = time.perf_counter() - started
    store.close()
    grown = sum(p.stat().st_size for p in home.glob("chats.sqlite3*")) - before
    PEAK
    print(json.dumps({"peak_mb": peak, "seconds": seconds, "kept_chars": len(message.content),
                      "status": message.status, "db_growth_kb": grown / 1024}))
    """
).replace("PEAK", PEAK)

FLOOD_CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from agent_core.agent.schema import StdioServerConfig
    from agent_core.mcp import McpManager

    async def run():
        config = StdioServerConfig(command=sys.executable, args=[sys.argv[1], "--megabytes", "200"],
                                   start_timeout_seconds=300)
        async with McpManager({"flood": config}) as manager:
            result = await manager.call_tool("flood", "echo", {"text": "still here"})
            return manager.status("flood").state.value, result.text
    started = time.perf_counter()
    state, text = asyncio.run(run())
    PEAK
    print(json.dumps({"peak_mb": peak, "seconds": time.perf_counter() - started, "state": state, "echo": text}))
    """
).replace("PEAK", PEAK)

TOOLS_CHILD = textwrap.dedent(
    """
    import asyncio, json, sys, tempfile, time
    from pathlib import Path
    from agent_core.agent.schema import SelectionConfig, StdioServerConfig
    from agent_core.context.selection import ContextSelector, tool_candidate
    from agent_core.mcp import McpManager

    async def run():
        config = StdioServerConfig(command=sys.executable, args=[sys.argv[1], "--extra-tools", "10000"],
                                   start_timeout_seconds=300)
        async with McpManager({"many": config}) as manager:
            tools = manager.tools()
            candidates = [tool_candidate(t.server, t.name, t.description, dict(t.input_schema)) for t in tools]
            selector = ContextSelector(cache_dir=Path(tempfile.mkdtemp()) / "embeddings")
            started = time.perf_counter()
            outcome = await selector.select("create an issue about the failing build", candidates, SelectionConfig())
            cold = time.perf_counter() - started
            started = time.perf_counter()
            await selector.select("what time is it in Tokyo?", candidates, SelectionConfig())
            warm = time.perf_counter() - started
            selector.indexer.close()
            return len(tools), cold, warm, outcome.run.status
    count, cold, warm, status = asyncio.run(run())
    PEAK
    print(json.dumps({"peak_mb": peak, "tools": count, "cold_select_s": cold, "warm_select_s": warm, "status": status}))
    """
).replace("PEAK", PEAK)


def child(code: str, *args: str, home: str) -> dict[str, object]:
    env = {**os.environ, "CONTEXTDESK_HOME": home, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"case failed:\\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def fifty_megabyte_reply() -> list[bytes]:
    piece = "word " * 13_000  # 65 KB of content per event
    event = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
             "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]}  # fmt: skip
    data = f"data: {json.dumps(event)}\n\n".encode()
    return [data] * (50 * 1024 * 1024 // len(piece))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--section", action="store_true", help="write the figures into docs/benchmarks.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        api = FakeApi()
        api.queue(Reply(sse_events=fifty_megabyte_reply()))
        try:
            reply = child(REPLY_CHILD, f"{api.url}/v1", home, home=home)
        finally:
            api.close()
        flood = child(FLOOD_CHILD, str(FIXTURES / "stderr_flood.py"), home=home)
        tools = child(TOOLS_CHILD, str(FIXTURES / "demo_server.py"), home=home)

    rows = [
        ("50 MB reply, maxOutputTokens 512", "740 MB RSS, +150 MB database",
         f"{reply['peak_mb']:.0f} MB RSS, +{reply['db_growth_kb']:.0f} KB database; {reply['kept_chars']:,} characters kept ({reply['status']})"),
        ("200 MB of MCP stderr, no newline", "487 MB RSS",
         f"{flood['peak_mb']:.0f} MB RSS; server {flood['state']}, answers"),
        ("MCP server with 10,000 tools", "120 s cold select",
         f"{tools['peak_mb']:.0f} MB RSS; {tools['tools']:,} tools used; cold select {tools['cold_select_s']:.1f} s, next {tools['warm_select_s']:.2f} s"),
    ]  # fmt: skip
    lines = [
        "## Reliability under hostile volumes",
        "",
        "`benchmarks/reliability_memory.py`: ContextDesk's side of each case in a fresh process (peak RSS);",
        f'the goal is every peak under {GOAL_MB} MB (issue #12). "Before" is the issue\'s campaign.',
        "",
        "| case | before | now |",
        "|---|---|---|",
        *[f"| {case} | {before} | {now} |" for case, before, now in rows],
    ]
    print("\n".join(lines))
    if args.section:
        replace_section("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
