"""A manifest as rows to read: every part in order, the per-message framing added up into one row."""

from __future__ import annotations

from agent_core.context.items import ContextManifest, ManifestPart
from agent_core.context.manifest_rows import FRAMING_DETAIL, manifest_rows
from agent_core.store.export import describe_manifest


def manifest(*parts: ManifestPart) -> ContextManifest:
    return ContextManifest(
        window=1000, window_source="chat", reply_reserve=200, counter="words", exact=False, parts=parts
    )


def test_framing_of_every_message_becomes_one_row_after_the_other_parts() -> None:
    rows = manifest_rows(
        manifest(
            ManifestPart("system_prompt", 10),
            ManifestPart("framing", 4, detail="system message"),
            ManifestPart("rule", 20, "style"),
            ManifestPart("framing", 6, detail="user message"),
        )
    )
    assert rows == [
        ManifestPart("system_prompt", 10),
        ManifestPart("rule", 20, "style"),
        ManifestPart("framing", 10, detail=FRAMING_DETAIL),
    ]


def test_a_manifest_without_framing_still_ends_with_a_framing_row_of_zero() -> None:
    rows = manifest_rows(manifest(ManifestPart("message", 8)))
    assert rows[-1] == ManifestPart("framing", 0, detail=FRAMING_DETAIL)


def test_the_export_shows_the_same_rows_as_a_table() -> None:
    lines = describe_manifest(
        manifest(
            ManifestPart("selected_reference", 1200, "guide", "chunks 2, 5 of 9"), ManifestPart("framing", 3)
        )
    )
    assert lines[4:6] == [
        "| selected reference | guide | 1,200 | chunks 2, 5 of 9 |",
        "| framing |  | 3 | tags, separators and role markers |",
    ]
