"""Files that ship with ContextDesk (the default agent, icons).

In a checkout (and an editable install) they are the ``resources/`` folder next to the packages;
a wheel installs them as data files under ``<prefix>/share/contextdesk`` (see pyproject.toml).
"""

from __future__ import annotations

import sys
from pathlib import Path

from agent_core.errors import ContextDeskError

__all__ = ["app_icon", "default_agent_dir", "docs_dir", "resources_dir"]

_CHECKOUT = Path(__file__).resolve().parent.parent / "resources"


def _installed() -> Path:
    return Path(sys.prefix) / "share" / "contextdesk"


def resources_dir() -> Path:
    """The folder holding ``default-agent/`` and ``icons/``.

    Raises:
        ContextDeskError: the installation is incomplete.
    """
    for folder in (_CHECKOUT, _installed()):
        if (folder / "default-agent").is_dir():
            return folder
    raise ContextDeskError(
        f"ContextDesk's resources are missing (looked in {_CHECKOUT} and {_installed()}): reinstall it, "
        "e.g. `pip install --force-reinstall contextdesk`, or `pip install -e .` from a full checkout"
    )


def default_agent_dir() -> Path:
    return resources_dir() / "default-agent"


def app_icon() -> Path:
    return resources_dir() / "icons" / "contextdesk.svg"


def docs_dir() -> Path | None:
    """The documentation that ships with ContextDesk (README.md and the docs/*.md pages), for
    the app's Help; None when this installation has none."""
    for folder in (_CHECKOUT.parent / "docs", _installed() / "docs"):
        if (folder / "agent-format.md").is_file():
            return folder
    return None
