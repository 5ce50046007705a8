"""Secret values in agent files: literal text, ``env://VAR``, or ``keyring://service/name`` (the
operating system's keyring), resolved when used.

Resolving happens only at the moment a provider or server needs the value, so a secret held in
the environment never ends up in a file ContextDesk writes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from agent_core.errors import ContextDeskError

__all__ = ["ENV_SCHEME", "MissingSecretError", "env_var_name", "resolve_secret"]

ENV_SCHEME = "env://"
KEYRING_PREFIX = "keyring://"


class MissingSecretError(ContextDeskError):
    """A secret reference points at nothing."""


def env_var_name(value: str) -> str | None:
    """The variable named by an ``env://VAR`` reference, or None for a literal value."""
    if value.startswith(ENV_SCHEME):
        return value[len(ENV_SCHEME) :]
    return None


def resolve_secret(value: str, *, what: str, environ: Mapping[str, str] | None = None) -> str:
    """The secret's real value.

    Raises:
        MissingSecretError: ``value`` is ``env://VAR`` and VAR is not set.
    """
    if value.startswith(KEYRING_PREFIX):
        from agent_core.agent.keyring_secrets import resolve_keyring_secret

        return resolve_keyring_secret(value, what=what)
    variable = env_var_name(value)
    if variable is None:
        return value
    env = os.environ if environ is None else environ
    resolved = env.get(variable)
    if not resolved:
        raise MissingSecretError(
            f"{what} refers to the environment variable {variable}, which is not set: "
            f"set {variable} before starting ContextDesk, or enter the value in the agent's settings"
        )
    return resolved
