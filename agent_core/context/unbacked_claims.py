"""A reply that says it read, ran or changed something when no tool did.

A model without tools (or one that did not call them) still writes "I have read notes.md: the
launch is on 1 April" or "I checked your folder: it contains report.pdf". Its record says it
answered without using any tool (View Context), but the reply itself reads as done work. This
finds such a claim in a finished reply the model wrote with no tool call that returned anything,
so each front end can say, beside the reply, that nothing was read or done. It looks for the
first person doing something only a tool could do here (reading a file, listing a folder,
running a command, saving a change); a claim it misses is still told by the record.
"""

from __future__ import annotations

import re

from agent_core.context.provenance import Provenance

__all__ = ["unbacked_claim"]

_QUOTED = 60  # characters of the claim quoted in the warning

# "I have read", "I've opened", "I just ran", "I checked" — then what only a tool reaches here. A
# verb goes with its own objects: "I ran the tests" is a claim, "I updated the code" (shown in the
# reply) and "I read your code" (pasted in the message) are not, nor is "I read that owls…".
_FILE = r"[\w-]+\.[a-z]{1,5}\b|files?|folders?|director(?:y|ies)|documents?"  # a name first: "notes.md" whole
_CLAIMS = {
    r"read|opened|checked|looked (?:at|through|in)|went through|searched|listed|scanned|browsed|"
    r"visited|fetched|downloaded": (
        rf"{_FILE}|notes|repo(?:sitory)?|codebase|logs?|emails?|inbox|calendar|web ?page|website|"
        r"site|url|database|spreadsheet|pdf"
    ),
    r"ran|run|executed": r"tests?|command|script|build|linter|code",
    r"created|wrote|written|saved|deleted|removed|updated|edited|modified|changed|renamed|moved|"
    r"sent|uploaded|installed|committed|pushed": (
        rf"{_FILE}|repo(?:sitory)?|database|spreadsheet|emails?|branch|commit|package"
    ),
}
_CLAIM = re.compile(
    "|".join(
        rf"\bI(?:\s+have|'ve|\s+just|\s+already)*\s+(?:{verbs})\b[^.!?\n]{{0,60}}?\b(?:{things})"
        r"(?:\s+(?:folder|directory|file))?"
        for verbs, things in _CLAIMS.items()
    ),
    re.IGNORECASE,
)
# "Your folder contains…", "the file says…": a report of what a file or folder holds.
_REPORT = re.compile(
    r"\b(?:your|the)\s+(?:documents\s+)?(?:folder|directory|file|notes?)\s+(?:contains?|has|holds|shows|says|lists)\b",
    re.IGNORECASE,
)


def unbacked_claim(text: str, provenance: Provenance | None) -> str:
    """The warning to show beside a reply that claims work no tool did ("" when there is none):
    the model wrote ``text`` and no tool call on the way returned anything, yet it says it read,
    ran or changed something, or reports what a file or folder holds."""
    if provenance is None or provenance.produced_by != "model" or provenance.grounded:
        return ""
    match = _CLAIM.search(text) or _REPORT.search(text)
    if match is None:
        return ""
    claim = " ".join(match.group(0).split())
    if len(claim) > _QUOTED:
        claim = claim[: _QUOTED - 1] + "…"
    return (
        f"No tool was used for this reply, yet it says “{claim}”: nothing was read, run or changed. "
        "Ask again with a model that can call tools, or check the file yourself."
    )
