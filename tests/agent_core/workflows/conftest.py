from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.workflow_runner import Runner


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    return Runner(tmp_path)
