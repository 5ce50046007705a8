"""The folder name an imported skill gets, and whether its SKILL.md is an unfilled template.

A skill is named by its SKILL.md's ``name`` (what Claude Code and the standard use), or by its
folder when the header has none. A name the Agent Skills standard does not allow (Title Case,
spaces, underscores, a leading hyphen, more than 64 characters) becomes the nearest one it allows:
lower-case letters and digits joined by single hyphens. The SKILL.md is never rewritten; the loader
shows the header's own name as the skill's display name.
"""

from __future__ import annotations

import re
import unicodedata

from agent_core.agent.names import name_problem
from agent_core.agent.skill_files.definition import MAX_NAME_CHARS, spec_name_problem

__all__ = ["placeholder_problem", "skill_folder_name"]

_NOT_NAME = re.compile(r"[^a-z0-9]+")
_FALLBACK = "skill"
# Words a template leaves in place of a description. Matched on the description only: a body may
# well talk about templates.
_PLACEHOLDERS = re.compile(
    r"replace (?:this |it )?with (?:a |an |the |your )?(?:\w+ ){0,3}(?:description|explanation|summary)"
    r"|^\s*(?:TODO|TBD|FIXME)\b|lorem ipsum|your (?:skill'?s? )?description (?:goes )?here"
    r"|^\s*[\[<{][^\]>}]*\b(?:description|describe)\b[^\]>}]*[\]>}]\s*$"
    r"|^\s*(?:one|a) (?:short )?(?:paragraph|sentence|line) (?:describing|that describes) what this\b",
    re.IGNORECASE,
)
# Names a template gives its skill for the author to replace (compared in the standard's spelling).
_PLACEHOLDER_NAMES = frozenset(
    {"name", "skill-name", "agent-name", "your-skill-name", "my-skill-name", "template", "skill-template"}
)


def skill_folder_name(header_name: str, folder_name: str) -> tuple[str, str | None]:
    """The folder name for a skill whose header says ``header_name`` ('' when it says none) and
    whose folder in the source is ``folder_name``, and why it differs from the name it was given
    (None when it does not)."""
    given = header_name.strip() or folder_name
    if spec_name_problem(given) is None and name_problem(given) is None:
        return given, None
    name = _slug(given)
    if name == _FALLBACK and given != folder_name:
        name = _slug(folder_name)  # a header name with no letter or digit at all: the folder's
    reason = spec_name_problem(given) or name_problem(given) or "the name is not a safe folder name"
    return name, reason


def _slug(text: str) -> str:
    # "Café Notes" -> "cafe-notes": accents dropped rather than the letter (NFKD splits them off).
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = _NOT_NAME.sub("-", ascii_text.lower()).strip("-")
    if len(words) > MAX_NAME_CHARS:
        cut = words[:MAX_NAME_CHARS]
        # At a word boundary when there is one in the second half, so no word is cut in two.
        words = cut[: cut.rindex("-")] if "-" in cut[MAX_NAME_CHARS // 2 :] else cut.rstrip("-")
    if not words or name_problem(words) is not None:  # empty, or a name Windows reserves (con, nul)
        return f"{words}-skill" if words else _FALLBACK
    return words


def placeholder_problem(header_name: str, description: str) -> str | None:
    """Why the skill looks like a template nobody filled in, or None.

    An unfilled template has a placeholder for its description ("Replace with description of the
    skill", "TODO", "[describe ...]"); offered to a model it would only add noise.
    """
    if _PLACEHOLDERS.search(description):
        return f"its description is a template's placeholder ({description.strip()[:80]!r})"
    if _slug(header_name) in _PLACEHOLDER_NAMES:
        return f"its name is a template's placeholder ('{header_name}')"
    if not description.strip() and "template" in header_name.lower():
        return f"it is named '{header_name}' and has no description"
    return None
