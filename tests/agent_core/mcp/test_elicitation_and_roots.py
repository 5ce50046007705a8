"""Elicitation and roots against the reference server-everything, which offers its
`trigger-elicitation-request`, `trigger-url-elicitation` and `get-roots-list` tools only to a client
that declares those capabilities."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agent_core.mcp import McpManager, ServerState
from agent_core.mcp.elicitation import ElicitationAnswer, ElicitationRequest, FormElicitation, UrlElicitation
from tests.support.mcp_servers import npm_server

pytestmark = pytest.mark.anyio


class Recorder:
    """An elicitation handler that answers with a queued answer and keeps what it was asked."""

    def __init__(self, *answers: ElicitationAnswer) -> None:
        self.answers = list(answers)
        self.asked: list[ElicitationRequest] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.asked.append(request)
        return self.answers.pop(0)


async def test_a_form_elicitation_is_shown_as_typed_fields_and_the_accepted_values_reach_the_server(
    node_modules: Path,
) -> None:
    handler = Recorder(ElicitationAnswer("accept", {"name": "Ada Lovelace", "check": True, "integer": 7}))
    config = npm_server(node_modules, "server-everything", "stdio")
    async with McpManager({"everything": config}, elicitation=handler) as manager:
        assert manager.status("everything").state is ServerState.READY
        names = {t.name for t in manager.tools()}
        assert {"trigger-elicitation-request", "trigger-url-elicitation", "get-roots-list"} <= names
        result = await manager.call_tool("everything", "trigger-elicitation-request", {})
    assert not result.is_error, result.text
    assert "- Name: Ada Lovelace" in result.text and "- Favorite Integer: 7" in result.text
    [form] = handler.asked
    assert isinstance(form, FormElicitation) and form.server == "everything"
    fields = {f.name: f for f in form.fields}
    assert fields["name"].required and fields["name"].kind == "string"
    assert fields["check"].kind == "boolean"
    assert (fields["integer"].kind, fields["integer"].minimum, fields["integer"].maximum) == (
        "integer",
        1,
        100,
    )
    assert fields["email"].format == "email"
    hero = fields["titledSingleSelectEnum"]
    assert hero.kind == "choice" and hero.choices[0].label == "Superman" and hero.default == "hero-1"
    assert fields["legacyTitledEnum"].choices[1].label == "Dogs"
    assert fields["untitledMultipleSelectEnum"].kind == "multi_choice"
    assert fields["untitledMultipleSelectEnum"].max_items == 3


@pytest.mark.parametrize(("action", "said"), [("decline", "declined"), ("cancel", "cancelled")])
async def test_declining_or_cancelling_a_form_tells_the_server_so(
    node_modules: Path, action: str, said: str
) -> None:
    handler = Recorder(ElicitationAnswer(action))  # type: ignore[arg-type]
    config = npm_server(node_modules, "server-everything", "stdio")
    async with McpManager({"everything": config}, elicitation=handler) as manager:
        result = await manager.call_tool("everything", "trigger-elicitation-request", {})
    assert f"User {said}" in result.text


async def test_without_a_handler_every_elicitation_is_declined_and_the_log_says_why(
    node_modules: Path,
) -> None:
    config = npm_server(node_modules, "server-everything", "stdio")
    async with McpManager({"everything": config}) as manager:
        result = await manager.call_tool("everything", "trigger-elicitation-request", {})
        log = manager.status("everything").log_tail
    assert "User declined" in result.text
    assert any("nothing here can ask the user" in line for line in log)


async def test_a_url_elicitation_is_offered_to_the_user_and_nothing_is_opened_by_the_core(
    node_modules: Path,
) -> None:
    handler = Recorder(ElicitationAnswer("decline"))
    config = npm_server(node_modules, "server-everything", "stdio")
    async with McpManager({"everything": config}, elicitation=handler) as manager:
        result = await manager.call_tool(
            "everything",
            "trigger-url-elicitation",
            {"url": "https://example.com/sign-in", "message": "Sign in"},
        )
    [asked] = handler.asked
    assert isinstance(asked, UrlElicitation)
    assert (asked.url, asked.message) == ("https://example.com/sign-in", "Sign in")
    assert "declined to open the URL" in result.text


async def test_get_roots_list_returns_the_agent_workspace_folder_and_follows_a_change(
    node_modules: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    config = npm_server(node_modules, "server-everything", "stdio")
    async with McpManager({"everything": config}, roots=[first]) as manager:
        result = await manager.call_tool("everything", "get-roots-list", {})
        assert "(1 total)" in result.text and first.resolve().as_uri() in result.text

        await manager.set_roots([second])
        # Told, the server asks for the list again on its own time: each try is a round trip, bounded.
        async with asyncio.timeout(10):
            while second.resolve().as_uri() not in result.text:
                result = await manager.call_tool("everything", "get-roots-list", {})
    assert first.resolve().as_uri() not in result.text


async def test_a_server_roots_list_replaces_the_agent_folders(node_modules: Path, tmp_path: Path) -> None:
    config = npm_server(node_modules, "server-everything", "stdio", roots=[str(tmp_path)])
    async with McpManager({"everything": config}, roots=[Path("/elsewhere")]) as manager:
        result = await manager.call_tool("everything", "get-roots-list", {})
        await manager.set_roots([Path("/another")])  # the server's own list stays
        again = await manager.call_tool("everything", "get-roots-list", {})
    assert tmp_path.resolve().as_uri() in result.text and "elsewhere" not in result.text
    assert tmp_path.resolve().as_uri() in again.text
