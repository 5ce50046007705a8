"""API keys kept in the operating system's keyring, referred to as ``keyring://contextdesk/<agent>/<provider>``.

The desktop app stores keys there instead of writing them into agent.yaml. They are resolved when a
provider is created, like ``env://`` references (:func:`agent_core.agent.secrets.resolve_secret`). Where no keyring
backend exists (headless Linux, CI), :func:`keyring_available` is False and callers say so.
"""

from __future__ import annotations

import re

from agent_core.agent.secrets import MissingSecretError
from agent_core.errors import ContextDeskError

__all__ = [
    "KEYRING_SCHEME",
    "SecretStoreError",
    "keyring_available",
    "keyring_reference",
    "resolve_keyring_secret",
    "store_secret",
]

KEYRING_SCHEME = "keyring://"
SERVICE = "contextdesk"


class SecretStoreError(ContextDeskError):
    """The keyring is missing or refused to store or read a secret."""


def keyring_reference(agent_name: str, provider_id: str) -> str:
    """``keyring://contextdesk/<agent>/<provider>``, with the agent name made safe for a path."""
    agent = re.sub(r"[^A-Za-z0-9_.-]+", "-", agent_name).strip("-") or "agent"
    return f"{KEYRING_SCHEME}{SERVICE}/{agent}/{provider_id}"


def _split(reference: str) -> tuple[str, str]:
    service, _, user = reference[len(KEYRING_SCHEME) :].partition("/")
    return service, user


def keyring_available() -> bool:
    """Whether a real keyring backend is present (not the 'fail' or 'null' stand-ins)."""
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return False
    backend = keyring.get_keyring()
    return not isinstance(backend, fail.Keyring) and getattr(backend, "priority", 0) > 0


def store_secret(reference: str, value: str) -> None:
    """Raises:
    SecretStoreError: there is no keyring, or it refused the secret."""
    if not keyring_available():
        raise SecretStoreError(
            "no system keyring is available here: use an env://VARIABLE reference instead, "
            "or install and unlock a keyring (e.g. GNOME Keyring or KWallet)"
        )
    import keyring
    from keyring.errors import KeyringError

    service, user = _split(reference)
    try:
        keyring.set_password(service, user, value)
    except KeyringError as error:
        raise SecretStoreError(
            f"the keyring refused to store the key ({error}): unlock it and try again"
        ) from error


def resolve_keyring_secret(value: str, *, what: str) -> str:
    """``value`` itself, or the secret a ``keyring://`` reference points at.

    Raises:
        MissingSecretError: the keyring is unavailable or holds nothing under the reference.
    """
    if not value.startswith(KEYRING_SCHEME):
        return value
    if not keyring_available():
        raise MissingSecretError(
            f"{what} is kept in the system keyring, which is not available here: "
            "enter the key again in Providers, or use an env://VARIABLE reference"
        )
    import keyring
    from keyring.errors import KeyringError

    service, user = _split(value)
    try:
        secret = keyring.get_password(service, user)
    except KeyringError as error:
        raise MissingSecretError(f"{what} could not be read from the keyring ({error}): unlock it") from error
    if not secret:
        raise MissingSecretError(f"{what} is not in the keyring any more: enter it again in Providers")
    return secret
