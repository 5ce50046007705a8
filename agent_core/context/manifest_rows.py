"""A request's manifest as the rows people read: each part, then the framing added up into one row.

The fitting step records framing (tags, separators, role markers) once per message so that the
parts add up to exactly what was sent; shown like that it is noise. The export, the CLI and the
desktop's View Context all show this one list.
"""

from __future__ import annotations

from agent_core.context.items import ContextManifest, ManifestPart

__all__ = ["FRAMING_DETAIL", "manifest_rows"]

FRAMING_DETAIL = "tags, separators and role markers"


def manifest_rows(manifest: ContextManifest) -> list[ManifestPart]:
    """The manifest's parts in order, framing left out, then one ``framing`` row with its total."""
    rows = [part for part in manifest.parts if part.kind != "framing"]
    framing = sum(part.tokens for part in manifest.parts if part.kind == "framing")
    return [*rows, ManifestPart("framing", framing, detail=FRAMING_DETAIL)]
