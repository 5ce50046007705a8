"""Duplicates among the candidates of one selection: the same item from two collections takes one
place, and its other copies are listed as near-misses "duplicate of X".

Two rules, references or skills are copies when, of the same kind,

- their bodies are the same once whitespace and case are folded, and either their names are the
  same once folded (an import's numbered suffix, ``pdf-2``, dropped) or the body is long enough
  (``ANY_NAME_MIN_CHARS``) that two different items could not share it by chance (one plug-in's
  command vendored under two plug-in names); or
- their names are the same once folded and their bodies are near-identical: at least
  ``NEAR_IDENTICAL`` of their three-word shingles are shared (a copy edited here and there).

A body is the item's text, or its description when it has none (a skill is ranked by its
description). Templated items that differ only in the name they are about ("Automate Strava
tasks via…", "Automate Splitwise tasks via…") have different names and different bodies, so they
stay two items. Tools are never folded: two servers offering the same tool act on different
things (two filesystem servers with different roots), and which one is meant is the choice.

The copy kept is the one whose name has no numbered suffix (the one the agent had first; an import
names the later copy ``name-2``), then the first by name, so the choice does not depend on the
order the sources list their candidates in.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from typing import TYPE_CHECKING

from agent_core.context.items import ItemRef, NearMiss, RequestItem

if TYPE_CHECKING:
    from agent_core.context.selection import Candidate  # selection.py calls this module

__all__ = [
    "ANY_NAME_MIN_CHARS",
    "MAX_SAME_NAME_COMPARED",
    "NEAR_IDENTICAL",
    "Folded",
    "fold_duplicates",
    "folded_name",
]

#: a folded body at least this long folds with an identical one whatever the two are named.
ANY_NAME_MIN_CHARS = 120
#: the share of three-word shingles two same-named bodies must have in common to be one item.
NEAR_IDENTICAL = 0.9
#: words of a body compared for near-identity; the rest is not read (bounds the work per body).
MAX_COMPARED_WORDS = 20_000
#: items of one name compared pairwise for near-identity; more than that fold by identical
#: bodies only (an agent of a thousand items named ``notes``, ``notes-2``… stays fast).
MAX_SAME_NAME_COMPARED = 16
#: body fingerprints remembered across selections (a fingerprint is ~60 bytes; no text is kept).
FINGERPRINTS_KEPT = 8192

_SUFFIX = re.compile(r"-\d+$")
_SEPARATORS = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True)
class Folded:
    """The copies folded away, each with the copy kept in its place."""

    copies: dict[ItemRef, ItemRef]

    def near_misses(self, items: Sequence[RequestItem], misses: Sequence[NearMiss]) -> tuple[NearMiss, ...]:
        """The copies of the selected items and of the near-misses, as near-misses "duplicate of X"
        with the score X got (a copy would have scored the same)."""
        scores = {item.ref: item.score for item in items} | {miss.ref: miss.score for miss in misses}
        return tuple(
            NearMiss(copy, scores[kept], f"duplicate of {kept.label()}")
            for copy, kept in self.copies.items()
            if kept in scores
        )


def folded_name(name: str) -> str:
    """``name`` with case and separators folded and an import's numbered suffix dropped:
    ``PDF_Tools-2`` → ``pdf-tools``."""
    return _SEPARATORS.sub("-", _SUFFIX.sub("", name.strip()).casefold()).strip("-")


def fold_duplicates(candidates: Sequence[Candidate]) -> tuple[list[Candidate], Folded]:
    """``candidates`` with each group of copies reduced to the one kept (in their order), and the
    copies folded away."""
    foldable = [i for i, c in enumerate(candidates) if c.ref.type != "tool"]
    prints = {i: _FINGERPRINTS.of(_body(candidates[i])) for i in foldable}
    names = {i: folded_name(candidates[i].ref.name) for i in foldable}
    groups = _Groups()
    by_body: defaultdict[tuple[str, bytes], list[int]] = defaultdict(list)
    by_name: defaultdict[tuple[str, str], list[int]] = defaultdict(list)
    for i in foldable:
        digest, length = prints[i]
        if length:  # an empty body says nothing about what the item is
            by_body[candidates[i].ref.type, digest].append(i)
            by_name[candidates[i].ref.type, names[i]].append(i)
    for same_body in by_body.values():
        for a, b in pairwise(same_body):
            if prints[a][1] >= ANY_NAME_MIN_CHARS:
                groups.join(a, b)
        for same in _grouped(same_body, names).values():
            groups.join_all(same)
    for same_name in by_name.values():
        if 1 < len(same_name) <= MAX_SAME_NAME_COMPARED:
            _join_near_identical(same_name, candidates, prints, groups)
    copies: dict[ItemRef, ItemRef] = {}
    for members in groups.sets():
        kept = min(members, key=lambda i: _keep_order(candidates[i].ref))
        copies.update({candidates[i].ref: candidates[kept].ref for i in members if i != kept})
    return [c for c in candidates if c.ref not in copies], Folded(copies)


def _body(candidate: Candidate) -> str:
    document = candidate.document
    return document.text if document.text.strip() else document.description


def _keep_order(ref: ItemRef) -> tuple[bool, str, str]:
    return (_SUFFIX.search(ref.name) is not None, ref.name.casefold(), ref.name)


def _grouped(members: list[int], names: dict[int, str]) -> dict[str, list[int]]:
    grouped: defaultdict[str, list[int]] = defaultdict(list)
    for i in members:
        grouped[names[i]].append(i)
    return grouped


def _join_near_identical(
    members: list[int],
    candidates: Sequence[Candidate],
    prints: dict[int, tuple[bytes, int]],
    groups: _Groups,
) -> None:
    shingles = {i: _shingles(_body(candidates[i])) for i in members}
    for a, b in combinations(members, 2):
        if prints[a][0] != prints[b][0] and _overlap(shingles[a], shingles[b]) >= NEAR_IDENTICAL:
            groups.join(a, b)


def _shingles(body: str) -> set[tuple[str, ...]]:
    words = body.casefold().split()[:MAX_COMPARED_WORDS]
    return {tuple(words[i : i + 3]) for i in range(max(1, len(words) - 2))}


def _overlap(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


class _Groups:
    """Union-find over candidate indexes."""

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}

    def _root(self, i: int) -> int:
        root = self._parent.setdefault(i, i)
        while self._parent[root] != root:
            root = self._parent[root]
        while i != root:  # path compression: the next look-up is one step
            self._parent[i], i = root, self._parent[i]
        return root

    def join(self, a: int, b: int) -> None:
        self._parent[self._root(b)] = self._root(a)

    def join_all(self, members: list[int]) -> None:
        for other in members[1:]:
            self.join(members[0], other)

    def sets(self) -> list[list[int]]:
        found: defaultdict[int, list[int]] = defaultdict(list)
        for i in self._parent:
            found[self._root(i)].append(i)
        return [members for members in found.values() if len(members) > 1]


class _Fingerprints:
    """Per body: a digest of its folded text and the folded length, computed once per version of
    the body. Keyed by the text's own hash and length, so no text is kept alive by the cache."""

    def __init__(self, kept: int) -> None:
        self._kept = kept
        self._known: OrderedDict[tuple[int, int], tuple[bytes, int]] = OrderedDict()
        self._lock = threading.Lock()

    def of(self, body: str) -> tuple[bytes, int]:
        key = (hash(body), len(body))
        with self._lock:
            known = self._known.get(key)
            if known is not None:
                self._known.move_to_end(key)
                return known
        folded = " ".join(body.casefold().split())
        found = (hashlib.blake2b(folded.encode(), digest_size=16).digest(), len(folded))
        with self._lock:
            self._known[key] = found
            while len(self._known) > self._kept:
                self._known.popitem(last=False)
        return found


_FINGERPRINTS = _Fingerprints(FINGERPRINTS_KEPT)
