"""A chat's record and settings: what the chat is (its id, title and stored state) and the
agent's settings with the chat's own overrides on top. ``ChatSession`` is built on it."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from typing import Any

from agent_core.agent.agent import Agent
from agent_core.agent.schema import ChatDefaults, ContextConfig, SelectionConfig
from agent_core.chat.chat_settings import ChatSettings, with_overrides
from agent_core.chat.resolved_model import ModelResolver
from agent_core.chat.services import ChatServices
from agent_core.context.items import ItemRef, RequestContext
from agent_core.errors import ContextDeskError
from agent_core.providers.base import ToolCalling
from agent_core.store.chats import ChatStore, StoredMessage, StoredSession
from agent_core.store.sent_requests import SentRequest

__all__ = ["ChatRecord"]


class ChatRecord:
    """One stored chat of an agent, with the services every chat of a workspace shares."""

    def __init__(self, agent: Agent, store: ChatStore, record: StoredSession, services: ChatServices) -> None:
        self.agent = agent
        self.store = store
        self.services = services
        # Tools allowed without asking because a parent chat allowed them (approvals: inherit).
        self.inherited_allowed: Callable[[], Collection[ItemRef]] = tuple
        self.models = ModelResolver(services.resolve_provider)
        self._record = record

    @property
    def id(self) -> str:
        return self._record.id

    @property
    def title(self) -> str:
        return self._record.title

    def rename(self, title: str) -> None:
        self._save_record(title=title)

    def history(self) -> list[StoredMessage]:
        return self.store.messages(self.id)

    def last_request_context(self) -> RequestContext | None:
        for message in reversed(self.history()):
            if message.request_context is not None:
                return message.request_context
        return None

    def sent_request(self, message_id: int) -> SentRequest | None:
        """The exact request the reply ``message_id`` sent (credentials masked); None when none
        was kept: replies saved before ContextDesk kept them, and replies that never reached a model.

        Raises:
            StoreError: the database could not be read.
        """
        return self.store.sent_request(message_id)

    def _save_record(self, **changes: Any) -> None:
        self.store.update_session(self.id, **changes)
        self._record = replace(self._record, **changes)

    @property
    def settings(self) -> ChatSettings:
        """The agent's settings with this chat's overrides applied."""
        return ChatSettings.of(self.agent.config, self._record.overrides)

    @property
    def chat_settings(self) -> ChatDefaults:
        return self.settings.chat

    @property
    def selection_settings(self) -> SelectionConfig:
        return self.settings.selection

    @property
    def context_settings(self) -> ContextConfig:
        """Context-window limits: the agent's, with this chat's overrides."""
        return self.settings.context

    def override_settings(
        self,
        *,
        chat: Mapping[str, Any] | None = None,
        selection: Mapping[str, Any] | None = None,
        context: Mapping[str, Any] | None = None,
        memory: Mapping[str, Any] | None = None,
    ) -> None:
        """Change settings for this chat only (snake_case field names).

        Raises:
            pydantic.ValidationError: a value is out of range (nothing is changed).
        """
        overrides = with_overrides(
            self.agent.config,
            self._record.overrides,
            chat=chat,
            selection=selection,
            context=context,
            memory=memory,
        )
        self._save_record(overrides=overrides)

    def tool_calling(self, model_ref: str | None = None) -> ToolCalling:
        """How ``model_ref`` (default: the chat's model) uses tools; "native" when its provider
        cannot be set up, since the reply then reports that problem itself."""
        try:
            return self.models.resolve(model_ref or self.chat_settings.model).tool_calling
        except ContextDeskError:
            return "native"
