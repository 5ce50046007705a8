"""The exception root of the core. Every message says what went wrong and how to fix it."""

from __future__ import annotations

from agent_core.redaction import redact_credentials

__all__ = [
    "AgentFileError",
    "ContextDeskError",
    "ProviderAuthError",
    "ProviderConfigError",
    "ProviderError",
    "ProviderRateLimitError",
    "ProviderRequestError",
    "ProviderUnavailableError",
    "ReplyLimitError",
    "UserDataError",
]


class ContextDeskError(Exception):
    """Root of every error the core raises on purpose."""


class AgentFileError(ContextDeskError):
    """An agent folder or one of its files cannot be read or written."""


class UserDataError(ContextDeskError):
    """The user data folders (chats, caches, settings) cannot be used."""


class ProviderError(ContextDeskError):
    """A model provider failed; the message says how to fix it.

    ``retryable`` errors (rate limits, server errors, timeouts, dropped connections) may succeed
    when tried again after ``retry_after`` seconds (None: use backoff).
    """

    retryable: bool = False

    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None) -> None:
        # Messages quote URLs and servers' answers: a credential in them goes no further than here.
        super().__init__(redact_credentials(message))
        self.retry_after = retry_after
        self.status = status


class ProviderConfigError(ProviderError):
    """The provider is not set up: a missing key, an unknown provider, a missing model file."""


class ProviderAuthError(ProviderError):
    """The provider refused the credentials (HTTP 401/403)."""


class ProviderRateLimitError(ProviderError):
    """Too many requests (HTTP 429)."""

    retryable = True


class ProviderUnavailableError(ProviderError):
    """The provider failed on its side (HTTP 5xx), timed out, or the connection dropped."""

    retryable = True


class ProviderRequestError(ProviderError):
    """The provider rejected the request itself (HTTP 400/404/422: unknown model, too long...)."""


class ReplyLimitError(ProviderError):
    """A reply went past a limit of the chat (its deadline, or far past maxOutputTokens) and was
    stopped; what arrived before is kept."""


class SelectionUnavailableError(ContextDeskError):
    """The embedding model behind per-message selection failed to load or to embed; the message
    says why and what to do."""
