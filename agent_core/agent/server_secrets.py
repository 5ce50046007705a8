"""A secret typed into a server's settings goes to the keyring, not into agent.yaml.

An agent folder is meant to be read, diffed and kept in git, so a token typed as a server's
environment variable (``GITHUB_TOKEN=ghp_…``) or HTTP header (``Authorization=Bearer …``) must not
be written there as it is. The values that look like secrets (the importers' rules:
:func:`~agent_core.agent.importers._secret_detection.is_secret`) are stored in the system keyring
and written as ``keyring://contextdesk/<agent>/<server>.<KEY>`` references, which the server's
start resolves as it does ``env://`` ones. Where there is no keyring, nothing is saved: the error
says to write ``env://KEY`` and set the variable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_core.agent.importers._secret_detection import is_reference, is_secret
from agent_core.agent.keyring_secrets import (
    SecretStoreError,
    keyring_available,
    keyring_reference,
    store_secret,
)
from agent_core.agent.schema import SseServerConfig, StdioServerConfig, StreamableHttpServerConfig

__all__ = ["KeptSecrets", "keep_secrets_in_the_keyring"]

ServerWithValues = StdioServerConfig | SseServerConfig | StreamableHttpServerConfig
# A credential after its scheme ("Bearer <token>", "Basic <base64>"): the whole value is the secret
# here (the importers move only the token, into an env:// template).
_CREDENTIAL = re.compile(r"^(?:Bearer|Basic|Token|Bot)\s+\S+$", re.IGNORECASE)


def _looks_secret(key: str, value: str) -> bool:
    return is_secret(key, value) or (
        not is_reference(value.strip()) and bool(_CREDENTIAL.match(value.strip()))
    )


@dataclass(frozen=True)
class KeptSecrets:
    """A server's settings with its secrets replaced by keyring references, and which moved."""

    config: ServerWithValues
    moved: tuple[str, ...]  # "env GITHUB_TOKEN", "header Authorization"


def keep_secrets_in_the_keyring(agent_name: str, server: str, config: ServerWithValues) -> KeptSecrets:
    """``config`` with each literal secret of its environment (stdio) or headers (HTTP) stored in
    the keyring and replaced by its ``keyring://`` reference. Call it off the GUI thread: a keyring
    may block while it asks to be unlocked.

    Raises:
        SecretStoreError: a value looks like a secret and there is no keyring to keep it (or it
            refused); the message names the value's key and the ``env://`` way instead.
    """
    field, what = ("env", "env") if isinstance(config, StdioServerConfig) else ("headers", "header")
    values: dict[str, str] = dict(getattr(config, field))
    secret_keys = [key for key, value in values.items() if _looks_secret(key, value)]
    if not secret_keys:
        return KeptSecrets(config, ())
    if not keyring_available():
        names = ", ".join(secret_keys)
        raise SecretStoreError(
            f"server {server}: {names} looks like a secret, and agent.yaml is no place for one (the "
            "folder may be shared or kept in git), but this system has no keyring to keep it. Write "
            f"env://{secret_keys[0]} as its value instead and set the variable {secret_keys[0]} "
            "before starting ContextDesk"
        )
    for key in secret_keys:
        reference = keyring_reference(agent_name, f"{server}.{key}")
        store_secret(reference, values[key])
        values[key] = reference
    updated = config.model_copy(update={field: values})
    return KeptSecrets(updated, tuple(f"{what} {key}" for key in secret_keys))
