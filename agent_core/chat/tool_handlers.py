"""The seams through which features plug into a chat from the side: tool servers the chat runs
itself, and commands typed in place of a message.

A chat runs most tools through its tool runtime (MCP servers). Some tools are not calls to a
server but work the chat does: a sub-agent is a child chat, a workflow is a run of states. Such a
feature gives the chat a :class:`ToolHandler` for its server name (``subagents``, ``workflows``);
the chat hands every call to that server to it, with the :class:`MessageTurn` it belongs to. A
feature that reads a message typed a certain way (``/run NAME {json}``) gives a
:class:`MessageCommand`. ``chat/`` knows only these two shapes: the features are wired together
where a workspace builds its :class:`~agent_core.chat.services.ChatServices` (``workspace.py``),
so a new one needs no change here.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from agent_core.chat.events import (
    ApprovalRequest,
    ChatEvent,
    ItemPulled,
    SamplingAnswered,
    SubagentFinished,
    SubagentProgress,
    SubagentStarted,
    ToolCallFinished,
    ToolCallProgress,
    ToolCallStarted,
    WorkflowProgress,
    WorkflowRunFinished,
)
from agent_core.providers.base import ToolCall

__all__ = ["MessageCommand", "MessageTurn", "ToolCallEvent", "ToolHandler", "ToolHandlerFactory"]

#: What one tool call reports while it runs, ending with its ToolCallFinished.
ToolCallEvent = (
    ToolCallStarted
    | ApprovalRequest
    | ToolCallProgress
    | ToolCallFinished
    | SubagentStarted
    | SubagentProgress
    | SubagentFinished
    | WorkflowProgress
    | WorkflowRunFinished
    | ItemPulled
    | SamplingAnswered
)


@dataclass(frozen=True, eq=False)
class MessageTurn:
    """The message a tool call answers (one value per message: compared by identity).

    ``routed``: the chat's model cannot choose tools, so it was routed to the tool, and the
    tool's input is the user's own message rather than arguments the model wrote.
    """

    text: str
    routed: bool = False


class ToolHandler(Protocol):
    """The tools of one server that a chat runs itself; one handler per chat."""

    @property
    def server(self) -> str:
        """The server name its tools appear under (``subagents.researcher``)."""
        ...

    @property
    def side_by_side(self) -> bool:
        """Whether its calls of one model turn run side by side rather than one after another."""
        ...

    def run(
        self, call: ToolCall, tool: str, turn: MessageTurn, reply_id: int | None
    ) -> AsyncIterator[ToolCallEvent]:
        """Events of ``call`` to ``tool``, ending with its ToolCallFinished (whose result the
        model reads); ``reply_id`` is the reply whose turn made the call."""
        ...

    def cancel(self, call_id: str) -> bool:
        """Stop the call ``call_id`` alone, the reply going on; False when it is not running here."""
        ...


#: Makes the handler of one chat (a handler may keep what that chat's calls share). It is given the
#: ``ChatSession`` it serves, typed loosely here: this seam sits below the session, which uses it.
ToolHandlerFactory = Callable[[Any], ToolHandler]


class MessageCommand(Protocol):
    """A message typed as a command (``/run NAME {json}``), answered by the feature, not the model."""

    def matches(self, text: str) -> bool:
        """Whether ``text`` is this command."""
        ...

    def run(self, session: Any, text: str) -> AsyncGenerator[ChatEvent, None]:
        """The command's events, up to its ReplyFinished, in ``session`` (the ``ChatSession`` it
        was typed in); the user's message is saved by it.

        Raises:
            ContextDeskError: the command cannot run (nothing is saved).
        """
        ...

    @property
    def not_regenerated(self) -> str:
        """Why a message of this command is not answered again, and what to do instead."""
        ...

    @property
    def word(self) -> str:
        """What the message starts with (``/run``): front ends list it among their commands."""
        ...

    @property
    def summary(self) -> str:
        """What the command does and how it is written, in one line, for that list."""
        ...
