"""benchmarks/import_corpus.py on the small real-shaped corpus of MCP configs (issue #17, "Measured"):
no traceback, no half-written agent, every failure with a message, >= 97 % of servers intact."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "import_corpus.py"
CORPUS = ROOT / "tests" / "fixtures" / "import_corpus"


@pytest.fixture(scope="module")
def corpus_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("import_corpus_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_corpus_imports_without_tracebacks_and_with_servers_intact(corpus_script: ModuleType) -> None:
    report = corpus_script.run_corpus(CORPUS)
    told = "\n".join(report.lines())
    assert report.files >= 15
    assert report.tracebacks == 0, told
    assert report.half_written == 0, told
    assert report.imported + report.failed == report.files
    assert report.failed == 1 and "broken/mcp.json" in report.failures[0] and "line 3" in report.failures[0]
    assert report.servers_in_sources >= 28
    assert report.servers_in_sources == report.servers_in_agents
    assert report.intact_share >= corpus_script.GOAL_INTACT, told
    assert report.differences == [], told


def test_a_server_that_loses_an_argument_or_goes_missing_is_counted_as_a_difference(
    corpus_script: ModuleType, tmp_path: Path
) -> None:
    # Sanity of the measurement: compare against a source the importer cannot fully carry.
    (tmp_path / "mcp.json").write_text(
        textwrap.dedent("""\
            {"mcpServers": {
              "ok": {"command": "uvx", "args": ["a"], "env": {"API_KEY": "sk-abcdefghijklmnopqrstuvwx"}},
              "no-transport": {"type": "websocket", "url": "ws://x"}
            }}"""),
        encoding="utf-8",
    )
    report = corpus_script.run_corpus(tmp_path)
    assert report.servers_in_sources == 2 and report.servers_intact == 1
    assert any("'no-transport' is missing" in line for line in report.differences)
