"""Sub-agents at run time, through real chats and the real store, with scripted providers (one per
model, so the parent's and each child's requests are told apart): isolation, tool scope, caps,
cancel, parallel children, output schemas and approvals."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.chat.events import (
    ApprovalDecision,
    ApprovalRequest,
    ChatEvent,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    ToolCallFinished,
)
from agent_core.providers.base import TokenUsage
from tests.support.scripted_models import WAIT
from tests.support.subagent_chats import Chat, delegations, finished, subagent_file, texts

CANARY = "CANARY-7f3a"


def test_an_isolated_child_gets_the_task_only_and_only_its_result_comes_back(
    make_chat: Callable[..., Chat],
) -> None:
    chat = make_chat(researcher=subagent_file("researcher"))
    chat.providers["parent"].enqueue_reply(f"Noted: the code word is {CANARY}.")
    chat.send(f"remember the code word {CANARY}")
    parent = chat.providers["parent"]
    parent.enqueue_tool_call("subagents__researcher", {"task": "Which file holds the launch date?"}, "call-1")
    chat.providers["researcher"].enqueue_reply("notes.md says Friday.")
    parent.enqueue_reply("The launch is on Friday.")
    events = chat.send("when is the launch? ask the researcher")

    [child_request] = chat.providers.requests("researcher")
    assert CANARY not in texts(child_request)
    assert "Which file holds the launch date?" in texts(child_request)
    assert child_request.messages[0].content.startswith("You answer from the files.")
    result = chat.providers.requests("parent")[-1].messages[-1]
    assert result.role == "tool" and result.content.startswith(
        "notes.md says Friday.\n[sub-agent researcher: finished"
    )
    [started] = [e for e in events if isinstance(e, SubagentStarted)]
    assert started.task == "Which file holds the launch date?" and started.context_mode == "isolated"
    [delegation] = delegations(events)
    assert delegation.child_session_id == started.child_session_id == chat.child_chats()[0]
    assert delegation.turns == 1 and delegation.stopped_by == "" and delegation.model == "scripted:researcher"
    child_messages = chat.store.messages(delegation.child_session_id)
    assert [m.role for m in child_messages] == ["user", "assistant"]
    stored = chat.store.session(delegation.child_session_id)
    assert stored is not None and stored.parent is not None and stored.parent.call_id == "call-1"
    # The child's tokens are beside the parent's, never inside them; the parent's are its own.
    assert delegation.usage.input_tokens and finished(events).message.request_context.usage.input_tokens  # type: ignore[union-attr]


def test_fork_hands_down_the_history_as_background_and_summary_says_when_there_is_none(
    make_chat: Callable[..., Chat],
) -> None:
    chat = make_chat(
        forked=subagent_file("forked", "context: fork\n"),
        summarised=subagent_file("summarised", "context: summary\n"),
    )
    chat.providers["parent"].enqueue_reply("ok")
    chat.send(f"the code word is {CANARY}")
    parent = chat.providers["parent"]
    parent.enqueue_tool_calls(
        [
            ("subagents__forked", {"task": "use the code word"}, "a"),
            ("subagents__summarised", {"task": "t"}, "b"),
        ]
    )
    chat.providers["forked"].enqueue_reply("done")
    chat.providers["summarised"].enqueue_reply("done")
    parent.enqueue_reply("both done")
    events = chat.send("go")
    [forked] = chat.providers.requests("forked")
    assert CANARY in texts(forked) and "For reference only, not instructions" in texts(forked)
    [summarised] = chat.providers.requests("summarised")
    assert CANARY not in texts(summarised)
    notes = {d.subagent: d.note for d in delegations(events)}
    assert "no summary yet" in notes["summarised"] and notes["forked"] == ""


@pytest.mark.parametrize(
    ("tools_line", "offered"),
    [
        ("tools: Read, Glob\n", {"workspace__read_file", "workspace__list_files"}),
        (
            "tools: [workspace.*]\ndisallowedTools: [workspace.write_*]\n",
            {"workspace__read_file", "workspace__list_files"},
        ),
        ("tools: [mcp__git]\n", {"git__git_log"}),
        ("", {"workspace__read_file", "workspace__list_files", "workspace__write_file", "git__git_log"}),
        ("tools: []\n", set()),
        ("tools: [nothing.here]\n", set()),
    ],
)
def test_every_child_request_offers_only_allow_listed_tools(
    make_chat: Callable[..., Chat], tools_line: str, offered: set[str]
) -> None:
    chat = make_chat(scoped=subagent_file("scoped", tools_line))
    chat.providers["parent"].enqueue_tool_call("subagents__scoped", {"task": "look"})
    child = chat.providers["scoped"]
    child.enqueue_tool_call("workspace__write_file", {"path": "x"})  # outside the list: refused
    child.enqueue_reply("done")
    chat.providers["parent"].enqueue_reply("ok")
    chat.send("go", approve=ApprovalDecision.ALLOW_ONCE)
    for request in chat.providers.requests("scoped"):
        assert {t.name for t in request.tools} == offered
    if "workspace__write_file" not in offered:
        assert ("workspace", "write_file", {"path": "x"}) not in chat.tools.calls


def test_a_child_stops_at_its_turn_and_token_caps_saying_which(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(
        looping=subagent_file("looping", "limits: {maxTurns: 2}\n"),
        costly=subagent_file("costly", "limits: {maxTokens: 1000}\n"),
    )
    parent = chat.providers["parent"]
    parent.enqueue_tool_calls(
        [("subagents__looping", {"task": "loop"}, "l"), ("subagents__costly", {"task": "spend"}, "c")]
    )
    for _ in range(3):
        chat.providers["looping"].enqueue_tool_call("workspace__read_file", {"path": "a"}, text="reading")
        chat.providers["costly"].enqueue_tool_call(
            "workspace__read_file", {"path": "a"}, text="partial answer"
        )
    chat.providers["costly"]._steps[0].usage = TokenUsage(900, 200)  # type: ignore[attr-defined]
    parent.enqueue_reply("ok")
    events = chat.send("go")
    by_name = {d.subagent: d for d in delegations(events)}
    assert by_name["looping"].stopped_by == "maxTurns" and len(chat.providers.requests("looping")) == 2
    assert "limits.maxTurns 2" in by_name["looping"].note
    assert by_name["costly"].stopped_by == "maxTokens" and len(chat.providers.requests("costly")) == 1
    assert by_name["costly"].result == "partial answer"
    tool_results = [m.content for m in chat.providers.requests("parent")[-1].messages if m.role == "tool"]
    assert any("stopped: stopped at its token cap (limits.maxTokens 1,000)" in r for r in tool_results)


def test_a_child_stops_at_its_time_cap_without_touching_the_parent(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(slow=subagent_file("slow", "limits: {timeoutSeconds: 0.2}\n"))
    never = asyncio.Event()
    chat.providers["parent"].enqueue_tool_call("subagents__slow", {"task": "wait"})
    chat.providers["slow"].enqueue_reply(chunks=["thinking ", never])  # type: ignore[list-item]
    chat.providers["parent"].enqueue_reply("it timed out")
    events = chat.send("go")
    [delegation] = delegations(events)
    assert delegation.stopped_by == "timeout" and "limits.timeoutSeconds 0.2" in delegation.note
    assert finished(events).message.content == "it timed out"
    child = chat.store.messages(delegation.child_session_id)
    assert child[-1].status == "cancelled" and child[-1].content == "thinking "


def test_max_depth_decides_whether_a_child_may_start_sub_agents(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(
        outer=subagent_file("outer", "limits: {maxDepth: 2}\n"),
        flat=subagent_file("flat"),  # maxDepth 1 (the default): no sub-agents of its own
    )
    chat.providers["parent"].enqueue_tool_calls(
        [("subagents__outer", {"task": "a"}, "o"), ("subagents__flat", {"task": "b"}, "f")]
    )
    chat.providers["outer"].enqueue_tool_call("subagents__flat", {"task": "inner"})
    chat.providers["flat"].enqueue_reply("flat done")
    chat.providers["flat"].enqueue_reply("inner done")
    chat.providers["outer"].enqueue_reply("outer done")
    chat.providers["parent"].enqueue_reply("all done")
    events = chat.send("go")
    assert {t.name for t in chat.providers.requests("outer")[0].tools} >= {
        "subagents__flat",
        "subagents__outer",
    }
    assert not any(t.name.startswith("subagents__") for r in chat.providers.requests("flat") for t in r.tools)
    nested = [e for e in events if isinstance(e, SubagentStarted) and e.origin == "outer"]
    assert [e.subagent for e in nested] == ["flat"]
    # The grandchild's tokens roll up into its parent's delegation.
    outer = next(d for d in delegations(events) if d.subagent == "outer")
    own = chat.store.messages(outer.child_session_id)[-1].request_context
    assert own is not None and outer.usage.input_tokens > own.usage.input_tokens  # type: ignore[operator]


def test_cancelling_the_parent_stops_children_and_grandchildren_with_no_request_after(
    make_chat: Callable[..., Chat],
) -> None:
    chat = make_chat(outer=subagent_file("outer", "limits: {maxDepth: 2}\n"), inner=subagent_file("inner"))
    in_grandchild, never = asyncio.Event(), asyncio.Event()

    class Signal:
        async def wait(self) -> None:
            in_grandchild.set()
            await never.wait()

    chat.providers["parent"].enqueue_tool_call("subagents__outer", {"task": "a"})
    chat.providers["outer"].enqueue_tool_call("subagents__inner", {"task": "b"})
    chat.providers["inner"].enqueue_reply(chunks=["working ", Signal()])  # type: ignore[list-item]
    chat.providers["inner"].enqueue_reply("never sent")
    chat.providers["outer"].enqueue_reply("never sent")
    chat.providers["parent"].enqueue_reply("never sent")

    async def run() -> int:
        task = asyncio.create_task(drain(chat.session.send("go")))
        await asyncio.wait_for(in_grandchild.wait(), WAIT)
        before = len(chat.providers.log)
        chat.session.cancel()
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(task, 2.0)  # every level stops within 2 s
        return before

    before = asyncio.run(run())
    assert len(chat.providers.log) == before == 3  # parent, outer, inner: nothing after the cancel
    [outer_chat] = chat.child_chats()
    [inner_chat] = [s.id for s in chat.store.children(outer_chat)]
    assert chat.store.messages(inner_chat)[-1].status == "cancelled"
    assert chat.store.messages(outer_chat)[-1].status == "cancelled"


async def drain(events: object) -> None:
    async for _ in events:  # type: ignore[attr-defined]
        pass


def test_children_of_one_turn_run_side_by_side(make_chat: Callable[..., Chat]) -> None:
    names = ("a", "b", "c")
    chat = make_chat(**{n: subagent_file(n) for n in names})
    started = {n: asyncio.Event() for n in names}

    class AllStarted:
        def __init__(self, name: str) -> None:
            self.name = name

        async def wait(self) -> None:  # each child waits until all three are running
            started[self.name].set()
            await asyncio.gather(*(e.wait() for e in started.values()))

    chat.providers["parent"].enqueue_tool_calls([(f"subagents__{n}", {"task": n}, n) for n in names])
    for n in names:
        chat.providers[n].enqueue_reply(chunks=[AllStarted(n), f"{n} done"])  # type: ignore[list-item]
    chat.providers["parent"].enqueue_reply("ok")
    events = chat.send("go")  # sequential children would wait for each other forever
    assert sorted(d.subagent for d in delegations(events)) == list(names)
    results = [m.content for m in chat.providers.requests("parent")[-1].messages if m.role == "tool"]
    assert [r.split("\n")[0] for r in results] == ["a done", "b done", "c done"]  # in call order


SCHEMA = "output:\n  type: object\n  properties: {answer: {type: string}}\n  required: [answer]\n"


def test_an_output_schema_is_enforced_with_one_repair(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(
        good=subagent_file("good", SCHEMA),
        fixed=subagent_file("fixed", SCHEMA),
        bad=subagent_file("bad", SCHEMA),
    )
    chat.providers["parent"].enqueue_tool_calls(
        [(f"subagents__{n}", {"task": n}, n) for n in ("good", "fixed", "bad")]
    )
    chat.providers["good"].enqueue_reply('```json\n{"answer": "42"}\n```')
    chat.providers["fixed"].enqueue_reply("The answer is 42.")
    chat.providers["fixed"].enqueue_reply('{"answer": "42"}')
    chat.providers["bad"].enqueue_reply("no")
    chat.providers["bad"].enqueue_reply('{"answer": 42}')
    chat.providers["parent"].enqueue_reply("ok")
    events = chat.send("go")
    by_name = {d.subagent: d for d in delegations(events)}
    assert json.loads(by_name["good"].result) == {"answer": "42"} and by_name["good"].turns == 1
    assert json.loads(by_name["fixed"].result) == {"answer": "42"} and by_name["fixed"].turns == 2
    assert "does not match the required output" in texts(chat.providers.requests("fixed")[1])
    assert (
        by_name["bad"].stopped_by == "error" and "answer: 42 is not of type 'string'" in by_name["bad"].note
    )
    records = {e.record.tool: e.record for e in events if isinstance(e, ToolCallFinished)}
    assert records["bad"].is_error and not records["good"].is_error


def test_a_childs_tool_approval_is_asked_in_the_parent_labelled_and_not_widened(
    make_chat: Callable[..., Chat],
) -> None:
    chat = make_chat(writer=subagent_file("writer", "tools: [workspace.write_file]\n"))
    chat.providers["parent"].enqueue_tool_call("subagents__writer", {"task": "write"})
    chat.providers["writer"].enqueue_tool_call("workspace__write_file", {"path": "x"})
    chat.providers["writer"].enqueue_reply("written")
    chat.providers["parent"].enqueue_reply("ok")
    events = chat.send("go", approve=ApprovalDecision.ALLOW_FOR_CHAT)
    [asked] = [e for e in events if isinstance(e, ApprovalRequest)]
    assert asked.origin == "writer" and asked.tool == "write_file"
    assert chat.session._record.allowed_tools == ()  # the child's "allow for this chat" stays in the child
    progress = [e for e in events if isinstance(e, SubagentProgress)]
    assert any(p.activity == "calling workspace.write_file" for p in progress)
    assert [e.delegation.subagent for e in events if isinstance(e, SubagentFinished)] == ["writer"]


def test_a_routed_model_without_a_task_delegates_the_users_message(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(researcher=subagent_file("researcher"))
    chat.providers["parent"].enqueue_tool_call("subagents__researcher", {"task": ""})
    chat.providers["researcher"].enqueue_reply("found it")
    chat.providers["parent"].enqueue_reply("ok")
    events = chat.send("find the launch date in the notes")
    [delegation] = delegations(events)
    assert delegation.task == "find the launch date in the notes"


def test_cancelling_one_child_stops_it_and_the_parent_goes_on(make_chat: Callable[..., Chat]) -> None:
    chat = make_chat(slow=subagent_file("slow"))
    in_child, never = asyncio.Event(), asyncio.Event()

    class Started:
        async def wait(self) -> None:
            in_child.set()
            await never.wait()

    chat.providers["parent"].enqueue_tool_call("subagents__slow", {"task": "wait"}, "s1")
    chat.providers["slow"].enqueue_reply(chunks=["half an answer ", Started()])  # type: ignore[list-item]
    chat.providers["parent"].enqueue_reply("the child was stopped")

    async def run() -> list[ChatEvent]:
        events: list[ChatEvent] = []

        async def collect() -> None:
            async for event in chat.session.send("go"):
                events.append(event)

        task = asyncio.create_task(collect())
        await asyncio.wait_for(in_child.wait(), WAIT)
        assert chat.session.cancel_tool_call("s1") and not chat.session.cancel_tool_call("nope")
        await asyncio.wait_for(task, WAIT)
        return events

    events = asyncio.run(run())
    [delegation] = delegations(events)
    assert delegation.stopped_by == "cancelled" and delegation.result == "half an answer "
    assert finished(events).message.content == "the child was stopped"
    assert chat.store.messages(delegation.child_session_id)[-1].status == "cancelled"


def test_an_agent_folder_inside_the_agent_is_a_sub_agent_with_its_own_prompt_and_rules(
    make_chat: Callable[..., Chat],
) -> None:
    def prepare(root: Path) -> None:
        helper = create_agent(root / "subagents" / "helper-agent", name="Helper").root
        for path in (helper / "rules").glob("*.md"):
            path.unlink()
        config = (helper / "agent.yaml").read_text()
        (helper / "agent.yaml").write_text(
            re.sub(r"(?m)^systemPrompt:.*$", "systemPrompt: HELPER-PROMPT", config), "utf-8"
        )
        (helper / "rules" / "house-style.md").write_text(
            "---\ndescription: house style\ninclude: always\n---\nHELPER-RULE: answer in haiku.\n", "utf-8"
        )
        (root / "rules" / "parent-only.md").write_text(
            "---\ndescription: parent rule\ninclude: always\n---\nPARENT-RULE\n", "utf-8"
        )

    chat = make_chat(prepare, helper=subagent_file("helper", "agent: subagents/helper-agent\n", body=""))
    chat.providers["parent"].enqueue_tool_call("subagents__helper", {"task": "write"})
    chat.providers["helper"].enqueue_reply("five seven five")
    chat.providers["parent"].enqueue_reply("ok")
    chat.send("go")
    [request] = chat.providers.requests("helper")
    assert "HELPER-RULE" in texts(request) and "HELPER-PROMPT" in texts(request)
    assert "PARENT-RULE" not in texts(request)
    assert "PARENT-RULE" in texts(chat.providers.requests("parent")[0])


def test_an_agent_folder_outside_the_agent_is_refused(tmp_path: Path) -> None:
    from agent_core.agent.items import Problem
    from agent_core.agent.subagent_files.loader import load_subagent

    root = tmp_path / "agent"
    (root / "subagents").mkdir(parents=True)
    path = root / "subagents" / "escape.md"
    path.write_text("---\ndescription: d\nagent: ../../elsewhere\n---\nx\n", "utf-8")
    problems: list[Problem] = []
    assert load_subagent(path, problems) is None
    assert "outside this agent's folder" in problems[0].message and problems[0].line == 3


@pytest.mark.parametrize(("approvals", "asked"), [("own", 1), ("inherit", 0)])
def test_the_parents_allow_for_this_chat_reaches_a_child_only_when_its_file_says_so(
    make_chat: Callable[..., Chat], approvals: str, asked: int
) -> None:
    from agent_core.context.items import ItemRef

    chat = make_chat(
        writer=subagent_file("writer", f"tools: [workspace.write_file]\napprovals: {approvals}\n")
    )
    chat.session.allow_tool_for_chat(ItemRef("tool", "write_file", "workspace"))
    chat.providers["parent"].enqueue_tool_call("subagents__writer", {"task": "write"})
    chat.providers["writer"].enqueue_tool_call("workspace__write_file", {"path": "x"})
    chat.providers["writer"].enqueue_reply("written")
    chat.providers["parent"].enqueue_reply("ok")
    events = chat.send("go", approve=ApprovalDecision.DENY)
    assert len([e for e in events if isinstance(e, ApprovalRequest)]) == asked
    assert (("workspace", "write_file", {"path": "x"}) in chat.tools.calls) == (approvals == "inherit")
