"""The workflows package's error root."""

from __future__ import annotations

from agent_core.errors import ContextDeskError

__all__ = ["WorkflowError"]


class WorkflowError(ContextDeskError):
    """A workflow cannot start or go on; the message names the state and the fix."""
