"""A workflow started from a chat whose assistant runs on a model that may not follow its JSON
steps asks first, with the one-line warning as the question's caution: allowed, it runs; denied,
no state runs and the reply says to pick another model."""

from __future__ import annotations

from dataclasses import replace

from agent_core.chat.events import ApprovalDecision, ReplyFinished
from agent_core.workflows.model_check import NOT_RUN, workflow_models
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
