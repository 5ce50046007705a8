"""One plug-in mechanism for every kind: entry points, the duplicate-name rule, broken plug-ins, unknown names.

The third-party plug-ins are real installed distributions (tests/fixtures/plugins): a folder with
a package and its .dist-info/entry_points.txt, put on sys.path as site-packages would be.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from agent_core.agent.importers import IMPORTERS, AgentImportError, read_source
from agent_core.agent.scaffold import create_agent
from agent_core.budget.counting import TOKEN_COUNTERS, counter_for
from agent_core.chat.item_kinds import CHAT_ITEM_KINDS
from agent_core.context.embedding_model import configured_backend
from agent_core.context.request_tools import REQUEST_TOOLS
from agent_core.context.sources import CONTEXT_SOURCES, ContextRequest, default_sources
from agent_core.embedding_backends import EMBEDDING_BACKENDS
from agent_core.paths import user_dirs
from agent_core.plugins import PluginError, PluginRegistry
from agent_core.providers.base import ProviderSettings
from agent_core.providers.registry import PROVIDERS, create_provider

REGISTRIES: dict[str, PluginRegistry[Any]] = {
    "providers": PROVIDERS,
    "embedding_backends": EMBEDDING_BACKENDS,
    "importers": IMPORTERS,
    "token_counters": TOKEN_COUNTERS,
    "context_sources": CONTEXT_SOURCES,
    "chat_item_kinds": CHAT_ITEM_KINDS,
    "request_tools": REQUEST_TOOLS,
}
BUILT_INS = {
    "providers": {"anthropic", "gemini", "local", "openai", "openai-compatible", "scripted"},
    "embedding_backends": {"onnx", "sentence-transformers"},
    "importers": {"tsagent", "cursor", "mcp-json"},
    "token_counters": {"model-tokenizer", "cl100k", "estimate"},
    "context_sources": {"rules", "references", "tools"},
    "chat_item_kinds": {"skills"},
    "request_tools": {"second-opinion"},
}
KINDS = list(REGISTRIES)


@pytest.fixture(autouse=True)
def unloaded_registries(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test loads the registries afresh, seeing the distributions it installed; restored after."""
    for registry in REGISTRIES.values():
        monkeypatch.setattr(registry, "_plugins", {})
        monkeypatch.setattr(registry, "_loaded", False)


def install(fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch, distribution: str) -> None:
    monkeypatch.syspath_prepend(str(fixtures_dir / "plugins" / distribution))


@pytest.fixture
def example_plugins(fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(fixtures_dir, monkeypatch, "example")


@pytest.fixture
def broken_plugins(fixtures_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    install(fixtures_dir, monkeypatch, "broken")
    monkeypatch.delitem(sys.modules, "contextdesk_broken_plugins.fails_on_import", raising=False)


@pytest.mark.parametrize("kind", KINDS)
def test_built_ins_are_registered_like_plugins_in_the_contextdesk_group(kind: str) -> None:
    registry = REGISTRIES[kind]
    assert registry.entry_point_group == f"contextdesk.{kind}"
    assert all(hook.endswith(f":register_{kind}") for hook in registry.builtins)
    assert BUILT_INS[kind] <= set(registry.names())


# --- third-party plug-ins, one per kind, through their entry points ---------------------------------


def test_an_installed_provider_plugin_creates_providers_of_its_type(example_plugins: None) -> None:
    provider = create_provider(ProviderSettings(provider_id="mine", type="echo"))
    assert type(provider).__name__ == "EchoProvider"
    assert "echo" in PROVIDERS.names()


def test_an_installed_embedding_backend_can_be_chosen_in_settings_json(example_plugins: None) -> None:
    settings = user_dirs().settings_file
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"indexer": {"backend": "constant", "model": "m", "threads": 2}}))
    backend = configured_backend()
    assert backend.model_id == "constant:m:2"
    assert backend.embed(["a", "b"]).shape == (2, 3)


def test_an_installed_importer_reads_the_files_it_detects(example_plugins: None, tmp_path: Path) -> None:
    notes = tmp_path / "team.notes"
    notes.write_text("Answer in French.")
    imported = read_source(notes)
    assert (imported.report.source_format, imported.system_prompt) == ("plain notes", "Answer in French.")


def test_an_installed_token_counter_takes_over_where_its_priority_puts_it(example_plugins: None) -> None:
    claude = counter_for(None, "anthropic", "claude-sonnet-4")
    assert (claude.name, claude.count("three short words")) == ("words", 3)
    assert counter_for(None, "openai", "gpt-4-turbo").name == "cl100k_base"  # a higher priority
    assert counter_for(None, "gemini", "gemini-2.5-flash").name == "estimate"  # it declines


def test_an_installed_context_source_offers_its_items_to_selection(
    example_plugins: None, tmp_path: Path
) -> None:
    agent = create_agent(tmp_path / "agent")
    request = ContextRequest(
        agent=agent, message="what is our SLA?", previous_message=None, chat_items=(), tools=()
    )
    names = [name for name, _source in CONTEXT_SOURCES.plugins()]
    assert names[:3] == ["rules", "references", "tools"] and "glossary" in names
    offered = [c.ref.name for source in default_sources() for c in source.candidates(request)]
    assert "glossary-sla" in offered


def test_an_unknown_importer_format_lists_what_the_installed_importers_expect(
    example_plugins: None, tmp_path: Path
) -> None:
    with pytest.raises(AgentImportError, match=r"Cursor rules .* or a \.notes file"):
        read_source(tmp_path)


# --- the same rules for every kind --------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_a_taken_name_is_refused_with_plugin_error(kind: str) -> None:
    registry = REGISTRIES[kind]
    name = sorted(BUILT_INS[kind])[0]
    with pytest.raises(
        PluginError, match=f"Two plug-ins register the {registry.noun} '{name}'.*uninstall one"
    ):
        registry.register(name, object())
    registry.register(name, registry.get(name))  # the same plug-in again is no clash


@pytest.mark.parametrize("kind", KINDS)
def test_an_unknown_name_is_a_plugin_error_listing_the_known_ones(kind: str) -> None:
    registry = REGISTRIES[kind]
    with pytest.raises(PluginError, match=f"Unknown {registry.noun} 'nope'") as raised:
        registry.get("nope")
    message = str(raised.value)
    assert all(name in message for name in BUILT_INS[kind])
    assert f"contextdesk.{kind}" in message


@pytest.mark.parametrize("kind", KINDS)
def test_a_broken_plugin_is_logged_by_name_and_skipped_while_the_built_ins_work(
    kind: str, broken_plugins: None, caplog: pytest.LogCaptureFixture
) -> None:
    registry = REGISTRIES[kind]
    with caplog.at_level(logging.ERROR, logger="agent_core.plugins"):
        names = set(registry.names())
    assert BUILT_INS[kind] <= names
    logged = [record.getMessage() for record in caplog.records]
    assert any(
        f"contextdesk.{kind} plug-in 'fails-on-import'" in line and "failed to load and is skipped" in line
        for line in logged
    )
    # A plug-in that claims a built-in's name is skipped whole, not half registered.
    assert f"new-{kind}" not in names
    assert any("'takes-a-built-in-name'" in line for line in logged)
    assert any("Two plug-ins register" in (record.exc_text or "") for record in caplog.records)


def test_the_built_ins_keep_working_beside_a_broken_plugin(broken_plugins: None, tmp_path: Path) -> None:
    assert (
        type(create_provider(ProviderSettings(provider_id="s", type="scripted"))).__name__
        == "ScriptedProvider"
    )
    (tmp_path / ".cursorrules").write_text("Be brief.")
    assert read_source(tmp_path).report.source_format.startswith("Cursor")
    assert counter_for(None, "anthropic", "claude-sonnet-4").name == "estimate"


# --- the registry itself -----------------------------------------------------------------------


def write_module(folder: Path, name: str, source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    (folder / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.delitem(sys.modules, name, raising=False)


def test_built_in_hooks_are_imported_on_first_use_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_module(
        tmp_path,
        "lazy_colours",
        "def register_colours(register):\n    register('red', '#f00')\n",
        monkeypatch,
    )
    colours: PluginRegistry[str] = PluginRegistry(
        "colours", noun="colour", builtins=("lazy_colours:register_colours",)
    )
    assert "lazy_colours" not in sys.modules
    assert colours.get("red") == "#f00"
    assert "lazy_colours" in sys.modules


def test_a_hook_that_is_not_callable_is_skipped_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    write_module(tmp_path, "no_hook_here", "register_colours = 'not a function'\n", monkeypatch)
    colours: PluginRegistry[str] = PluginRegistry("colours", noun="colour", builtins=("no_hook_here",))
    with caplog.at_level(logging.ERROR, logger="agent_core.plugins"):
        assert colours.names() == []
    assert "point the entry point at that function" in caplog.text


def test_concurrent_first_uses_load_the_plugins_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_module(
        tmp_path,
        "counted_colours",
        "calls = []\ndef register_colours(register):\n    calls.append(1)\n    register('red', '#f00')\n",
        monkeypatch,
    )
    colours: PluginRegistry[str] = PluginRegistry(
        "colours", noun="colour", builtins=("counted_colours:register_colours",)
    )
    start = threading.Barrier(8)
    results: list[list[str]] = []

    def first_use() -> None:
        start.wait(timeout=10)
        results.append(colours.names())

    threads = [threading.Thread(target=first_use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert results == [["red"]] * 8
    assert sys.modules["counted_colours"].calls == [1]
