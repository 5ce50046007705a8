"""MCP Apps in a chat: a rendered view's host (``agent_core.mcp.apps.AppHost``) bound to the chat
whose tool call it shows: the view's calls run through the chat's tools and approvals, and what
it posts is recorded in the reply's RequestContext (``backend.py``)."""

from agent_core.apps_in_chat.backend import ChatAppBackend, chat_app_host

__all__ = ["ChatAppBackend", "chat_app_host"]
