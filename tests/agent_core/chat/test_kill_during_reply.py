"""A process killed while a reply streams leaves a consistent chat: the message and the partial reply."""

from __future__ import annotations

import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

from agent_core.agent.scaffold import create_agent
from agent_core.store.chats import ChatStore

CHILD = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from agent_core.agent import load_agent
    from agent_core.chat.services import ChatServices
    from agent_core.chat.session import ChatSession
    from agent_core.chat import reply_loop
    from agent_core.providers.scripted import ScriptedProvider
    from agent_core.store.chats import ChatStore

    reply_loop.SAVE_PARTIAL_EVERY_SECONDS = 0.0  # save on every delta, so the parent sees it
    agent_dir, db = Path(sys.argv[1]), Path(sys.argv[2])
    provider = ScriptedProvider()
    never = asyncio.Event()
    provider.enqueue_reply(chunks=["The answer ", "is forty", never])

    async def main():
        session = ChatSession.create(load_agent(agent_dir), ChatStore(db), ChatServices(resolve_provider=lambda m: (provider, "x")))
        received = ""
        async for event in session.send("What is the answer?"):
            received += getattr(event, "text", "") if event.type == "reply_delta" else ""
            if received == "The answer is forty":
                print("saved", flush=True)  # deltas are saved before they are yielded

    asyncio.run(main())
    """
)


def wait_for_line(child: subprocess.Popen[str], expected: str, timeout: float = 60.0) -> None:
    assert child.stdout is not None
    ready, _, _ = select.select([child.stdout], [], [], timeout)
    assert ready, f"the child said nothing within {timeout} s"
    assert child.stdout.readline().strip() == expected


def test_killing_the_process_mid_reply_keeps_the_message_and_the_partial_reply(tmp_path: Path) -> None:
    agent_dir = tmp_path / "agent"
    create_agent(agent_dir)
    db = tmp_path / "chats.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(agent_dir), str(db)], stdout=subprocess.PIPE, text=True
    )
    try:
        wait_for_line(child, "saved")
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
    store = ChatStore(db)
    assert store.recover_interrupted() == 1
    [session] = store.sessions()
    user, reply = store.messages(session.id)
    assert (user.role, user.content, user.status) == ("user", "What is the answer?", "complete")
    assert (reply.content, reply.status) == ("The answer is forty", "partial")
    assert reply.request_context is not None and reply.request_context.items
