"""The exception root of the core. Every message says what went wrong and how to fix it."""

from __future__ import annotations

__all__ = ["AgentFileError", "ContextDeskError", "UserDataError"]


class ContextDeskError(Exception):
    """Root of every error the core raises on purpose."""


class AgentFileError(ContextDeskError):
    """An agent folder or one of its files cannot be read or written."""


class UserDataError(ContextDeskError):
    """The user data folders (chats, caches, settings) cannot be used."""
