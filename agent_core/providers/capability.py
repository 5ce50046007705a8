"""What a model can be trusted with, known before a sub-agent, a workflow or a compaction runs on it.

Two abilities matter there: choosing a tool when asked (a sub-agent reads files through tools) and
answering in JSON that follows a schema (a workflow's states pass JSON on). A model that cannot
choose its own tools (``routed`` or ``none`` tool calling: the bundled SmolLM2 and other local
models) is known to be limited without asking it anything. Any other model is probed once with
two tiny requests; a probe that fails to get an answer (network, time limit) leaves the model
*unknown*, never capable.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agent_core.errors import ProviderError
from agent_core.providers.base import ChatMessage, ChatRequest, GenerationSettings, Provider, ToolSpec
from agent_core.providers.local_llama import LocalLlamaProvider

__all__ = [
    "PROBE_REQUEST_TIMEOUT_S",
    "CapabilitySource",
    "ModelCapability",
    "known_capability",
    "probe_capability",
]

logger = logging.getLogger(__name__)

#: One probe request's time limit: a capable cloud model answers these in a few seconds.
PROBE_REQUEST_TIMEOUT_S = 20.0
#: Enough for a tool call or a four-field JSON object; a model that rambles past it fails.
PROBE_MAX_OUTPUT_TOKENS = 200

CapabilitySource = Literal["known", "probed", "unknown"]


@dataclass(frozen=True)
class ModelCapability:
    """What ``model`` (``provider:model``) did or is known to do. ``None``: not known."""

    model: str
    tool_choice: bool | None
    json_schema: bool | None
    source: CapabilitySource
    checked_at: float = 0.0  # seconds since the epoch, for probed results
    note: str = ""  # why it is known, or why the probe could not tell, in words for the user

    @property
    def limited(self) -> bool:
        """Known or seen to fail at least one of the two abilities."""
        return self.tool_choice is False or self.json_schema is False

    @property
    def capable(self) -> bool:
        """Known or seen to do both."""
        return self.tool_choice is True and self.json_schema is True


def known_capability(provider: Provider, model_id: str, model_ref: str) -> ModelCapability | None:
    """The capability known without asking the model, or None when only a probe can tell.

    A model that does not choose its own tools is limited: ContextDesk routes tools for it
    because it cannot; the bundled SmolLM2 (135M parameters) does not follow a schema either."""
    calling = provider.tool_calling(model_id)
    if calling == "native":
        return None
    bundled = isinstance(provider, LocalLlamaProvider) and provider.is_bundled(model_id)
    return ModelCapability(
        model=model_ref,
        tool_choice=False,
        json_schema=False if bundled else None,
        source="known",
        note=(
            "the bundled offline model (SmolLM2 135M)"
            if bundled
            else f"a model that does not choose its own tools ({calling} tool calling)"
        ),
    )


_ADD_TOOL = ToolSpec(
    name="add_numbers",
    description="Add two whole numbers and return their sum.",
    input_schema={
        "type": "object",
        "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
        "required": ["a", "b"],
    },
)
_WEATHER_TOOL = ToolSpec(
    name="get_weather",
    description="Today's weather in a city.",
    input_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)
_TOOL_QUESTION = "Use a tool to add 17 and 25."

_SCHEMA: Mapping[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "city": {"type": "string"},
        "opened": {"type": "integer"},
        "seats": {"type": "integer"},
    },
    "required": ["name", "city", "opened", "seats"],
    "additionalProperties": False,
}
_JSON_QUESTION = (
    "Reply with only a JSON object that follows this JSON schema, nothing else:\n"
    f"{json.dumps(_SCHEMA)}\n\n"
    "The facts: the Lighthouse Cafe in Porto opened in 2019 and has 42 seats."
)
_EXPECTED = {"city": "porto", "opened": 2019, "seats": 42}
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


async def probe_capability(
    provider: Provider, model_id: str, model_ref: str, *, now: Callable[[], float] = time.time
) -> ModelCapability:
    """Ask ``model_id`` the two probe questions; ``unknown`` when either gets no answer."""
    try:
        tool_choice = _chose_the_tool(
            await _ask(provider, model_id, _TOOL_QUESTION, (_WEATHER_TOOL, _ADD_TOOL))
        )
        json_schema = _followed_the_schema(await _ask(provider, model_id, _JSON_QUESTION, ()))
    except (ProviderError, TimeoutError) as error:
        reason = "no answer in time" if isinstance(error, TimeoutError) else str(error)
        logger.info("capability probe of %s got no answer: %s", model_ref, reason)
        return ModelCapability(
            model=model_ref,
            tool_choice=None,
            json_schema=None,
            source="unknown",
            checked_at=now(),
            note=f"the quick check got no answer ({reason})",
        )
    failed = [name for name, ok in (("tool choice", tool_choice), ("JSON schema", json_schema)) if not ok]
    return ModelCapability(
        model=model_ref,
        tool_choice=tool_choice,
        json_schema=json_schema,
        source="probed",
        checked_at=now(),
        note=f"failed the quick check of {' and '.join(failed)}" if failed else "passed the quick check",
    )


async def _ask(provider: Provider, model_id: str, question: str, tools: tuple[ToolSpec, ...]) -> Any:
    request = ChatRequest(
        messages=[ChatMessage("user", question)],
        settings=GenerationSettings(
            model=model_id, max_output_tokens=PROBE_MAX_OUTPUT_TOKENS, temperature=0.0, top_p=1.0
        ),
        tools=tools,
    )
    return await asyncio.wait_for(provider.complete(request), PROBE_REQUEST_TIMEOUT_S)


def _chose_the_tool(completion: Any) -> bool:
    calls = completion.tool_calls
    if len(calls) != 1 or calls[0].name != _ADD_TOOL.name:
        return False
    arguments = calls[0].arguments
    return {_as_int(arguments.get("a")), _as_int(arguments.get("b"))} == {17, 25}


def _followed_the_schema(completion: Any) -> bool:
    text = _FENCE.sub("", completion.text.strip())
    try:
        answer = json.loads(text)
    except ValueError:
        return False
    if not isinstance(answer, dict) or set(answer) != set(_SCHEMA["required"]):
        return False
    if not all(isinstance(answer[key], str) for key in ("name", "city")):
        return False
    if not all(type(answer[key]) is int for key in ("opened", "seats")):
        return False
    return "lighthouse" in answer["name"].lower() and all(
        (answer[key].lower() if isinstance(answer[key], str) else answer[key]) == value
        for key, value in _EXPECTED.items()
    )


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None
