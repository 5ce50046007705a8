"""``skills.search`` by meaning: every skill of the agent ranked for a query with the selection's
own embedding index (the same documents, so the vectors selection cached are reused)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agent_core.agent.skill_files.definition import Skill
from agent_core.context.selection import ContextSelector
from agent_core.context.skill_source import skill_document
from agent_core.errors import SelectionUnavailableError
from indexer import IndexerError, SelectionSettings

__all__ = ["SEARCH_MODEL_WAIT_SECONDS", "skill_ranker"]

#: How long a search waits for the embedding model before it ranks by words alone.
SEARCH_MODEL_WAIT_SECONDS = 5.0


def skill_ranker(selector: ContextSelector) -> Callable[[str, Sequence[Skill]], list[tuple[str, float]]]:
    """A blocking ranker of skills for a query, best first as (name, score).

    Raises (from the ranker):
        SelectionUnavailableError: the embedding model is not ready or failed.
    """

    def rank(query: str, skills: Sequence[Skill]) -> list[tuple[str, float]]:
        documents = [skill_document(skill) for skill in skills]
        names = {document.key: skill.name for document, skill in zip(documents, skills, strict=True)}
        try:
            if not selector.indexer.wait_until_ready(SEARCH_MODEL_WAIT_SECONDS):
                raise SelectionUnavailableError("the embedding model is still loading")
            selection = selector.indexer.select(query, documents, SelectionSettings(top_n=len(documents)))
        except (IndexerError, ValueError) as error:
            raise SelectionUnavailableError(str(error)) from error
        return [(names[c.key], round(c.score, 4)) for c in selection.best(len(documents)) if c.key in names]

    return rank
