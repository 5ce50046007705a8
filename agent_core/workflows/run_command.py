"""``/run NAME {json}`` in a chat: run one of the agent's workflows as the user's own tool call.

The chat keeps it like any reply: the user's message, then an assistant message holding the call
(its result is the run's final context store) and a RequestContext whose one item is the workflow,
in because the user ran it, linked to its run. The next replies see both in the history.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from collections.abc import AsyncGenerator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from agent_core.chat.events import (
    ChatEvent,
    ContextBuilt,
    ReplyFinished,
    SubagentFinished,
    ToolCallFinished,
    UserMessageSaved,
    WorkflowRunFinished,
)
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SelectionRun
from agent_core.errors import ContextDeskError, UserDataError
from agent_core.store.chats import StoredMessage, ToolCallRecord
from agent_core.workflows.chat_runs import RESULT_LIMIT, parse_run_command, steps_text, workflows_of
from agent_core.workflows.tools import WORKFLOW_SERVER

if TYPE_CHECKING:
    from agent_core.chat.session import ChatSession

__all__ = ["RunCommand", "run_workflow_command"]

logger = logging.getLogger(__name__)


class RunCommand:
    """``/run NAME {json}`` as a chat's message command (``chat.tool_handlers.MessageCommand``)."""

    not_regenerated = "a /run is not regenerated: send the /run again to run the workflow again"
    word = "/run"
    summary = 'run one of this agent\'s workflows: /run NAME {"input": "value"}'

    def matches(self, text: str) -> bool:
        return parse_run_command(text) is not None

    def run(self, session: ChatSession, text: str) -> AsyncGenerator[ChatEvent, None]:
        parsed = parse_run_command(text)
        if parsed is None:
            raise ContextDeskError('not a /run command: write it as /run NAME {"key": "value"}')
        return run_workflow_command(session, text, *parsed)


async def run_workflow_command(
    session: ChatSession, text: str, name: str, given: str
) -> AsyncGenerator[ChatEvent, None]:
    """Events of ``/run``, up to its ReplyFinished.

    Raises:
        ContextDeskError: no workflow has that name (nothing is saved).
    """
    workflow = session.agent.workflows.get(name)
    if workflow is None:
        known = ", ".join(session.agent.workflows) or "none"
        raise ContextDeskError(
            f"/run: this agent has no workflow named '{name}' (its workflows: {known}); "
            'write it as /run NAME {"key": "value"}'
            + (
                f"; `contextdesk workflow check {session.agent.root}` says why a file is left out"
                if name
                else ""
            )
        )
    user_message = session.store.add_message(session.id, "user", text)
    if not session.title:
        session.rename(f"/run {name}")
    yield UserMessageSaved(user_message)
    ref = ItemRef("tool", name, WORKFLOW_SERVER)
    context = RequestContext(
        items=(RequestItem(ref, "manual", reason="you ran it with /run"),),
        model=session.settings.chat.model,
        selection=SelectionRun(0, 0, 0.0, status="disabled", detail="/run: nothing was selected"),
    )
    yield ContextBuilt(context)
    call_id = f"run-{uuid.uuid4().hex[:12]}"
    arguments = _arguments_of(given)
    pending = ToolCallRecord(id=call_id, server=WORKFLOW_SERVER, tool=name, arguments=arguments, result="")
    message: StoredMessage = session.store.add_message(
        session.id, "assistant", "", status="streaming", request_context=context, tool_calls=(pending,)
    )
    record: ToolCallRecord | None = None
    finished: WorkflowRunFinished | None = None
    try:
        async for event in workflows_of(session).call(call_id, name, arguments, given=given or "{}"):
            if isinstance(event, WorkflowRunFinished):
                finished = event
                context = replace(context, workflow_runs=(*context.workflow_runs, event.link))
                message = session.store.update_message(message, request_context=context)
            elif isinstance(event, SubagentFinished) and not event.origin:
                context = replace(context, delegations=(*context.delegations, event.delegation))
                message = session.store.update_message(message, request_context=context)
            elif isinstance(event, ToolCallFinished):
                record = event.record
            yield event
    except (asyncio.CancelledError, GeneratorExit):
        try:
            session.store.update_message(message, status="cancelled", request_context=context)
        except UserDataError as error:
            logger.warning("could not mark the cancelled run: %s", error)
        raise
    assert record is not None
    message = session.store.update_message(
        message,
        # No run at all: the user chose not to run it on a model that may not manage it.
        content=describe_run(name, finished) if finished is not None else record.result,
        status="complete",
        request_context=context,
        tool_calls=(record,),
    )
    yield ReplyFinished(message)


def describe_run(name: str, finished: WorkflowRunFinished) -> str:
    """The reply ``/run`` leaves in the chat: how the run ended and its final context store."""
    link = finished.link
    headline = f"Workflow **{name}** {link.status} after {steps_text(link.steps)} (run `{link.run_id}`)."
    if link.error:
        headline += f"\n\n{link.error}"
    store = json.dumps(dict(finished.store), ensure_ascii=False, indent=2, default=str)
    if len(store) > RESULT_LIMIT:
        store = store[:RESULT_LIMIT] + "\n…"
    return f"{headline}\n\nContext store:\n```json\n{store}\n```"


def _arguments_of(given: str) -> dict[str, Any]:
    """The call's arguments as the chat shows them: the JSON object typed, else the text as input."""
    try:
        value = json.loads(given) if given else {}
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {"input": given}
