"""A tool call's arguments as people read them, for the approval card: one line per argument,
text as written rather than JSON-quoted."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import Any

__all__ = ["MAX_VALUE_CHARS", "readable_arguments"]

#: A longer value is cut on the card (a file's whole text, say); the call's row shows it all.
MAX_VALUE_CHARS = 300


def readable_arguments(arguments: Mapping[str, Any], name_color: str) -> str:
    """Rich text: ``name  value`` lines, the names in ``name_color``; "" when there are none."""
    lines = []
    for name, value in arguments.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        if len(text) > MAX_VALUE_CHARS:
            text = f"{text[:MAX_VALUE_CHARS]}… ({len(text):,} characters)"
        shown = html.escape(text).replace("\n", "<br>") if text else "<i>(empty)</i>"
        lines.append(
            f'<span style="color: {name_color};">{html.escape(name)}</span>&nbsp;&nbsp;<tt>{shown}</tt>'
        )
    return "<br>".join(lines)
