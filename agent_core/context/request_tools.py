"""Tools a request answers itself: the seam through which a feature offers a model that chooses
tools some tools of its own for one request, decided from what selection chose and left out, and
answers their calls from the agent's own items (no server runs them).

A feature registers a :class:`ToolOffer` in ``REQUEST_TOOLS`` (the ``request_tools`` plug-in
registry). Building a request asks every offer, once selection has run, for its tools
(:class:`OfferedTool`: the tool and why it is in the request); each tool is an
:class:`AnsweredTool`, whose ``answer`` the chat awaits when the model calls it. An answer may put
an item into the reply's RequestContext (``ToolAnswer.pulled``): the item then shows as
``PULLED_REASON`` and selection learns from it as from the user's own additions. The chat knows
only these shapes, never the features behind them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from agent_core.agent.schema import SelectionConfig
from agent_core.context.items import ItemRef, RequestContext
from agent_core.context.selection import ContextSelector, SelectionOutcome
from agent_core.context.sources import ContextRequest
from agent_core.plugins import PluginRegistry
from agent_core.tools.runtime import ToolDescriptor

__all__ = [
    "PULLED_REASON",
    "REQUEST_TOOLS",
    "AnsweredTool",
    "OfferRequest",
    "OfferedTool",
    "ToolAnswer",
    "ToolOffer",
    "offered_tools",
]

#: How an item a tool's answer put in the request shows in View Context.
PULLED_REASON = "requested by the model"


@dataclass(frozen=True)
class ToolAnswer:
    """What a call of an answered tool gives the model, and the item it put in the request."""

    text: str
    is_error: bool = False
    pulled: ItemRef | None = None


@runtime_checkable
class AnsweredTool(ToolDescriptor, Protocol):
    """A tool the request answers itself."""

    async def answer(self, arguments: Mapping[str, Any]) -> ToolAnswer:
        """The answer to one call; a call the tool refuses is an answer with ``is_error``."""
        ...


@dataclass(frozen=True)
class OfferRequest:
    """What an offer sees of one request, once selection has run."""

    request: ContextRequest
    context: RequestContext  # as built so far: the chat's items, the selected ones, the recalled ones
    outcome: SelectionOutcome
    config: SelectionConfig
    selector: ContextSelector | None  # None: selection is off


@dataclass(frozen=True)
class OfferedTool:
    tool: AnsweredTool
    reason: str  # why it is in the request, for View Context


class ToolOffer(Protocol):
    """A feature's tools for one request (none when it has nothing to offer)."""

    async def offer(self, offer: OfferRequest) -> Sequence[OfferedTool]: ...


# Third-party offers register through the entry-point group contextdesk.request_tools.
REQUEST_TOOLS: PluginRegistry[ToolOffer] = PluginRegistry(
    "request_tools",
    noun="request tool offer",
    builtins=("agent_core.context.second_opinion:register_request_tools",),
)


async def offered_tools(offer: OfferRequest) -> list[OfferedTool]:
    """Every registered offer's tools for ``offer``, in registration order."""
    return [tool for _name, source in REQUEST_TOOLS.plugins() for tool in await source.offer(offer)]
