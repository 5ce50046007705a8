"""Mock outputs: what answers a run's assistant states instead of a model (``--mock-outputs``,
the desktop's "use mock outputs"), a JSON list of ``{"state_id", "output"}`` played in order."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.workflows.errors import WorkflowError

__all__ = ["EXPECTED", "MockOutputs", "parse_mock_outputs"]

EXPECTED = (
    'a JSON list of {"state_id": ..., "output": ...} objects, one per assistant state in the order they run'
)


class MockOutputs:
    """Outputs to answer assistant states with instead of a model, played in order."""

    def __init__(self, entries: Sequence[Mapping[str, Any]]) -> None:
        self._entries = list(entries)

    def next_for(self, state_id: str) -> str:
        """The output for ``state_id``, the next one in the list.

        Raises:
            WorkflowError: the list ran out, or its next output is for another state.
        """
        if not self._entries:
            raise WorkflowError(f"state '{state_id}': the mock outputs ran out; add one for it")
        entry = self._entries.pop(0)
        if entry.get("state_id") != state_id:
            raise WorkflowError(
                f"state '{state_id}' ran, but the next mock output is for '{entry.get('state_id')}': "
                "put the mock outputs in the order the states run"
            )
        output = entry.get("output", "")
        return output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)


def parse_mock_outputs(text: str) -> list[dict[str, Any]]:
    """The entries of mock outputs written as JSON text.

    Raises:
        WorkflowError: the text is not a JSON list, or an entry is not an object with a
            ``state_id`` (the message says what to write instead).
    """
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as error:
        raise WorkflowError(
            f"not a JSON list ({error.msg} at line {error.lineno}, column {error.colno}): write {EXPECTED}"
        ) from None
    except RecursionError:
        raise WorkflowError(f"not a JSON list (nested too deeply): write {EXPECTED}") from None
    if not isinstance(entries, list):
        raise WorkflowError(f"not a JSON list but a JSON {type(entries).__name__}: write {EXPECTED}")
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("state_id"), str):
            raise WorkflowError(
                f"each mock output is an object with a state_id, and number {number} is not: write {EXPECTED}"
            )
    return entries
