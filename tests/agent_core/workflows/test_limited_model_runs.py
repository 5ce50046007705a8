"""A workflow started from a chat whose assistant runs on a model that may not follow its JSON
steps asks first, with the one-line warning as the question's caution: allowed, it runs; denied,
no state runs and the reply says to pick another model."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from agent_core.agent.workflow_files.loader import Workflow
from agent_core.chat.events import ApprovalDecision, ReplyFinished
from agent_core.workflows.model_check import NOT_RUN, asks_a_model, workflow_models, workflow_warning
from tests.support.workflow_chats import Chat


def small_classifier(chat: Chat) -> None:
    provider = chat.providers["classifier"]
    provider.settings = replace(provider.settings, options={"toolCalling": "none"})


def test_the_models_checked_are_the_chats_and_each_assistants(chat: Chat) -> None:
    workflow = chat.agent.workflows["triage"]
    assert workflow_models(workflow, chat.agent, "scripted:parent") == [
        "scripted:parent",
        "scripted:classifier",
    ]


def test_denied_no_state_runs_and_the_reply_says_why(chat: Chat) -> None:
    small_classifier(chat)
    events = chat.send('/run triage {"report": "Invoices are doubled"}', approve=ApprovalDecision.DENY)
    [question] = chat.asked
    assert (question.server, question.tool, question.origin) == ("workflows", "triage", "workflow triage")
    assert question.model_limited
    assert question.caution.startswith(
        "scripted:classifier does not choose its own tools: it may not give each workflow"
    )
    assert not chat.providers.requests("classifier") and not chat.runs().runs(str(chat.agent.root))
    finished = events[-1]
    assert isinstance(finished, ReplyFinished) and finished.message.content == NOT_RUN


def test_allowed_the_workflow_runs(chat: Chat) -> None:
    small_classifier(chat)
    chat.providers["classifier"].enqueue_reply('{"area": "billing", "severity": "high"}')
    events = chat.send('/run triage {"report": "Invoices are doubled"}')
    assert [q.tool for q in chat.asked] == ["triage", "owner_of"]  # the model, then the tool call
    finished = events[-1]
    assert (
        isinstance(finished, ReplyFinished)
        and "Workflow **triage** finished after 2 steps" in finished.message.content
    )


def tool_states_only(chat: Chat) -> Workflow:
    """``triage`` without its assistant state: one tool state, no model asked anything."""
    triage = chat.agent.workflows["triage"]
    spec = triage.spec.model_copy(update={"states": triage.spec.states[1:]})
    return Workflow("owners", spec, triage.path)


def test_a_workflow_of_tool_states_only_gets_no_small_model_warning(chat: Chat) -> None:
    small_classifier(chat)
    parent = chat.providers["parent"]
    parent.settings = replace(parent.settings, options={"toolCalling": "none"})
    owners = tool_states_only(chat)
    assert not asks_a_model(owners) and asks_a_model(chat.agent.workflows["triage"])
    assert workflow_models(owners, chat.agent, "scripted:parent") == []
    assert (
        asyncio.run(workflow_warning(chat.providers.resolve, owners, chat.agent, "scripted:parent")) is None
    )
    # The same chat model warns for a workflow that does ask it.
    warned = asyncio.run(
        workflow_warning(
            chat.providers.resolve, chat.agent.workflows["triage"], chat.agent, "scripted:parent"
        )
    )
    assert warned is not None


def test_a_run_of_one_step_says_one_step(chat: Chat) -> None:
    chat.providers["classifier"].enqueue_reply("not json at all")
    events = chat.send('/run triage {"report": "Invoices are doubled"}')
    finished = events[-1]
    assert isinstance(finished, ReplyFinished) and " after 1 step (run " in finished.message.content
