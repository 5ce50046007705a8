"""Near twins: of two chosen items that say the same thing, only the better-scored one is offered.

A library gathered from several collections holds the same skill written twice by different
people: ``postmortem`` and ``postmortem-writing``, ``drawio`` and ``draw-io-diagram-generator``,
``stripe-integration`` and ``stripe-integration-expert``. Their bodies differ, so duplicate folding
(agent_core/context/duplicates.py) keeps both, and both clear the floor for the same message: the
second takes a place and the model's attention for nothing it does not already have. Their heads
(name and description) tell: two items whose heads are at least ``twin_similarity`` alike are
twins, and a twin of a better-scored chosen item is left out (shown as a near-miss). Measured on
the selection-at-scale set: twins score 0.51-0.77 alike, items one message needs together 0.08-0.42,
so the default 0.7 folds only the closest. Tools are never folded (two servers' alike tools act on
different things), and the user's corrections still win (they are applied after this).
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
    is_tool: npt.NDArray[np.bool_],
    threshold: float,
) -> npt.NDArray[np.intp]:
    """The items of ``chosen`` (best first) whose head is at least ``threshold`` alike to the head
    of a better one kept before them."""
    kept: list[int] = []
    folded: list[int] = []
    for item in (int(i) for i in chosen):
        if is_tool[item] or heads[item] < 0:
            continue
        vector = matrix[heads[item]]
        if kept and float(np.max(matrix[heads[kept]] @ vector)) >= threshold:
            folded.append(item)
        else:
            kept.append(item)
    return np.asarray(folded, dtype=np.intp)
