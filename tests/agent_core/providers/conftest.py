from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.fake_api import FakeApi


@pytest.fixture
def fake_api() -> Iterator[FakeApi]:
    api = FakeApi()
    yield api
    api.close()
