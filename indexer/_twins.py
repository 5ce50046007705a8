"""Near twins: of two chosen items that say the same thing, only the better-scored one is offered.

A library gathered from several collections holds the same skill written twice by different
people: ``postmortem`` and ``postmortem-writing``, ``drawio`` and ``draw-io-diagram-generator``,
``stripe-integration`` and ``stripe-integration-expert``. Their bodies differ, so duplicate folding
(agent_core/context/duplicates.py) keeps both, and both clear the floor for the same message: the
second takes a place and the model's attention for nothing it does not already have. Their heads
(name and description: an item's first chunk, already embedded) tell: two chosen items whose heads
are at least ``twin_similarity`` alike are twins, and the twin of a better-scored one is left out
(shown as a near-miss). Only items chosen for what their head says are compared: a skill (judged on
its name and description) or a rule or reference whose best match was its head. Notes on one topic
with alike descriptions, each chosen for its own facts, are not twins. Measured on the
selection-at-scale set: twins' heads are 0.51-0.77 alike, items one message needs together
0.08-0.42, so the default 0.7 folds only the closest. Tools are never folded (two servers' alike
tools act on different things), and the user's corrections still win (they are applied after
this).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from indexer.backends import FloatMatrix

__all__ = ["head_chunks", "twins_of_better"]


def head_chunks(chunk_item: npt.NDArray[np.intp], n_items: int) -> npt.NDArray[np.intp]:
    """Per item, its first chunk (its head: ``name: description``), -1 for an item without one."""
    heads = np.full(n_items, -1, dtype=np.intp)
    items, first = np.unique(chunk_item, return_index=True)
    heads[items] = first
    return heads


def twins_of_better(
    chosen: npt.NDArray[np.intp],
    matrix: FloatMatrix,
    heads: npt.NDArray[np.intp],
    by_head: npt.NDArray[np.bool_],
    threshold: float,
) -> npt.NDArray[np.intp]:
    """The items of ``chosen`` (best first) whose head is at least ``threshold`` alike to the head
    of a better one kept before them; only items ``by_head`` (chosen for what their head says, not
    tools) are compared."""
    kept: list[int] = []
    folded: list[int] = []
    for item in (int(i) for i in chosen):
        if not by_head[item] or heads[item] < 0:
            continue
        vector = matrix[heads[item]]
        if kept and float(np.max(matrix[heads[kept]] @ vector)) >= threshold:
            folded.append(item)
        else:
            kept.append(item)
    return np.asarray(folded, dtype=np.intp)
