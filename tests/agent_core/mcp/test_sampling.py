"""MCP sampling: server-everything's trigger-sampling-request answered by the chat's model through
the chat loop, after the user's approval, within the server's caps, and recorded."""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from agent_core.agent import load_agent
from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    ReplyFinished,
    SamplingAnswered,
    ToolCallFinished,
    TurnSaved,
)
from agent_core.chat.sampling_answers import choose_model
from agent_core.context.items import SamplingRecord, TokenUsage
from agent_core.providers.base import Provider
from agent_core.providers.pool import ProviderPool
from agent_core.providers.scripted import ScriptedProvider
from agent_core.sampling_router import (
    SamplingAnswer,
    SamplingLimits,
    SamplingRefusedError,
    SamplingRequest,
    SamplingRouter,
)
from agent_core.store.chats import ChatStore
from agent_core.workspace import Workspace
from tests.support.server_trust import trust_servers

pytestmark = pytest.mark.anyio

TOOL = "everything__trigger-sampling-request"


class ScriptedPool(ProviderPool):
    def __init__(self, provider: Provider) -> None:
        self.provider = provider

    def resolve(self, model_ref: str) -> tuple[Provider, str]:
        return self.provider, model_ref.partition(":")[2]

    async def aclose(self) -> None:
        return None


def everything_agent(tmp_path: Path, node_modules: Path, **sampling: object) -> Path:
    """An agent with server-everything, its tools allowed without asking (only sampling asks)."""
    root = tmp_path / "agent"
    create_agent(root)
    entry = node_modules / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    settings = "".join(f"    {key}: {value}\n" for key, value in sampling.items())
    config = (root / "agent.yaml").read_text().split("mcpServers:")[0] + (
        "mcpServers:\n"
        "  everything:\n"
        f"    command: {shutil.which('node') or 'node'}\n"
        f"    args: [{entry}, stdio]\n"
        "    toolDefaults: {include: always, permissionRequired: false}\n" + settings
    )
    (root / "agent.yaml").write_text(config)
    return trust_servers(root)


async def chat(
    tmp_path: Path,
    agent_dir: Path,
    provider: ScriptedProvider,
    decisions: Sequence[ApprovalDecision],
    texts: int = 1,
) -> list[ChatEvent]:
    agent = load_agent(agent_dir)
    workspace = Workspace(agent, store=ChatStore(tmp_path / "db.sqlite3"), providers=ScriptedPool(provider))
    answers = iter(decisions)
    events: list[ChatEvent] = []
    try:
        statuses = await workspace.start_tools()
        assert statuses[0].state == "ready", statuses[0].reason
        session = workspace.new_chat()
        for _ in range(texts):
            async for event in session.send("ask the server to sample"):
                events.append(event)
                if isinstance(event, ApprovalRequest):
                    event.decide(next(answers))
    finally:
        await workspace.aclose()
    assert next(answers, None) is None, "every planned decision was used"
    return events


def sample(provider: ScriptedProvider, prompt: str, max_tokens: int = 100, call_id: str = "s1") -> None:
    provider.enqueue_tool_call(TOOL, {"prompt": prompt, "maxTokens": max_tokens}, call_id)


def samplings(events: Sequence[ChatEvent]) -> list[SamplingRecord]:
    return [e.record for e in events if isinstance(e, SamplingAnswered)]


def tool_results(events: Sequence[ChatEvent]) -> list[ToolCallFinished]:
    return [e for e in events if isinstance(e, ToolCallFinished)]


async def test_the_sampling_tool_is_offered_only_to_a_client_that_declares_sampling(
    node_modules: Path,
) -> None:
    entry = node_modules / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    server = StdioServerParameters(command=shutil.which("node") or "node", args=[str(entry), "stdio"])
    async with Client(server, mode="legacy") as plain:
        assert "trigger-sampling-request" not in {t.name for t in (await plain.list_tools()).tools}
    router = SamplingRouter()
    from agent_core.mcp import McpManager
    from tests.support.mcp_servers import npm_server

    async with McpManager(
        {"everything": npm_server(node_modules, "server-everything", "stdio")}, sampling=router
    ) as manager:
        assert "trigger-sampling-request" in {t.name for t in manager.tools()}
        # Declared, but no chat is calling: nobody can approve, so the server gets an error.
        refused = await manager.call_tool("everything", "trigger-sampling-request", {"prompt": "hi"})
        assert refused.is_error and "no one to approve it" in refused.text


async def test_an_approved_request_is_answered_by_the_chat_model_and_recorded(
    tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    sample(provider, "name a colour")
    provider.enqueue_reply("Teal.", usage=TokenUsage(31, 2))  # the sampling request
    provider.enqueue_reply("The server got its answer.")
    events = await chat(
        tmp_path, everything_agent(tmp_path, node_modules), provider, [ApprovalDecision.ALLOW_ONCE]
    )

    asked = [e for e in events if isinstance(e, ApprovalRequest)]
    assert len(asked) == 1 and asked[0].sampling is not None
    assert asked[0].server == "everything" and asked[0].tool == "trigger-sampling-request"
    assert "name a colour" in asked[0].sampling.prompt
    sent = provider.requests[1]
    assert [m.role for m in sent.messages] == ["system", "user"]
    assert sent.messages[0].content == "You are a helpful test server."
    assert "name a colour" in sent.messages[1].content
    assert sent.settings.max_output_tokens == 100 and sent.settings.temperature == 0.7
    (result,) = tool_results(events)
    assert not result.record.is_error and "Teal." in result.record.result  # the server got the answer
    (record,) = samplings(events)
    assert record.outcome == "answered" and record.approval == "allowed_once"
    assert record.answer == "Teal." and record.usage == TokenUsage(31, 2)
    assert record.server == "everything" and record.call_id == "s1"
    assert record.system_prompt == "You are a helpful test server." and "name a colour" in record.prompt
    # Stored with the turn whose tool call caused it, beside (not inside) that turn's own usage.
    turn = next(e.message for e in events if isinstance(e, TurnSaved))
    assert turn.request_context is not None and turn.request_context.samplings == (record,)
    store = ChatStore(tmp_path / "db.sqlite3")
    saved = next(m for m in store.messages(turn.session_id) if m.id == turn.id)
    assert saved.request_context is not None and saved.request_context.samplings == (record,)
    assert isinstance(events[-1], ReplyFinished) and events[-1].message.status == "complete"


async def test_a_denied_request_reaches_the_server_as_an_error(tmp_path: Path, node_modules: Path) -> None:
    provider = ScriptedProvider()
    sample(provider, "secret plans")
    provider.enqueue_reply("The server was refused.")
    events = await chat(tmp_path, everything_agent(tmp_path, node_modules), provider, [ApprovalDecision.DENY])
    (result,) = tool_results(events)
    assert result.record.is_error and "denied the sampling request" in result.record.result
    (record,) = samplings(events)
    assert record.outcome == "denied" and record.approval == "denied" and not record.answer
    assert len(provider.requests) == 2  # the model was never asked for the server


async def test_sampling_deny_in_the_agent_file_refuses_without_asking(
    tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    sample(provider, "anything")
    provider.enqueue_reply("Refused.")
    events = await chat(tmp_path, everything_agent(tmp_path, node_modules, sampling="deny"), provider, [])
    (result,) = tool_results(events)
    assert result.record.is_error and "sampling: deny" in result.record.result
    assert samplings(events)[0].approval == "denied_by_setting"


async def test_always_for_this_server_stops_asking_for_the_rest_of_the_chat(
    tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    sample(provider, "first", call_id="s1")
    provider.enqueue_reply("One.")
    provider.enqueue_reply("Done once.")
    sample(provider, "second", call_id="s2")
    provider.enqueue_reply("Two.")
    provider.enqueue_reply("Done twice.")
    events = await chat(
        tmp_path,
        everything_agent(tmp_path, node_modules),
        provider,
        [ApprovalDecision.ALLOW_FOR_CHAT],
        texts=2,
    )
    assert [r.approval for r in samplings(events)] == ["allowed_for_server", "allowed_for_server"]
    assert [r.answer for r in samplings(events)] == ["One.", "Two."]


async def test_tokens_are_capped_per_request_and_per_minute(tmp_path: Path, node_modules: Path) -> None:
    provider = ScriptedProvider()
    sample(provider, "long story", max_tokens=5000, call_id="s1")
    provider.enqueue_reply("Short.")  # reports no usage: the granted 20 count against the minute
    provider.enqueue_reply("Next.")
    sample(provider, "another", max_tokens=5000, call_id="s2")
    provider.enqueue_reply("Over the minute's cap.")
    agent_dir = everything_agent(
        tmp_path, node_modules, sampling="allow", samplingMaxTokens=20, samplingTokensPerMinute=30
    )
    events = await chat(tmp_path, agent_dir, provider, [], texts=2)
    assert provider.requests[1].settings.max_output_tokens == 20
    first, second = samplings(events)
    assert first.max_tokens == 20 and first.approval == "allowed_by_setting" and first.outcome == "answered"
    assert second.outcome == "refused" and "samplingTokensPerMinute" in second.note
    results = tool_results(events)
    assert not results[0].record.is_error
    assert results[1].record.is_error and "samplingTokensPerMinute" in results[1].record.result
    assert provider.pending_steps == 0


async def test_the_router_refuses_without_a_handler_and_over_the_minute() -> None:
    now = [0.0]
    router = SamplingRouter(clock=lambda: now[0])
    request = SamplingRequest("srv", (), max_tokens=50)
    limits = SamplingLimits(max_tokens=40, tokens_per_minute=100)
    with pytest.raises(SamplingRefusedError, match="no one to approve"):
        await router.answer(request, limits)

    granted: list[int] = []

    async def answer(asked: SamplingRequest) -> SamplingAnswer:
        if asked.refused:
            raise SamplingRefusedError(asked.refused)
        granted.append(asked.max_tokens)
        return SamplingAnswer("ok", "m:x")

    with router.handling("srv", answer):
        await router.answer(request, limits)
        await router.answer(request, limits)
        with pytest.raises(SamplingRefusedError, match="80 of its 100 per minute"):
            await router.answer(request, limits)
        now[0] = 61.0  # a minute later the window is free again
        await router.answer(request, limits)
    assert granted == [40, 40, 40]


def test_the_servers_model_hints_pick_one_of_the_agents_models() -> None:
    assert choose_model(("claude",), None, "local:small", ("anthropic:claude-x",)) == (
        "anthropic:claude-x",
        "the server's model hint 'claude'",
    )
    assert choose_model(("gpt-9",), None, "local:small", ("anthropic:claude-x",)) == ("local:small", "")
    assert choose_model(("claude",), "openai:gpt", "local:small", ())[0] == "openai:gpt"


def scripted_everything_agent(tmp_path: Path, node_modules: Path, steps: list[dict[str, object]]) -> Path:
    """server-everything, and a scripted chat model playing ``steps``."""
    import json

    root = everything_agent(tmp_path, node_modules)
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"steps": steps}))
    config = (root / "agent.yaml").read_text()
    config = config.replace("model: local:smollm2-135m-instruct", "model: scripted:demo")
    config = config.replace(
        "providers:\n  local: {}", f"providers:\n  scripted:\n    options:\n      script: {script}"
    )
    (root / "agent.yaml").write_text(config)
    return trust_servers(root)


def test_mcp_call_with_yes_answers_sampling_with_the_agents_model(
    tmp_path: Path, node_modules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main

    agent = scripted_everything_agent(tmp_path, node_modules, [{"reply": "Scripted answer."}])
    code = main(
        [
            "mcp",
            "call",
            str(agent),
            "everything",
            "trigger-sampling-request",
            "--args",
            '{"prompt": "hi"}',
            "--yes",
        ]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Scripted answer." in out and '"model": "scripted:demo"' in out
    assert "[sampling for everything.trigger-sampling-request answered by scripted:demo" in err


def test_mcp_call_asks_at_the_terminal_and_a_no_reaches_the_server(
    tmp_path: Path, node_modules: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_core.cli.main import main

    questions: list[str] = []

    def answer(question: str) -> str:
        questions.append(question)
        return "d"

    monkeypatch.setattr("builtins.input", answer)
    agent = scripted_everything_agent(tmp_path, node_modules, [])
    code = main(
        ["mcp", "call", str(agent), "everything", "trigger-sampling-request", "--args", '{"prompt": "hi"}']
    )
    _, err = capsys.readouterr()
    assert code == 1
    assert "MCP server 'everything'" in err and "Resource trigger-sampling-request context: hi" in err
    assert questions == ["Send it to the model? [o]nce / [a]lways for this server / [d]eny: "]
    assert "denied the sampling request" in err


def test_chat_with_yes_approves_sampling(
    tmp_path: Path, node_modules: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_core.cli.main import main

    steps: list[dict[str, object]] = [
        {"tool_calls": [{"name": TOOL, "arguments": {"prompt": "a haiku"}, "id": "c1"}]},
        {"reply": "Leaves fall."},
        {"reply": "The server has its haiku."},
    ]
    agent = scripted_everything_agent(tmp_path, node_modules, steps)
    code = main(["chat", "--agent", str(agent), "--yes", "sample please"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Leaves fall." in out and out.rstrip().endswith("The server has its haiku.")
    assert "[sampling for everything.trigger-sampling-request answered by scripted:demo" in err


def test_a_reply_saved_before_sampling_existed_still_opens(tmp_path: Path) -> None:
    import json

    from pydantic import TypeAdapter

    from agent_core.context.items import RequestContext, SelectionRun

    adapter = TypeAdapter(RequestContext)
    saved = json.loads(adapter.dump_json(RequestContext((), "local:x", SelectionRun(20, 5, 0.7))))
    del saved["samplings"]  # as stored by the versions before it
    assert adapter.validate_json(json.dumps(saved)).samplings == ()


async def test_stopping_the_reply_while_a_sampling_approval_waits_refuses_it(
    tmp_path: Path, node_modules: Path
) -> None:
    provider = ScriptedProvider()
    sample(provider, "never answered")
    agent = load_agent(everything_agent(tmp_path, node_modules))
    workspace = Workspace(agent, store=ChatStore(tmp_path / "db.sqlite3"), providers=ScriptedPool(provider))
    asked: list[ApprovalRequest] = []
    try:
        await workspace.start_tools()
        session = workspace.new_chat()
        replies = session.send("sample")
        async for event in replies:
            if isinstance(event, ApprovalRequest):
                asked.append(event)
                break
        await replies.aclose()  # the user stopped the reply
    finally:
        await workspace.aclose()
    assert len(asked) == 1 and asked[0].decided
    assert await asked[0].wait() is ApprovalDecision.DENY


@pytest.mark.slow
async def test_the_bundled_offline_model_answers_a_sampling_request_recorded_in_the_request_context(
    tmp_path: Path, node_modules: Path
) -> None:
    from tests.support.models import runnable_offline_model

    runnable_offline_model()
    steps: list[dict[str, object]] = [
        {"tool_calls": [{"name": TOOL, "arguments": {"prompt": "Say hello.", "maxTokens": 16}, "id": "c1"}]},
        {"reply": "Done."},
    ]
    agent_dir = scripted_everything_agent(tmp_path, node_modules, steps)
    config = agent_dir / "agent.yaml"
    config.write_text(config.read_text() + "    samplingModel: local:smollm2-135m-instruct\n")
    workspace = Workspace(load_agent(agent_dir), store=ChatStore(tmp_path / "db.sqlite3"))
    events: list[ChatEvent] = []
    try:
        await workspace.start_tools()
        async for event in workspace.new_chat().send("let the server sample"):
            events.append(event)
            if isinstance(event, ApprovalRequest):
                event.decide(ApprovalDecision.ALLOW_ONCE)
    finally:
        await workspace.aclose()
    (record,) = samplings(events)
    assert record.outcome == "answered", record.note
    assert record.model == "local:smollm2-135m-instruct" and record.note == "the server's samplingModel"
    assert record.answer.strip() and (record.usage.output_tokens or 0) <= 16
    (result,) = tool_results(events)
    assert not result.record.is_error and '"model": "local:smollm2-135m-instruct"' in result.record.result
    turn = next(e.message for e in events if isinstance(e, TurnSaved))
    assert turn.request_context is not None and turn.request_context.samplings == (record,)


async def test_sampling_is_answered_over_streamable_http_too(node_modules: Path) -> None:
    from agent_core.agent.schema import StreamableHttpServerConfig
    from agent_core.mcp import McpManager
    from tests.support.mcp_servers import free_port, start_http_server, stop_process

    entry = str(node_modules / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js")
    port = free_port()
    process = start_http_server(["node", entry, "streamableHttp"], port, {"PORT": str(port)})
    router = SamplingRouter()
    asked: list[SamplingRequest] = []

    async def answer(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        return SamplingAnswer("over http", "scripted:x")

    try:
        config = StreamableHttpServerConfig(type="streamable-http", url=f"http://127.0.0.1:{port}/mcp")
        async with McpManager({"http": config}, sampling=router) as manager:
            assert "trigger-sampling-request" in {t.name for t in manager.tools()}
            with router.handling("http", answer):
                result = await manager.call_tool("http", "trigger-sampling-request", {"prompt": "hi"})
    finally:
        stop_process(process)
    assert not result.is_error and "over http" in result.text
    assert [r.server for r in asked] == ["http"] and "hi" in asked[0].prompt


async def test_an_oversized_request_is_refused_before_anyone_is_asked() -> None:
    import mcp_types

    from agent_core.mcp._sampling import MAX_CHARACTERS, SamplingCallback

    router = SamplingRouter()
    asked: list[SamplingRequest] = []

    async def answer(request: SamplingRequest) -> SamplingAnswer:
        asked.append(request)
        return SamplingAnswer("no", "m:x")

    callback = SamplingCallback("srv", router, SamplingLimits(100, 1000))
    huge = mcp_types.CreateMessageRequestParams(
        messages=[
            mcp_types.SamplingMessage(
                role="user", content=mcp_types.TextContent(type="text", text="x" * (MAX_CHARACTERS + 1))
            )
        ],
        max_tokens=10,
    )
    with router.handling("srv", answer):
        refused = await callback(None, huge)  # type: ignore[arg-type]
    assert isinstance(refused, mcp_types.ErrorData) and "at most 200,000 characters" in refused.message
    assert asked == []
