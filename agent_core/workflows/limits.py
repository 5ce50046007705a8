"""A run's caps, counted as it goes: steps, tokens, and the bytes its records store.

Every step is recorded whole (the store and history before and after it, its output), so that
any step can be shown and re-run from on its own; a long loop with a growing history, or an
iteration over a large list, would otherwise fill memory and the database (a 10,000-step cycle
once wrote 8.9 GB). Each step's record is capped (``limits.maxStepBytes``: past it the record
keeps only its outline and the run stops), and so is the run's total (``limits.maxStoredBytes``:
the run stops after the step that passed it). The engine keeps no step in memory: they are in
the database.
"""

from __future__ import annotations

import json
from dataclasses import replace

from pydantic import TypeAdapter

from agent_core.agent.workflow_files.schema import (
    HARD_MAX_STEP_BYTES,
    HARD_MAX_STEPS,
    HARD_MAX_STORED_BYTES,
    WorkflowLimits,
)
from agent_core.workflows.errors import WorkflowError
from agent_core.workflows.records import StepRecord

__all__ = ["RunLimits", "Stopped", "encoded_step", "megabytes"]

_STEP = TypeAdapter(StepRecord)
_OUTLINE_CHARS = 4_000  # what a step over its cap keeps of its task and output


class Stopped(WorkflowError):
    """A cap or a refused approval stopped the run (not a failure of the workflow)."""


def megabytes(size: int) -> str:
    return f"{size / 1_048_576:,.1f} MB" if size >= 1_048_576 else f"{size / 1024:,.0f} KB"


def encoded_step(step: StepRecord) -> bytes:
    return _STEP.dump_json(step)


class RunLimits:
    """One run's counts against its workflow's ``limits``."""

    def __init__(self, limits: WorkflowLimits) -> None:
        self.limits = limits
        self.steps = 0
        self.tokens = 0
        self.stored = 0
        self._over = ""

    def before(self, state_id: str) -> None:
        """Raises Stopped when the run may not start another state."""
        limits = self.limits
        self.stop_if_over()
        if self.steps >= limits.max_steps:
            raise Stopped(
                f"stopped at limits.maxSteps ({limits.max_steps}) before state '{state_id}': raise "
                f"limits.maxSteps in the workflow file (at most {HARD_MAX_STEPS:,}) if it should go on"
            )
        if self.tokens >= limits.max_tokens:
            raise Stopped(
                f"stopped at limits.maxTokens ({limits.max_tokens:,}) before state '{state_id}': raise "
                "limits.maxTokens in the workflow file if it should go on"
            )

    def before_items(self, state_id: str, key: str, count: int) -> None:
        """Raises Stopped when an iteration has more items than the steps the run has left: it
        could never finish them, so none is started (and no task is made for each)."""
        left = self.limits.max_steps - self.steps
        if count > left:
            raise Stopped(
                f"stopped at limits.maxSteps ({self.limits.max_steps}) before state '{state_id}': "
                f"'{key}' holds {count:,} items, more than the {left:,} steps the run has left. Raise "
                f"limits.maxSteps in the workflow file (at most {HARD_MAX_STEPS:,}), or iterate over fewer"
            )

    def stop_if_over(self) -> None:
        """Raises Stopped when a recorded step passed a cap on what the run stores."""
        if self._over:
            raise Stopped(self._over)

    def record(self, step: StepRecord) -> tuple[StepRecord, bytes]:
        """``step`` numbered and encoded for the database, cut to its outline when it passes
        ``maxStepBytes``; counts it, and notes a cap passed (``stop_if_over`` then stops)."""
        step = replace(step, position=self.steps)
        data = encoded_step(step)
        cap = self.limits.max_step_bytes
        if len(data) > cap:
            self._over = (
                f"stopped at limits.maxStepBytes ({megabytes(cap)}): state '{step.state_id}' would store "
                f"{megabytes(len(data))} (the store and history before and after it, and its output). "
                f"Raise limits.maxStepBytes in the workflow file (at most {megabytes(HARD_MAX_STEP_BYTES)}), "
                "or keep less: an output_key, reset_keys_in_context_store, clear_prior_messages"
            )
            step = _outline(step, self._over)
            data = encoded_step(step)
        self.steps += 1
        self.stored += len(data)
        cap = self.limits.max_stored_bytes
        if self.stored > cap and not self._over:
            self._over = (
                f"stopped at limits.maxStoredBytes ({megabytes(cap)}) after state '{step.state_id}': the "
                f"run's {self.steps} steps stored {megabytes(self.stored)} (each keeps the store and "
                "history before and after it). Raise limits.maxStoredBytes in the workflow file (at "
                f"most {megabytes(HARD_MAX_STORED_BYTES)}), or keep less: reset_keys_in_context_store, "
                "clear_prior_messages, fewer steps"
            )
        return step, data


def _outline(step: StepRecord, error: str) -> StepRecord:
    """What is kept of a step too large to record: its task and output cut short, no snapshots."""
    item = step.item if len(json.dumps(step.item, default=str)) <= _OUTLINE_CHARS else None
    return replace(
        step,
        store_before={},
        history_before=(),
        store_after={},
        history_after=(),
        rendered_task=_cut(step.rendered_task),
        rendered_args=None,
        item=item,
        raw_output=_cut(step.raw_output),
        parsed_output=None,
        added={},
        changed={},
        removed={},
        request_context=None,
        status="failed",
        error=error,
    )


def _cut(text: str) -> str:
    return text if len(text) <= _OUTLINE_CHARS else text[:_OUTLINE_CHARS] + "…"
