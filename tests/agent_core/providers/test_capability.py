"""A model's limits are known before a sub-agent, a workflow or a compaction runs on it: the
bundled model is limited without asking it; another model is probed once with two tiny requests
(scripted here, never the network), kept for a week, and unknown when the probe gets no answer."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agent_core.errors import ProviderUnavailableError
from agent_core.providers.base import ProviderSettings
from agent_core.providers.capability import ModelCapability
from agent_core.providers.capability_cache import (
    CAPABILITY_MAX_AGE_S,
    CapabilityCache,
    cached_capability,
    model_capability,
)
from agent_core.providers.limit_warning import limit_warning
from agent_core.providers.local_llama import DEFAULT_MODEL_ID, LocalLlamaProvider
from agent_core.providers.scripted import ScriptedProvider

GOOD_JSON = '{"name": "Lighthouse Cafe", "city": "Porto", "opened": 2019, "seats": 42}'


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def capable_script(provider: ScriptedProvider) -> None:
    provider.enqueue_tool_call("add_numbers", {"a": 17, "b": 25})
    provider.enqueue_reply("```json\n" + GOOD_JSON + "\n```")


def check(provider: ScriptedProvider, cache: CapabilityCache, ref: str = "cloud:big") -> ModelCapability:
    return asyncio.run(model_capability(provider, "big", ref, cache))


def test_the_bundled_model_is_limited_without_a_single_request(tmp_path: Path) -> None:
    provider = LocalLlamaProvider(ProviderSettings(provider_id="offline", type="local"))
    cache = CapabilityCache(tmp_path / "caps.json")
    found = asyncio.run(model_capability(provider, DEFAULT_MODEL_ID, "offline:" + DEFAULT_MODEL_ID, cache))
    assert (found.source, found.tool_choice, found.json_schema) == ("known", False, False)
    assert found.limited and not (tmp_path / "caps.json").exists()
    warning = limit_warning(found, "workflow")
    assert warning == (
        f"offline:{DEFAULT_MODEL_ID} is small: it may not give each workflow step the output the next one needs; "
        "a step whose output does not fit the next one stops the run for review."
    )


def test_a_model_that_calls_the_tool_and_follows_the_schema_is_capable_and_asked_only_once(
    tmp_path: Path,
) -> None:
    provider = ScriptedProvider()
    capable_script(provider)
    clock = Clock()
    cache = CapabilityCache(tmp_path / "caps.json", now=clock)
    first = check(provider, cache)
    assert first.capable and first.source == "probed"
    assert limit_warning(first, "subagent") is None
    tool_request, json_request = provider.requests
    assert {tool.name for tool in tool_request.tools} == {"add_numbers", "get_weather"}
    assert not json_request.tools and '"seats"' in json_request.messages[-1].content
    # Kept: the next check asks nothing (an empty script would fail any request).
    again = check(provider, CapabilityCache(tmp_path / "caps.json", now=clock))
    assert again.capable and len(provider.requests) == 2
    assert json.loads((tmp_path / "caps.json").read_text())["models"]["cloud:big"]["tool_choice"] is True


def test_a_model_that_answers_in_prose_fails_both_checks_and_is_warned_about(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply("17 + 25 = 42")
    provider.enqueue_reply('Sure! Here it is: {"name": "Lighthouse Cafe", "city": "Porto"}')
    found = check(provider, CapabilityCache(tmp_path / "caps.json"))
    assert (found.tool_choice, found.json_schema, found.limited) == (False, False, True)
    assert limit_warning(found, "subagent") == (
        "cloud:big failed the quick check of tool choice and JSON schema: it may not choose the tools "
        "the sub-agent needs, and may describe files it never read; its card will say which tools it "
        "used, or that it used none."
    )


def test_a_wrong_tool_wrong_arguments_or_a_wrong_type_fail(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_tool_call("add_numbers", {"a": 17, "b": 52})
    provider.enqueue_reply(GOOD_JSON.replace("2019", '"2019"'))
    found = check(provider, CapabilityCache(tmp_path / "caps.json"))
    assert (found.tool_choice, found.json_schema) == (False, False)


def test_no_answer_means_unknown_not_capable_and_is_asked_again_next_time(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderUnavailableError("connection refused: check the network"))
    cache = CapabilityCache(tmp_path / "caps.json")
    found = check(provider, cache)
    assert found.source == "unknown" and not found.capable and not found.limited
    warning = limit_warning(found, "compaction")
    assert warning is not None and warning.startswith(
        "cloud:big could not be checked (the quick check got no"
    )
    assert not (tmp_path / "caps.json").exists()
    capable_script(provider)
    assert check(provider, cache).capable


def test_a_kept_result_expires_after_a_week(tmp_path: Path) -> None:
    provider = ScriptedProvider()
    capable_script(provider)
    clock = Clock()
    cache = CapabilityCache(tmp_path / "caps.json", now=clock)
    check(provider, cache)
    clock.now += CAPABILITY_MAX_AGE_S + 1
    assert cached_capability(provider, "big", "cloud:big", cache).source == "unknown"
    provider.enqueue_reply("no tools here")
    provider.enqueue_reply(GOOD_JSON)
    again = check(provider, cache)
    assert (again.tool_choice, again.json_schema) == (False, True)


def test_a_damaged_file_counts_as_empty_and_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "caps.json"
    path.write_text('{"version": 1, "models": {"cloud:big": {"tool_choice": "maybe"}}}')
    provider = ScriptedProvider()
    capable_script(provider)
    cache = CapabilityCache(path)
    assert cached_capability(provider, "big", "cloud:big", cache).source == "unknown"
    assert check(provider, cache).capable
    assert cache.get("cloud:big") is not None
