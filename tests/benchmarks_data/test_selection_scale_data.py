"""The selection-at-scale data set stays sane: benchmarks/selection/scale_validate.py finds no
problem in the committed files, and finds the ones a bad edit would make."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.scripts import load_script

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "selection"


@pytest.fixture(scope="module")
def validate() -> ModuleType:
    return load_script("benchmarks/selection/scale_validate.py")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    copy = tmp_path / "scale"
    shutil.copytree(BENCHMARK / "scale", copy)
    return copy


def _append(path: Path, row: dict[str, object]) -> None:
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")


def test_the_committed_data_set_has_no_problem(validate: ModuleType) -> None:
    problems, summary = validate.validate()
    assert problems == []
    assert summary.startswith("items: ")


def test_a_label_naming_no_item_is_reported(validate: ModuleType, data: Path) -> None:
    _append(
        data / "messages_dev.jsonl",
        {
            "id": "d999",
            "message": "log my swim on garmin",
            "expected": ["garmin-automation"],
            "tags": ["app"],
        },
    )
    problems, _ = validate.validate(data)
    assert problems == ["message 'd999': 'garmin-automation' is not an item"]


def test_a_message_written_twice_across_the_splits_is_reported(validate: ModuleType, data: Path) -> None:
    first = json.loads((data / "messages_dev.jsonl").read_text(encoding="utf-8").splitlines()[0])
    _append(data / "messages_holdout.jsonl", {**first, "id": "h999"})
    problems, _ = validate.validate(data)
    assert problems == [f"messages: message {first['message'].strip().lower()!r} used 2 times"]


def test_nothing_needed_must_agree_with_the_labels(validate: ModuleType, data: Path) -> None:
    _append(
        data / "messages_dev.jsonl",
        {"id": "d998", "message": "good night", "expected": [], "tags": ["short"]},
    )
    problems, _ = validate.validate(data)
    assert problems == ["message 'd998': tagged nothing-needed exactly when nothing is expected"]


def test_a_library_name_that_is_no_item_is_reported(validate: ModuleType, data: Path) -> None:
    library = data / "library31.txt"
    lines = library.read_text(encoding="utf-8").splitlines()
    library.write_text("\n".join([*lines[:-1], "not-an-item"]) + "\n", encoding="utf-8")
    problems, _ = validate.validate(data)
    assert "library31.txt: 'not-an-item' is not an item" in problems


def _first_pack_row(data: Path) -> dict[str, object]:
    row: dict[str, object] = json.loads((data / "app_pack.jsonl").read_text(encoding="utf-8").splitlines()[0])
    return row


def test_a_pack_item_named_like_an_item_is_reported(validate: ModuleType, data: Path) -> None:
    _append(data / "app_pack.jsonl", {**_first_pack_row(data), "name": "slack-automation"})
    problems, _ = validate.validate(data)
    assert problems == [
        "app_pack.jsonl 'slack-automation': name used twice (the items and the pack share one namespace)"
    ]


def test_a_pack_item_off_the_template_is_reported(validate: ModuleType, data: Path) -> None:
    row = _first_pack_row(data)
    _append(
        data / "app_pack.jsonl",
        {**row, "name": "other-automation", "description": "Send Other messages.", "group": "collection"},
    )
    problems, summary = validate.validate(data)
    assert problems == [
        "app_pack.jsonl 'other-automation': group 'collection'; expected 'app-pack'",
        "app_pack.jsonl 'other-automation': description does not follow the app template",
    ]
    assert "app pack: " in summary
