"""Mock outputs: what answers a run's assistant states instead of a model (``--mock-outputs``,
the desktop's "use mock outputs"), a JSON list of ``{"state_id", "output"}`` played in order."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.workflows.errors import WorkflowError

__all__ = ["MockOutputs"]


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
