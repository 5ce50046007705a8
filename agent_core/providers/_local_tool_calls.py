"""Tool calls for local models, whose chat templates have no tool syntax.

A *routed* call (see :mod:`agent_core.providers.local_llama`): the model only writes the required
arguments of the one tool picked for it, as JSON constrained by a grammar built from this schema.
Tool calls and results already in the history are written as plain text.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from agent_core.errors import ProviderRequestError
from agent_core.providers.base import ChatMessage, ToolSpec

__all__ = [
    "MAX_ARGUMENT_TOKENS",
    "argument_instruction",
    "missing_arguments_reply",
    "parse_arguments",
    "required_arguments_schema",
    "show_tool_results",
    "to_llama_messages",
    "trailing_tool_results",
]

MAX_ARGUMENT_TOKENS = 160


def trailing_tool_results(messages: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The tool results that end ``messages`` (this turn's), oldest first."""
    results: list[ChatMessage] = []
    for message in reversed(messages):
        if message.role != "tool":
            break
        results.append(message)
    return results[::-1]


def show_tool_results(results: Sequence[ChatMessage]) -> str:
    """The reply that shows tool results as returned (``afterTool: show``): each fenced, under its tool."""
    parts = []
    for result in results:
        name = (result.tool_name or "the tool").replace("__", ".", 1)
        said = "failed" if result.is_error else "returned"
        parts.append(f"`{name}` {said}:\n\n```text\n{result.content.strip()}\n```")
    return "\n\n".join(parts)


def required_arguments_schema(input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a tool's input schema the local model fills: its required properties only."""
    properties = input_schema.get("properties")
    if not isinstance(properties, Mapping):
        properties = {}
    required = [name for name in input_schema.get("required", ()) if name in properties]
    return {
        "type": "object",
        "properties": {name: dict(properties[name]) for name in required},
        "required": required,
        "additionalProperties": False,
    }


def argument_instruction(spec: ToolSpec, schema: Mapping[str, Any]) -> str:
    """The last user turn of a routed call: which tool, and the JSON shape of its arguments."""
    example = json.dumps({name: "..." for name in schema["properties"]})
    return (
        f"Call the tool {spec.name}: {spec.description}\n"
        f"Reply with its arguments as JSON, like {example}, taking each value word for word from my "
        "message above."
    )


def missing_arguments_reply(tool_name: str, missing: Sequence[str]) -> str:
    """The reply when the model found no value for some required arguments in the message: the
    tool is not called with empty ones, and the user learns what to add."""
    name = tool_name.replace("__", ".", 1)
    inputs = ", ".join(f"'{argument}'" for argument in missing)
    plural = "inputs" if len(missing) > 1 else "input"
    return (
        f"I did not call `{name}`: the model found no value for its required {plural} {inputs} in "
        f'your message. Send it again with the value written out, for example {missing[0]} "...", '
        "or use a model that calls tools itself."
    )


def parse_arguments(text: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The model's JSON arguments; the grammar makes them valid, but a reply cut short is not."""
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as error:
        raise ProviderRequestError(
            f"The local model did not finish the arguments of the tool call ({error}): ask again, "
            "naming the value (a file name, a search text) in quotes."
        ) from error
    if not isinstance(parsed, dict):
        raise ProviderRequestError(
            "The local model wrote tool arguments that are not a JSON object: ask again."
        )
    return {name: value for name, value in parsed.items() if name in schema["properties"]}


def to_llama_messages(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    """Chat-template messages; the template has no tool syntax, so tool traffic becomes plain text."""
    result: list[dict[str, str]] = []
    for message in messages:
        if message.role == "tool":
            status = "failed" if message.is_error else "returned"
            result.append(
                {"role": "user", "content": f"Tool {message.tool_name or ''} {status}:\n{message.content}"}
            )
            continue
        content = message.content
        for call in message.tool_calls:
            content += f"\n[called tool {call.name} with {dict(call.arguments)}]"
        result.append({"role": message.role, "content": content.strip() if message.tool_calls else content})
    return result
