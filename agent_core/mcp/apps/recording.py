"""What a view posts for the conversation, kept in the RequestContext of the reply whose tool call
it shows: the turn that made the call and the reply's later turns (each keeps the reply's context),
so View Context shows it whichever turn it opens."""

from __future__ import annotations

import logging
from dataclasses import replace

from agent_core.context.items import AppExchange
from agent_core.store.chats import ChatStore
from agent_core.store.records import StoredMessage

__all__ = ["MAX_APP_EXCHANGES", "record_app_exchange"]

logger = logging.getLogger(__name__)

MAX_APP_EXCHANGES = 200  # per reply: later posts are shown but not kept


def record_app_exchange(store: ChatStore, session_id: str, exchange: AppExchange) -> bool:
    """Keep ``exchange`` in the RequestContext of the reply that made call ``exchange.call_id``;
    a view's new model context replaces its last. False when nothing was kept: the call is not
    in the chat (any more), its reply is still being written (its own save would drop it), or
    the reply holds ``MAX_APP_EXCHANGES`` already.

    Raises:
        StoreError: the database could not be written.
    """
    messages = store.messages(session_id)
    rows = _reply_rows(messages, exchange.call_id)
    if not rows or any(m.status == "streaming" for m in rows):
        logger.info("the post of the view of call %s was not kept: its reply is not saved", exchange.call_id)
        return False
    for message in rows:
        context = message.request_context
        if context is None:
            continue
        kept = context.app_exchanges
        if exchange.kind == "model_context":
            kept = tuple(e for e in kept if not (e.kind == "model_context" and e.call_id == exchange.call_id))
        if len(kept) >= MAX_APP_EXCHANGES:
            logger.info(
                "the post of the view of call %s was not kept: its reply holds enough", exchange.call_id
            )
            return False
        store.update_message(message, request_context=replace(context, app_exchanges=(*kept, exchange)))
    return True


def _reply_rows(messages: list[StoredMessage], call_id: str) -> list[StoredMessage]:
    """The assistant row that made call ``call_id`` and the rows of the same reply after it (up to
    the next message of the user, or another answer's rows)."""
    start = next(
        (
            i
            for i, m in enumerate(messages)
            if m.role == "assistant" and any(c.id == call_id for c in m.tool_calls)
        ),
        None,
    )
    if start is None:
        return []
    first = messages[start]
    rows = [first]
    for message in messages[start + 1 :]:
        # A user's message, or a row of another answer (a regenerated or set-aside one), ends it.
        if message.role == "user" or (message.replaced, message.aside) != (first.replaced, first.aside):
            break
        if message.role == "assistant":
            rows.append(message)
    return rows
