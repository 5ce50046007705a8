"""A request that cannot fit tells the desktop's user what to do where they are: in the window."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent_core.agent import load_agent
from agent_core.chat.events import ReplyFinished
from agent_core.tools.runtime import NoTools
from desktop.controllers.workspace_host import desktop_workspace
from tests.support.cli_runs import scripted_agent, with_always_skill


def test_the_desktops_advice_for_an_always_on_skill_names_the_context_panel(tmp_path: Path) -> None:
    agent = load_agent(with_always_skill(scripted_agent(tmp_path, []), "lamp-care", 3_000))

    async def reply_error() -> str:
        workspace = desktop_workspace(agent, NoTools())
        try:
            events = [event async for event in workspace.new_chat().send("hello")]
        finally:
            await workspace.aclose()
        finished = events[-1]
        assert isinstance(finished, ReplyFinished) and finished.message.status == "error"
        return finished.message.error or ""

    error = asyncio.run(reply_error())
    assert "The largest part is the chat's skills ('lamp-care'" in error
    assert "remove skill 'lamp-care' from the chat in the Context panel's Skills section" in error
    assert "set its Included to Agent" in error and "contextdesk" not in error
