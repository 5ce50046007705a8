"""Saved chats: sessions, messages with their RequestContext, tool calls, search, recovery.

Blocking SQLite calls: callers on an event loop or GUI thread run them with ``asyncio.to_thread``.
The store shares the database file's one lock with every other store on it in this process
(``agent_core.database.base``); other processes may read through WAL meanwhile.

One program writes to a chat at a time: every write takes or refreshes the chat's lease (a row
naming the program, its host and pid, and when it last wrote), and a write to a chat whose lease
another live program holds is refused, naming it. A lease is taken over once its program has
ended, or after LEASE_STALE_SECONDS without a write; :meth:`ChatStore.close` releases them.

The store is made of one part per job, each in its own module: the connection and the leases
(``_chat_base``), sessions (``_chat_sessions``), messages (``_chat_messages``), the branches
edits keep (``_chat_branches``), the exact requests replies sent (``_chat_sent_requests``) and
search (``_chat_search``).
"""

from __future__ import annotations

from agent_core.store._chat_branches import ChatBranches
from agent_core.store._chat_messages import ChatMessages
from agent_core.store._chat_search import ChatSearch
from agent_core.store._chat_sent_requests import SENT_REQUESTS_KEPT, ChatSentRequests
from agent_core.store._chat_sessions import ChatSessions
from agent_core.store.leases import LEASE_STALE_SECONDS
from agent_core.store.records import (
    Approval,
    ChildLink,
    MessageRole,
    MessageStatus,
    SearchHit,
    StoredMessage,
    StoredSession,
    ToolCallRecord,
)

# The records are re-exported: they are what the store reads and writes.
__all__ = [
    "LEASE_STALE_SECONDS",
    "SENT_REQUESTS_KEPT",
    "Approval",
    "ChatStore",
    "ChildLink",
    "MessageRole",
    "MessageStatus",
    "SearchHit",
    "StoredMessage",
    "StoredSession",
    "ToolCallRecord",
]


class ChatStore(ChatSessions, ChatMessages, ChatBranches, ChatSentRequests, ChatSearch):
    """All saved chats of this user, in one SQLite file."""
