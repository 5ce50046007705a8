"""Each skill's trust warnings (hidden characters, instructions against the user) for the Skills
section, read off the GUI thread and handed over in batches as they are found.

Reading every file of a thousand skills takes a while, and one 1.6 MB SKILL.md takes seconds, so the
core's :class:`~agent_core.agent.skill_files.trust_check.TrustCache` keeps what was found: after a
reload only the skills whose files changed are read again. A newer agent's check drops an older one's.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Sequence

from PySide6.QtCore import QObject, Signal

from agent_core.agent.agent import Agent
from agent_core.agent.items import Problem
from agent_core.agent.skill_files.definition import Skill
from agent_core.agent.skill_files.trust_check import TrustCache
from desktop.bridge import CoreBridge, Generation

__all__ = ["BATCH_SECONDS", "SkillTrustChecks", "TrustBatch"]

BATCH_SECONDS = 0.25  # a batch is handed over after this long, so the first warnings show soon

TrustBatch = dict[str, tuple[Problem, ...]]  # skill name -> its warnings (empty: none found)


class SkillTrustChecks(QObject):
    """:meth:`check` an agent; ``checked`` brings each batch of skills checked (every skill of the
    agent comes in one batch or another, with no warnings when none were found)."""

    checked = Signal(object)  # TrustBatch

    def __init__(self, bridge: CoreBridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.bridge = bridge
        self.cache = TrustCache()
        self._generation = Generation()

    def check(self, agent: Agent | None) -> None:
        """Check ``agent``'s skills (None: stop checking the previous agent's)."""
        token = self._generation.next()
        if agent is None:
            return
        skills = list(agent.skills.values())
        self.cache.forget_all_but(skill.path for skill in skills if skill.path is not None)

        def deliver(batch: TrustBatch) -> None:
            if self._generation.is_current(token):
                self.checked.emit(batch)

        self.bridge.stream(lambda: self._batches(skills, token), deliver)

    async def _batches(self, skills: Sequence[Skill], token: int) -> AsyncIterator[TrustBatch]:
        start = 0
        while start < len(skills) and self._generation.is_current(token):
            batch, start = await asyncio.to_thread(self._check_some, skills, start)
            yield batch

    def _check_some(self, skills: Sequence[Skill], start: int) -> tuple[TrustBatch, int]:
        """Skills from ``start`` on, for about :data:`BATCH_SECONDS`; the batch and where to go on."""
        until = time.monotonic() + BATCH_SECONDS
        batch: TrustBatch = {}
        position = start
        while position < len(skills) and (position == start or time.monotonic() < until):
            skill = skills[position]
            batch[skill.name] = tuple(self.cache.problems(skill))
            position += 1
        return batch, position
