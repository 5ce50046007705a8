"""Small helpers shared by the providers: closing streams, parsing tool arguments, HTTP errors."""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any, TypeVar

from agent_core.errors import (
    ProviderAuthError,
    ProviderError,
    ProviderRateLimitError,
    ProviderRequestError,
    ProviderUnavailableError,
)

T = TypeVar("T")

RAW_ARGUMENTS_KEY = "_raw"


@asynccontextmanager
async def aclosing_iter(iterator: AsyncIterator[T]) -> AsyncIterator[AsyncIterator[T]]:
    """Like ``contextlib.aclosing`` but for any async iterator: closes it when it has ``aclose``.

    Closing promptly matters: it is what cancels the HTTP response or stops the llama.cpp worker.
    """
    try:
        yield iterator
    finally:
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()


def parse_tool_arguments(raw: str) -> Mapping[str, Any]:
    """Tool-call arguments as a mapping. Invalid or non-object JSON comes back as ``{"_raw": raw}``
    so the chat engine can tell the model its arguments were malformed instead of failing the chat."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {RAW_ARGUMENTS_KEY: raw}
    if not isinstance(value, dict):
        return {RAW_ARGUMENTS_KEY: raw}
    return value


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date)."""
    if not headers:
        return None
    lowered = {key.lower(): value for key, value in headers.items()}
    millis = lowered.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def error_for_status(
    status: int,
    *,
    label: str,
    detail: str,
    model: str,
    key_hint: str,
    retry_after: float | None = None,
) -> ProviderError:
    """The ProviderError for an HTTP error status, with a message that says how to fix it.

    ``label`` names the provider ("OpenAI", "Ollama at http://..."), ``key_hint`` says where the key
    is set ("OPENAI_API_KEY or the key in Providers").
    """
    detail = detail.strip().rstrip(".")
    model_text = f"model {model!r}" if model else "the model"
    said = f": {detail}" if detail else ""
    if status == 401:
        return ProviderAuthError(
            f"{label} rejected the API key (HTTP 401){said}. Check {key_hint}.", status=status
        )
    if status == 403:
        return ProviderAuthError(
            f"{label} refused access (HTTP 403){said}. The key may lack access to {model_text}: "
            f"check {key_hint} and the model.",
            status=status,
        )
    if status == 429:
        wait = f"retry after {retry_after:g} s" if retry_after is not None else "wait a little"
        return ProviderRateLimitError(
            f"{label} is rate limiting requests (HTTP 429){said}. {wait.capitalize()}, or raise the "
            "plan's limits.",
            retry_after=retry_after,
            status=status,
        )
    if status == 404:
        return ProviderRequestError(
            f"{label} does not know {model_text} or the endpoint (HTTP 404){said}. Check the model id "
            "and the base URL in Providers.",
            status=status,
        )
    if status in (408, 409) or status >= 500:
        return ProviderUnavailableError(
            f"{label} failed on its side (HTTP {status}){said}. Try again in a moment.",
            retry_after=retry_after,
            status=status,
        )
    return ProviderRequestError(
        f"{label} rejected the request (HTTP {status}){said}. Check the model and its settings; if the "
        "conversation is too long, start a new chat or remove context.",
        status=status,
    )


def timeout_error(label: str, timeout: float | None) -> ProviderUnavailableError:
    within = f" within {timeout:g} s" if timeout is not None else ""
    return ProviderUnavailableError(
        f"{label} did not answer{within}. Check the connection, or raise the timeout in Providers."
    )


def connection_error(label: str, detail: str) -> ProviderUnavailableError:
    return ProviderUnavailableError(
        f"Cannot reach {label} ({detail}). Check that the server is running, the base URL in Providers, "
        "and the network connection."
    )


def dropped_error(label: str) -> ProviderUnavailableError:
    return ProviderUnavailableError(
        f"The connection to {label} dropped before the reply was complete. Try again."
    )


# A tool call's arguments are JSON for one call; a provider streaming more than this is broken or
# hostile, and keeping it would grow without bound.
MAX_TOOL_ARGUMENT_CHARS = 1_000_000


def check_argument_size(label: str, size: int) -> None:
    """Raise when a tool call's streamed arguments pass MAX_TOOL_ARGUMENT_CHARS."""
    if size > MAX_TOOL_ARGUMENT_CHARS:
        raise ProviderRequestError(
            f"{label} sent a tool call whose arguments pass {MAX_TOOL_ARGUMENT_CHARS:,} characters, so it was "
            "stopped. Try again; if it keeps happening, ask for smaller steps or use another model."
        )


def malformed_error(label: str, error: Exception) -> ProviderRequestError:
    """A stream event that is not what the API promises (not JSON, or not the expected shape)."""
    detail = str(error)[:120]
    return ProviderRequestError(
        f"{label} sent a malformed stream event ({detail}). The reply so far is kept. Try again; if it keeps "
        "happening, the server does not fully speak this provider's API: check its version or the base URL."
    )


def not_a_stream_error(label: str, content_type: str) -> ProviderRequestError:
    """HTTP 200 whose body is not an event stream: usually a base URL that points at a web page."""
    kind = content_type.split(";")[0].strip() or "no content type"
    return ProviderRequestError(
        f"{label} answered HTTP 200 but not with an event stream ({kind}): check the base URL in Providers; "
        "it should be the server's OpenAI-compatible API root, which often ends in /v1."
    )
