"""A run's input: JSON gives the store its keys; plain text is the value of the workflow's one
required text input (``/run release-notes Bluefin 0.9.2``), and anything else says what to give."""

from __future__ import annotations

import pytest

from agent_core.agent.workflow_files.schema import WorkflowInput
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.inputs import initial_store

TOPIC = {"topic": WorkflowInput(description="What to write about")}


def test_plain_text_is_the_one_required_text_input() -> None:
    assert initial_store("bird feeders", TOPIC) == {"topic": "bird feeders"}
    with_optional = {**TOPIC, "words": WorkflowInput(type="integer", required=False, default=50)}
    assert initial_store("  bird feeders \n", with_optional) == {"topic": "bird feeders", "words": 50}


def test_json_input_still_gives_its_keys() -> None:
    assert initial_store('{"topic": "tea"}', TOPIC) == {"topic": "tea"}


@pytest.mark.parametrize(
    "inputs",
    [
        {**TOPIC, "notes": WorkflowInput()},  # two required inputs: which one the text is is a guess
        {"count": WorkflowInput(type="integer")},  # not a text input
    ],
)
def test_plain_text_that_cannot_be_placed_says_which_input_to_give(inputs: dict[str, WorkflowInput]) -> None:
    with pytest.raises(WorkflowError, match="is required: give it in the JSON input"):
        initial_store("bird feeders", inputs)
