"""MCP sampling on the wire: a server's ``sampling/createMessage`` in, the router's answer (or a
refusal, as a JSON-RPC error the server sees) out."""

from __future__ import annotations

import logging

import mcp_types
from mcp.client.session import ClientRequestContext

from agent_core.errors import ContextDeskError
from agent_core.sampling_router import (
    SamplingLimits,
    SamplingMessage,
    SamplingRefusedError,
    SamplingRequest,
    SamplingRouter,
)

__all__ = ["SamplingCallback"]

logger = logging.getLogger(__name__)

# A server is untrusted: a conversation longer than this is refused before anyone is asked.
MAX_MESSAGES = 100
MAX_CHARACTERS = 200_000
MAX_HINTS = 10


class SamplingCallback:
    """The SDK's ``sampling_callback`` for one server."""

    def __init__(self, server: str, router: SamplingRouter | None, limits: SamplingLimits) -> None:
        self._server = server
        self._router = router
        self._limits = limits

    async def __call__(
        self, context: ClientRequestContext, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        if self._router is None:
            return _refusal(f"ContextDesk does not answer sampling requests of '{self._server}' here.")
        if params.tools:
            return _refusal("ContextDesk does not offer tools to sampling requests.")
        if len(params.messages) > MAX_MESSAGES:
            return _refusal(f"A sampling request may hold at most {MAX_MESSAGES} messages.")
        messages = tuple(_message(m) for m in params.messages)
        size = sum(len(m.text) for m in messages) + len(params.system_prompt or "")
        if size > MAX_CHARACTERS:
            return _refusal(
                f"A sampling request may hold at most {MAX_CHARACTERS:,} characters ({size:,} sent)."
            )
        request = SamplingRequest(
            server=self._server,
            messages=messages,
            max_tokens=params.max_tokens,
            requested_max_tokens=params.max_tokens,
            system_prompt=params.system_prompt or "",
            temperature=params.temperature,
            stop_sequences=tuple(params.stop_sequences or ())[:MAX_HINTS],
            model_hints=tuple(
                hint.name
                for hint in (params.model_preferences.hints or () if params.model_preferences else ())
                if hint.name
            )[:MAX_HINTS],
        )
        try:
            answer = await self._router.answer(request, self._limits)
        except SamplingRefusedError as error:
            return _refusal(str(error))
        except ContextDeskError as error:  # the model failed: the server learns that much
            logger.info("sampling request of %s failed: %s", self._server, error)
            return mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=f"The model failed: {error}")
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text=answer.text),
            model=answer.model,
            stop_reason=answer.stop_reason,
        )


def _message(message: mcp_types.SamplingMessage) -> SamplingMessage:
    parts = []
    for block in message.content_as_list:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        else:
            parts.append(f"[{block.type} content, not shown to the model]")
    return SamplingMessage(message.role, "\n".join(parts))


def _refusal(message: str) -> mcp_types.ErrorData:
    return mcp_types.ErrorData(code=mcp_types.INVALID_REQUEST, message=message)
