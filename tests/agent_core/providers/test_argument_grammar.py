"""The grammar a local model writes tool arguments under: every required argument, no raw
control character in a string (escapes such as \\n stay possible), and a call that the message
gives no value for is not made."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator

import pytest

from agent_core.providers._argument_grammar import (
    JSON_STRING_CHAR,
    argument_grammar,
    missing_required_arguments,
)
from agent_core.providers._local_tool_calls import missing_arguments_reply, required_arguments_schema
from agent_core.providers.base import ChatMessage, ChatRequest, GenerationSettings, ProviderSettings, ToolSpec
from agent_core.providers.local_llama import DEFAULT_MODEL_ID, LocalLlamaProvider
from tests.support.models import runnable_offline_model

pytest.importorskip("llama_cpp")

RELEASE_NOTES = {
    "type": "object",
    "properties": {
        "topic": {"type": "string", "description": "What the release is"},
        "notes": {"type": "string"},
        "words": {"type": "integer", "default": 50},
    },
    "required": ["topic", "notes"],
}


def rules(grammar: str) -> dict[str, str]:
    return dict(line.split(" ::= ", 1) for line in grammar.splitlines() if " ::= " in line)


def test_every_required_argument_is_in_the_root_rule_in_order_and_no_optional_one() -> None:
    grammar = rules(argument_grammar(required_arguments_schema(RELEASE_NOTES)))
    root = grammar["root"]
    assert root.index("topic-kv") < root.index("notes-kv")
    assert "?" not in root.replace('" "?', "")  # nothing in the object is optional
    assert "words" not in " ".join(grammar)


def test_string_characters_exclude_every_control_character_but_allow_escapes() -> None:
    grammar = rules(argument_grammar(required_arguments_schema(RELEASE_NOTES)))
    assert grammar["char"] == JSON_STRING_CHAR
    allowed = re.compile(r'[^"\\\x00-\x1F]')  # the rule's first alternative, as a Python class
    for code in range(0x20):
        assert allowed.fullmatch(chr(code)) is None
    assert allowed.fullmatch("é") and allowed.fullmatch(" ")
    assert r'"\\" (["\\/bfnrt]' in grammar["char"]  # \n, \t written as escapes


def test_a_pattern_string_cannot_hold_a_control_character_either() -> None:
    schema = {
        "type": "object",
        "properties": {"tag": {"type": "string", "pattern": "^v.*$"}},
        "required": ["tag"],
    }
    grammar = rules(argument_grammar(schema))
    assert grammar["dot"] == r"[^\x00-\x1F]"


def test_the_grammar_parses_in_llama_cpp() -> None:
    from llama_cpp import LlamaGrammar

    LlamaGrammar.from_string(argument_grammar(required_arguments_schema(RELEASE_NOTES)), verbose=False)


def test_a_required_argument_left_blank_or_as_the_examples_dots_is_missing() -> None:
    schema = required_arguments_schema(RELEASE_NOTES)
    assert missing_required_arguments({"topic": "Bluefin 0.9.2", "notes": "  "}, schema) == ["notes"]
    assert missing_required_arguments({"topic": "bluefin", "notes": "..."}, schema) == ["notes"]
    assert missing_required_arguments({"topic": "Bluefin"}, schema) == ["notes"]
    assert missing_required_arguments({"topic": "Release 2", "notes": "- fixed sync"}, schema) == []


def test_the_reply_for_missing_inputs_names_them_and_says_what_to_do() -> None:
    reply = missing_arguments_reply("workflows__release-notes", ["topic", "notes"])
    assert reply.startswith("I did not call `workflows.release-notes`: the model found no value for")
    assert "required inputs 'topic', 'notes' in your message" in reply
    assert "Send it again with the value written out" in reply


@pytest.fixture(scope="module")
def local_provider() -> Iterator[LocalLlamaProvider]:
    runnable_offline_model()
    provider = LocalLlamaProvider(
        ProviderSettings(provider_id="offline", type="local", threads=2, context_size=2048)
    )
    provider.load_model(DEFAULT_MODEL_ID)
    yield provider
    asyncio.run(provider.aclose())


SETTINGS = GenerationSettings(model=DEFAULT_MODEL_ID, max_output_tokens=64, temperature=0.0)


def routed(tool: ToolSpec, message: str) -> ChatRequest:
    return ChatRequest(
        messages=[ChatMessage("system", "You are terse."), ChatMessage("user", message)],
        settings=SETTINGS,
        tools=[tool],
        call_tool=tool.name,
    )


WRITE_FILE = ToolSpec(
    "filesystem__write_file",
    "Create a new file or completely overwrite an existing file with new content.",
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    },
)


@pytest.mark.slow
@pytest.mark.anyio
async def test_arguments_from_a_message_full_of_line_breaks_and_tabs_hold_no_raw_control_character(
    local_provider: LocalLlamaProvider,
) -> None:
    message = "Create todo.md with the content:\n\tbuy milk\n\tcall Ana\n"
    completion = await local_provider.complete(routed(WRITE_FILE, message))  # no "Invalid control character"
    for call in completion.tool_calls:
        for value in call.arguments.values():
            assert not any(ord(c) < 0x20 for c in value)
    assert completion.tool_calls or completion.text.startswith("I did not call `filesystem.write_file`")


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_workflow_routed_without_its_inputs_is_not_called_and_the_reply_names_the_missing_one(
    local_provider: LocalLlamaProvider,
) -> None:
    tool = ToolSpec("workflows__release-notes", "Run the workflow 'release-notes'", RELEASE_NOTES)
    completion = await local_provider.complete(
        routed(tool, "Write release notes for Bluefin 0.9.2 from my notes")
    )
    assert not completion.tool_calls  # it wrote {"topic": "release-notes", "notes": "..."}
    assert completion.finish_reason == "stop"
    assert completion.text.startswith("I did not call `workflows.release-notes`")
    assert "required input 'notes'" in completion.text


READ_FILE = ToolSpec(
    "workspace__read_file",
    "Read a text file of the workspace folder.",
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)


@pytest.mark.slow
@pytest.mark.anyio
async def test_the_file_a_routed_call_reads_is_the_one_the_message_names(
    local_provider: LocalLlamaProvider,
) -> None:
    completion = await local_provider.complete(routed(READ_FILE, "summarize ideas.md"))
    [call] = completion.tool_calls  # it wrote "/Users/michael.johnson" before
    assert call.arguments == {"path": "ideas.md"}


@pytest.mark.slow
@pytest.mark.anyio
async def test_a_routed_call_whose_message_names_no_file_asks_for_one_and_runs_no_model(
    local_provider: LocalLlamaProvider,
) -> None:
    completion = await local_provider.complete(routed(READ_FILE, "read my notes"))
    assert not completion.tool_calls and completion.usage.without_model
    assert completion.text.startswith("I did not call `workspace.read_file`")
    assert "required input 'path'" in completion.text
