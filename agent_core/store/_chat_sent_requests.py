"""The chat store's copies of the exact requests model turns sent: compressed, and only a chat's
newest SENT_REQUESTS_KEPT kept."""

from __future__ import annotations

import zlib

from pydantic import TypeAdapter

from agent_core.database.errors import StoreError
from agent_core.store._chat_base import ChatStoreBase
from agent_core.store.records import StoredMessage
from agent_core.store.sent_requests import SentRequest

__all__ = ["SENT_REQUESTS_KEPT", "ChatSentRequests"]

#: The exact requests kept per chat (its newest replies'); older replies say none was kept.
SENT_REQUESTS_KEPT = 50
_SENT = TypeAdapter(SentRequest)


class ChatSentRequests(ChatStoreBase):
    def save_sent_request(self, message: StoredMessage, request: SentRequest) -> None:
        """Keep the exact request the model turn of ``message`` sent (see ``sent_requests``: it
        comes masked and bounded); replaces one kept before for the same message.

        Raises:
            StoreError: the database could not be written.
        """
        # Compressed (a request is mostly prompt text repeated turn after turn: ~8x smaller), and
        # only a chat's newest SENT_REQUESTS_KEPT are kept, so a long chat with a large window does
        # not grow the database by megabytes nobody reads.
        packed = zlib.compress(_SENT.dump_json(request), 6)
        with self._writing(message.session_id) as db:
            db.execute(
                "INSERT OR REPLACE INTO sent_requests(message_id, request) VALUES (?, ?)",
                (message.id, packed),
            )
            db.execute(
                "DELETE FROM sent_requests WHERE message_id IN ("
                " SELECT s.message_id FROM sent_requests s JOIN messages m ON m.id = s.message_id"
                " WHERE m.session_id = ? ORDER BY s.message_id DESC LIMIT -1 OFFSET ?)",
                (message.session_id, SENT_REQUESTS_KEPT),
            )

    def sent_request(self, message_id: int) -> SentRequest | None:
        """The exact request kept for the reply ``message_id``; None when none was kept (a reply
        saved before requests were kept, or one that never reached the model).

        Raises:
            StoreError: the database could not be read.
        """
        with self._reading("could not read the request the reply sent") as db:
            row = db.execute(
                "SELECT request FROM sent_requests WHERE message_id = ?", (message_id,)
            ).fetchone()
        if row is None:
            return None
        stored = row["request"]
        try:
            data = zlib.decompress(stored) if isinstance(stored, bytes) else stored
        except zlib.error as error:
            raise StoreError(f"the kept request of reply {message_id} is damaged ({error})") from error
        return _SENT.validate_json(data)
