"""Facets of a person's life and work that requests need without naming them.

"What should I cook tonight?" shares no words and little meaning with "I'm allergic to peanuts",
yet a careful assistant would remember the allergy. Each facet pairs what memories of that sort
say (``about``) with the requests that need them (``needed_by``); a memory strongly about a facet
a message strongly needs is relevant whatever the words (the reason says so). Both sides are
embedded once per model, so this is two small matrix products per recall.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

__all__ = ["FACETS", "Facet", "FacetSpace"]

Vector = npt.NDArray[np.float32]


class _Embedder(Protocol):
    @property
    def model_id(self) -> str: ...
    def embed(self, texts: Sequence[str]) -> Vector: ...


@dataclass(frozen=True)
class Facet:
    name: str  # as the reason shows it: "needed for: where you live"
    about: tuple[str, ...]
    needed_by: tuple[str, ...]


FACETS: tuple[Facet, ...] = (
    Facet(
        "where you live",
        (
            "I live in a city",
            "I moved to a new city",
            "my home town and neighbourhood",
            "the country I live in",
        ),
        (
            "things to do near me this weekend",
            "local restaurants, shops and events nearby",
            "the weather where I am",
            "a running or cycling route around here",
            "how long my commute takes",
        ),
    ),
    Facet(
        "what you eat",
        (
            "I am allergic to a food",
            "I am vegetarian or vegan",
            "foods I like or never eat",
            "my diet",
        ),
        (
            "what should I cook for dinner",
            "a recipe or a meal plan",
            "recommend a restaurant",
            "a shopping list for groceries",
            "snacks for a party",
        ),
    ),
    Facet(
        "who you work with",
        (
            "my manager is a person",
            "my boss",
            "a colleague on my team and their role",
            "who owns a system at work",
        ),
        (
            "write an email to my boss",
            "a message to my manager",
            "who should I ask at work",
            "prepare for a meeting with my team lead",
        ),
    ),
    Facet(
        "your job",
        (
            "I work as a job title at a company",
            "the service or product I own at work",
            "my role and responsibilities on the team",
        ),
        (
            "prepare my weekly status update",
            "write a short bio about me",
            "update my CV",
            "what should I focus on at work this week",
        ),
    ),
    Facet(
        "how you write code",
        (
            "the programming languages I like to use",
            "my preferred testing framework",
            "my code style: indentation, naming, formatting",
            "my editor and development tools",
        ),
        (
            "write a function or a script for me",
            "write tests for this code",
            "how should you format the code you give me",
            "set up a new project",
        ),
    ),
    Facet(
        "your project's stack",
        (
            "our database and its version",
            "where we deploy and host the service",
            "the cloud, queue, cache and monitoring we use",
            "the framework our app is built with",
        ),
        (
            "write a database migration",
            "how do I deploy after merging",
            "set up monitoring and alerts for the service",
            "can we afford more servers this month",
        ),
    ),
    Facet(
        "your family",
        (
            "my partner, my wife or my husband",
            "my children and their ages",
            "my parents, brother or sister",
            "my pet and its name",
        ),
        (
            "plan a birthday gift for a relative",
            "something to do with my kids",
            "a family holiday",
            "what to pack for my child",
        ),
    ),
    Facet(
        "your schedule",
        (
            "my working hours and days at the office",
            "a recurring meeting time",
            "my appointments and dates",
            "my time zone",
        ),
        (
            "schedule a meeting for me",
            "plan my week",
            "when am I free",
            "remind me what is on my calendar",
        ),
    ),
    Facet(
        "your health and exercise",
        (
            "my exercise routine and sports",
            "an injury or a health condition I have",
            "how much I sleep",
        ),
        (
            "a workout or training plan",
            "a running route or a sport to try",
            "how to stay healthy",
        ),
    ),
)


class FacetSpace:
    """The facets embedded by one model: ``about`` and ``needed`` are unit rows, one per facet."""

    _cache: dict[str, FacetSpace] = {}  # noqa: RUF012 - one per embedding model, shared
    _lock = threading.Lock()

    #: A message needs a facet when it is at least this close to the facet's requests...
    need_floor = 0.45
    #: ...and a memory is about it when at least this close to what such memories say.
    about_floor = 0.35
    #: Per facet a message needs, only the memories most about it are reached: a message about
    #: dinner needs the allergy, not every food memory.
    keep = 2
    #: Relevance through a facet: this × the geometric mean of need and aboutness.
    weight = 0.75

    def __init__(self, facets: Sequence[Facet], about: Vector, needed: Vector) -> None:
        self.facets = tuple(facets)
        self.about = about
        self.needed = needed

    @classmethod
    def of(cls, embedder: _Embedder, facets: Sequence[Facet] = FACETS) -> FacetSpace:
        with cls._lock:
            space = cls._cache.get(embedder.model_id)
            if space is None or space.facets != tuple(facets):
                space = cls(facets, _centroids(embedder, [f.about for f in facets]),
                            _centroids(embedder, [f.needed_by for f in facets]))  # fmt: skip
                cls._cache[embedder.model_id] = space
            return space

    def needs(self, query_vector: Vector) -> Vector:
        """How strongly the message needs each facet (cosine to its requests' centroid)."""
        return self.needed @ np.asarray(query_vector, dtype=np.float32)

    def reach(self, need: Vector, aboutness: Vector) -> tuple[Vector, npt.NDArray[np.int64]]:
        """Relevance through a facet the message needs (0 for rows it does not reach), and
        which facet (-1: none), per row of ``aboutness``."""
        scores = np.zeros(len(aboutness), np.float32)
        which = np.full(len(aboutness), -1, dtype=np.int64)
        for f in np.flatnonzero(need >= self.need_floor).tolist():
            about = aboutness[:, f]
            rows = np.flatnonzero(about >= self.about_floor)
            rows = rows[np.argsort(-about[rows], kind="stable")][: self.keep]
            value = self.weight * np.sqrt(about[rows] * need[f])
            better = value > scores[rows]
            scores[rows[better]] = value[better]
            which[rows[better]] = f
        return scores, which

    def aboutness(self, vectors: Vector) -> Vector:
        """How much each memory (a row of ``vectors``) is about each facet: rows × facets."""
        return vectors @ self.about.T if len(vectors) else np.zeros((0, len(self.facets)), np.float32)


def _centroids(embedder: _Embedder, groups: Sequence[Sequence[str]]) -> Vector:
    rows = []
    for texts in groups:
        centre = np.asarray(embedder.embed(list(texts)), dtype=np.float32).mean(axis=0)
        rows.append(centre / max(float(np.linalg.norm(centre)), 1e-9))
    return np.stack(rows).astype(np.float32)
