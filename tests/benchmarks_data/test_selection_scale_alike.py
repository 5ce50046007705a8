"""The lenient figure beside the scale benchmark's strict one: an offered item alike to a labelled
one counts as that label, once; anything else offered still costs precision."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from tests.support.scripts import load_script

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "selection"


@pytest.fixture(scope="module")
def alike() -> ModuleType:
    return load_script("benchmarks/selection/scale_alike.py")


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


HEADS = {
    "postmortem-writing": unit(1, 0, 0),
    "postmortem": unit(0.9, 0.3, 0),  # 0.95 alike: another skill for the same job
    "slack-automation": unit(0, 0, 1),
    "schema-markup": unit(0.3, 0.95, 0),  # 0.3 alike: another job
}


def test_an_alternative_to_the_label_counts_as_it(alike: ModuleType) -> None:
    labels = frozenset({"postmortem-writing"})
    assert alike.lenient_f1(["postmortem"], labels, {}, HEADS) == 1.0
    # Offered beside the label, it is the same item once, not a second one.
    assert alike.lenient_f1(["postmortem-writing", "postmortem"], labels, {}, HEADS) == 1.0


def test_an_unlike_item_still_costs_precision(alike: ModuleType) -> None:
    labels = frozenset({"postmortem-writing"})
    assert alike.lenient_f1(["postmortem-writing", "schema-markup"], labels, {}, HEADS) == pytest.approx(
        2 / 3
    )
    assert alike.lenient_f1(["schema-markup"], labels, {}, HEADS) == 0.0


def test_a_copy_counts_as_the_item_it_copies_and_nothing_needed_wants_nothing(alike: ModuleType) -> None:
    same = {"postmortem-copy": "postmortem-writing"}
    assert alike.lenient_f1(["postmortem-copy"], frozenset({"postmortem-writing"}), same, HEADS) == 1.0
    assert alike.lenient_f1([], frozenset(), {}, HEADS) == 1.0
    assert alike.lenient_f1(["slack-automation"], frozenset(), {}, HEADS) == 0.0
