"""settings.json: the indexer's backend and thread count, read when the model loads."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from agent_core.app_settings import THREADS_ENV, SettingsError, load_app_settings
from agent_core.context.embedding_model import configured_indexer
from agent_core.paths import user_dirs


def write_settings(content: object) -> Path:
    path = user_dirs().settings_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return path


def test_no_file_means_the_defaults() -> None:
    settings = load_app_settings()
    assert (settings.indexer.backend, settings.indexer.threads) == ("onnx", None)


def test_threads_come_from_the_file_and_the_variable_overrides_them(monkeypatch: pytest.MonkeyPatch) -> None:
    write_settings({"indexer": {"threads": 3}})
    assert load_app_settings().indexer.threads == 3
    monkeypatch.setenv(THREADS_ENV, "1")
    assert load_app_settings().indexer.threads == 1
    monkeypatch.setenv(THREADS_ENV, "many")
    with pytest.raises(SettingsError, match="whole number of cores"):
        load_app_settings()


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("{not json", "not valid JSON .*line 1"),
        ({"indexer": {"thread": 2}}, "unknown key 'indexer.thread'.*did you mean 'threads'"),
        ({"indexer": {"threads": 0}}, "indexer.threads.*greater than or equal to 1"),
        (
            {"indexer": {"backend": "torch"}},
            "indexer.backend.*Unknown embedding backend 'torch'.*onnx, sentence-transformers",
        ),
    ],
)
def test_a_file_that_cannot_be_used_says_where_and_how_to_fix_it(content: object, expected: str) -> None:
    path = write_settings(content)
    with pytest.raises(SettingsError, match=expected) as raised:
        load_app_settings()
    assert str(path) in str(raised.value) and "delete" in str(raised.value)
    assert path.read_text(encoding="utf-8") == (content if isinstance(content, str) else json.dumps(content))


@pytest.mark.slow
def test_the_indexer_loads_with_the_configured_threads(tmp_path: Path) -> None:
    write_settings({"indexer": {"threads": 1}})
    indexer = configured_indexer(tmp_path / "cache")
    try:
        indexer.start_loading()
        assert indexer.wait_until_ready(60)
        assert indexer._require_backend()._workers == 1  # type: ignore[attr-defined]
    finally:
        indexer.close()


@pytest.mark.slow
def test_a_broken_file_still_loads_the_default_model_and_logs_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    write_settings("{broken")
    indexer = configured_indexer(tmp_path / "cache")
    try:
        with caplog.at_level(logging.WARNING):
            indexer.start_loading()
            assert indexer.wait_until_ready(60)
        assert indexer.model_id  # loaded
        assert any("settings.json is not valid JSON" in r.getMessage() for r in caplog.records)
    finally:
        indexer.close()
