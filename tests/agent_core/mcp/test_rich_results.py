"""Rich tool results and tool annotations, against server-everything and an SDK-built server."""

from __future__ import annotations

import base64
import json
import struct
from pathlib import Path

import pytest

from agent_core.agent.schema import ToolDefaults, ToolSettings
from agent_core.chat.tool_calls import MAX_KEPT_STRUCTURED, with_rich_result
from agent_core.content_parts import MAX_KEPT_DATA, ContentPart, kept_parts, media_facts
from agent_core.mcp import McpManager, ServerState, ToolResult
from agent_core.mcp._structured import MAX_STRUCTURED_TEXT, structured_problem, structured_text
from agent_core.store.records import ToolCallRecord
from tests.support.mcp_servers import npm_server, rich

pytestmark = pytest.mark.anyio


async def test_server_everything_rich_results_arrive_as_values_a_front_end_can_show(
    node_modules: Path,
) -> None:
    async with McpManager({"everything": npm_server(node_modules, "server-everything", "stdio")}) as manager:
        assert manager.status("everything").state is ServerState.READY
        tools = {t.name: t for t in manager.tools()}
        assert tools["echo"].annotations.badges == ("read-only",)
        assert tools["gzip-file-as-resource"].annotations.badges == ("idempotent", "open-world")
        assert tools["get-structured-content"].output_schema is not None

        weather = await manager.call_tool("everything", "get-structured-content", {"location": "New York"})
        assert not weather.is_error and weather.structured_problem is None
        assert weather.structured is not None and {"temperature", "conditions", "humidity"} <= set(
            weather.structured
        )
        # The text part already is the JSON: the model does not read it twice.
        assert weather.text.count("temperature") == 1

        image = await manager.call_tool("everything", "get-tiny-image", {})
        [picture] = [p for p in image.content if p.type == "image"]
        assert picture.mime_type == "image/png" and picture.data
        assert media_facts(picture.data).width == media_facts(picture.data).height == 20
        assert "[image: PNG 20x20, " in image.text and picture.data[:50] not in image.text

        links = await manager.call_tool("everything", "get-resource-links", {"count": 2})
        found = [p for p in links.content if p.type == "resource_link"]
        assert [p.uri for p in found] == ["demo://resource/dynamic/blob/1", "demo://resource/dynamic/text/2"]
        assert found[0].text == "Blob Resource 1" and found[0].description

        annotated = await manager.call_tool(
            "everything", "get-annotated-message", {"messageType": "success", "includeImage": True}
        )
        assert [p.type for p in annotated.content] == ["text", "image"]
        assert "Operation completed successfully" in annotated.text


async def test_a_structured_result_that_breaks_its_schema_is_kept_and_says_why() -> None:
    async with McpManager({"rich": rich()}) as manager:
        result = await manager.call_tool("rich", "broken_weather", {})
        assert not result.is_error
        assert result.structured == {"temperature": "warm"}
        assert result.structured_problem is not None
        assert "at temperature" in result.structured_problem and "number" in result.structured_problem
        assert "structured content not valid" in result.text


async def test_a_destructive_tool_asks_even_when_the_server_default_allows() -> None:
    async with McpManager({"rich": rich(tool_defaults=ToolDefaults(permission_required=False))}) as manager:
        tools = {t.name: t for t in manager.tools()}
        assert tools["delete_note"].annotations.is_destructive
        assert tools["delete_note"].permission == "ask"
        assert tools["write_note"].permission == "allow"
        assert tools["read_note"].permission == "allow"


async def test_the_users_own_setting_for_a_destructive_tool_wins() -> None:
    config = rich(
        tool_defaults=ToolDefaults(permission_required=False),
        tools={"delete_note": ToolSettings(permission_required=False)},
    )
    async with McpManager({"rich": config}) as manager:
        assert {t.name: t.permission for t in manager.tools()}["delete_note"] == "allow"


async def test_read_only_tools_run_without_asking_only_when_the_user_opts_in() -> None:
    async with McpManager({"rich": rich()}) as manager:
        assert {t.name: t.permission for t in manager.tools()}["read_note"] == "ask"
    async with McpManager({"rich": rich(tool_defaults=ToolDefaults(allow_read_only=True))}) as manager:
        permissions = {t.name: t.permission for t in manager.tools()}
        assert permissions["read_note"] == "allow"
        assert permissions["write_note"] == permissions["delete_note"] == "ask"


def test_a_missing_or_bad_schema_is_a_problem_not_a_crash() -> None:
    schema = {"type": "object"}
    assert structured_problem(schema, None, is_error=False) is not None
    assert structured_problem(schema, None, is_error=True) is None
    assert "not valid JSON Schema" in (structured_problem({"type": 12}, {}, is_error=False) or "")
    assert structured_problem(None, {"x": 1}, is_error=False) is None


def test_a_huge_structured_result_is_cut_for_the_model() -> None:
    value = {"rows": ["x" * 100] * 1000}
    text = structured_text(value, "")
    assert len(text) < MAX_STRUCTURED_TEXT + 100 and "[cut:" in text


def test_media_facts_read_headers_and_survive_lies() -> None:
    png = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 640, 480) + b"\0" * 5
    facts = media_facts(base64.b64encode(png).decode())
    assert (facts.width, facts.height) == (640, 480)
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 16000, 2, 16)
    wav = b"RIFF" + struct.pack("<I", 0) + b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt
    wav += b"data" + struct.pack("<I", 32000) + b"\0" * 32000
    assert media_facts(base64.b64encode(wav).decode()).seconds == pytest.approx(2.0)
    truncated = base64.b64encode(png[:20]).decode()
    assert media_facts(truncated).width is None
    assert media_facts("not base64 at all!").width is None


def test_a_chat_keeps_rich_parts_within_bounds() -> None:
    big = ContentPart("image", mime_type="image/png", data="A" * (MAX_KEPT_DATA + 4))
    kept = kept_parts(
        (ContentPart("text", text="hi"), big, *[ContentPart("resource_link", uri="x://y")] * 40)
    )
    assert kept[0].data is None and kept[0].dropped_size
    assert len(kept) == 16 and all(p.type != "text" for p in kept)

    huge = {"rows": ["x" * 1000] * (MAX_KEPT_STRUCTURED // 1000 + 10)}
    outcome = ToolResult("s", "t", "text", False, 0.1, structured=huge)
    record = with_rich_result(ToolCallRecord(id="1", server="s", tool="t", arguments={}), outcome)
    assert record.structured is None and "too big" in (record.structured_problem or "")
    small = ToolResult("s", "t", "text", False, 0.1, structured={"a": 1})
    assert with_rich_result(record, small).structured == {"a": 1}
    assert json.loads(json.dumps(record.structured_problem))


async def test_a_slow_schema_check_leaves_the_result_unchecked_and_patterns_are_never_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_core.mcp import _structured

    monkeypatch.setattr(_structured, "SCHEMA_CHECK_SECONDS", 0.2)
    # uniqueItems compares every pair of objects: about two seconds for these.
    slow = {"type": "object", "properties": {"rows": {"type": "array", "uniqueItems": True}}}
    value = {"rows": [{"i": [i]} for i in range(1000)]}
    problem = await _structured.checked_problem(slow, value, is_error=False)
    assert problem is not None and "not checked" in problem

    # Catastrophic backtracking would hold the interpreter for years: the pattern is not run.
    evil = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}
    assert await _structured.checked_problem(evil, {"s": "a" * 60 + "!"}, is_error=False) is None
    assert await _structured.checked_problem(evil, {"s": 3}, is_error=False) is not None


async def test_the_approval_of_a_destructive_tool_says_so_before_the_user_answers(tmp_path: Path) -> None:
    from agent_core.agent import load_agent
    from agent_core.agent.scaffold import create_agent
    from agent_core.chat.events import ApprovalDecision, ApprovalRequest
    from agent_core.chat.services import ChatServices
    from agent_core.chat.session import ChatSession
    from agent_core.providers.scripted import ScriptedProvider
    from agent_core.store.chats import ChatStore

    create_agent(tmp_path / "agent")
    agent = load_agent(tmp_path / "agent")
    provider = ScriptedProvider()
    provider.enqueue_tool_call("rich__delete_note", {"name": "todo"})
    provider.enqueue_tool_call("rich__write_note", {"name": "todo"})
    provider.enqueue_reply("Done.")
    from agent_core.agent.schema import IncludeMode

    always = ToolDefaults(include=IncludeMode.ALWAYS)  # in every request: no selection needed
    async with McpManager({"rich": rich(tool_defaults=always)}) as manager:
        session = ChatSession.create(
            agent,
            ChatStore(tmp_path / "chats.sqlite3"),
            ChatServices(resolve_provider=lambda model: (provider, "x"), tools=manager),
        )
        asked: list[ApprovalRequest] = []
        async for event in session.send("tidy my notes"):
            if isinstance(event, ApprovalRequest):
                asked.append(event)
                event.decide(ApprovalDecision.ALLOW_ONCE)
    assert [request.tool for request in asked] == ["delete_note", "write_note"]
    assert "destructive" in asked[0].caution
    assert asked[1].caution == ""  # no hint, no warning
