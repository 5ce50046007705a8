"""Answers to what a server asks of the client: elicitation (through the front end) and roots."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import mcp_types

from agent_core.mcp.elicitation import (
    ElicitationHandler,
    ElicitationRequest,
    ElicitationSchemaError,
    answer_problems,
    form_from_schema,
    url_elicitation,
)
from agent_core.mcp.roots import root_uri

__all__ = ["ELICITATION_TIMEOUT_SECONDS", "answer_elicitation", "roots_result"]

logger = logging.getLogger(__name__)

# A person may take a while to fill a form; past this the request is cancelled, not left hanging.
ELICITATION_TIMEOUT_SECONDS = 600.0
_PAST = {"accept": "accepted", "decline": "declined", "cancel": "cancelled"}


def _request(server: str, params: mcp_types.ElicitRequestParams) -> ElicitationRequest:
    if isinstance(params, mcp_types.ElicitRequestURLParams):
        return url_elicitation(server, params.message, params.url, params.elicitation_id)
    return form_from_schema(server, params.message, params.requested_schema)


async def answer_elicitation(
    server: str,
    handler: ElicitationHandler | None,
    params: mcp_types.ElicitRequestParams,
    note: Callable[[str], None],
) -> mcp_types.ElicitResult:
    """The user's answer to one elicitation; declined, with a ``note``, when it cannot be asked."""
    if handler is None:
        note("elicitation declined: nothing here can ask the user (no window or terminal)")
        return mcp_types.ElicitResult(action="decline")
    try:
        request = _request(server, params)
    except ElicitationSchemaError as error:
        note(f"elicitation declined: {error}")
        return mcp_types.ElicitResult(action="decline")
    try:
        async with asyncio.timeout(ELICITATION_TIMEOUT_SECONDS):
            answer = await handler(request)
    except TimeoutError:
        note(f"elicitation cancelled: no answer within {ELICITATION_TIMEOUT_SECONDS:g} s")
        return mcp_types.ElicitResult(action="cancel")
    if answer.note:
        note(f"elicitation {_PAST[answer.action]}: {answer.note}")
    if answer.action != "accept" or request.mode == "url":
        return mcp_types.ElicitResult(action=answer.action)
    content = dict(answer.content)
    problems = answer_problems(request.fields, content)
    if problems:  # a front end's bug, never sent on
        logger.error("elicitation answer for %s does not fit its form: %s", server, problems)
        note("elicitation declined: the answer did not fit the form")
        return mcp_types.ElicitResult(action="decline")
    known = {item.name for item in request.fields}
    sent = {name: value for name, value in content.items() if name in known and value not in ("", [], None)}
    return mcp_types.ElicitResult(action="accept", content=sent)


def roots_result(roots: Sequence[Path]) -> mcp_types.ListRootsResult:
    """``roots`` as the server sees them: file:// URIs named after their folder."""
    return mcp_types.ListRootsResult(
        roots=[mcp_types.Root(uri=root_uri(path), name=path.name or str(path)) for path in roots]
    )
