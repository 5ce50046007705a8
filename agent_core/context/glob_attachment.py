"""Rules and references that join a request because a file it names matches their ``globs:``.

This is Cursor's "auto attached" rule: whatever an item's include mode, when the message names a
file (``src/app/main.ts``) or an MCP resource attached to the chat has a matching path, the item
is used for that request. It enters as ``agent`` (per message, like what selection chooses: in
the message's own context block, not the system prompt, so the cached prefix stays the same),
with a reason that says which file matched which glob.
"""

from __future__ import annotations

from functools import lru_cache

from agent_core.agent.file_globs import GlobSet
from agent_core.agent.schema import IncludeMode
from agent_core.context.file_mentions import path_of_uri, paths_in_message
from agent_core.context.items import ItemRef, RequestItem
from agent_core.context.sources import ContextRequest

__all__ = ["glob_matched_items"]


def glob_matched_items(request: ContextRequest) -> tuple[RequestItem, ...]:
    """The rules and references with globs that a file named by ``request`` matches, and that are
    not already in it (in the chat, or turned off for this request). Rules first, then references,
    each by name."""
    agent = request.agent
    with_globs = [
        doc
        for documents in (agent.rules, agent.references)
        for doc in sorted(documents.values(), key=lambda d: d.name.lower())
        if doc.globs and doc.include is not IncludeMode.ALWAYS  # always: in every chat already
    ]
    if not with_globs:
        return ()  # most agents: nothing to read from the message
    # Each path, and how the reason names where it came from.
    sources = {path: f"file {path}" for path in paths_in_message(request.message)}
    for item in request.chat_items:
        if item.ref.type == "reference" and item.ref.server is not None:  # an attached MCP resource
            path = path_of_uri(item.ref.name)
            if path is not None:
                sources.setdefault(path, f"attached resource {item.ref.name}")
    if not sources:
        return ()
    taken = {item.ref for item in request.chat_items} | request.excluded
    found: list[RequestItem] = []
    for doc in with_globs:
        ref = ItemRef(doc.kind, doc.name)
        if ref in taken:
            continue
        match = _glob_set(doc.globs).first_match(sources)
        if match is not None:
            reason = f"matched {sources[match.path]} (glob {match.pattern})"
            found.append(RequestItem(ref, "agent", reason=reason))
    return tuple(found)


@lru_cache(maxsize=512)
def _glob_set(globs: tuple[str, ...]) -> GlobSet:
    return GlobSet(globs)
