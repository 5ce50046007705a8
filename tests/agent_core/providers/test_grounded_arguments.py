"""A routed call's file, folder and address arguments are limited to what the conversation names,
and a call the conversation names none for is not made (the model would make one up)."""

from __future__ import annotations

from agent_core.providers._grounded_arguments import MAX_GROUNDED_VALUES, ground_arguments
from agent_core.providers._local_tool_calls import required_arguments_schema
from agent_core.providers.base import ChatMessage

READ_FILE = required_arguments_schema(
    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
)
WRITE_FILE = required_arguments_schema(
    {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path", "content"],
    }
)


def user(text: str) -> list[ChatMessage]:
    return [ChatMessage("system", "See docs/handbook.md for the house style."), ChatMessage("user", text)]


def test_a_file_the_message_names_is_the_only_value_the_model_may_write() -> None:
    schema, ungrounded = ground_arguments(READ_FILE, user("summarize ideas.md, please"))
    assert schema["properties"]["path"]["enum"] == ["ideas.md"] and ungrounded == []
    assert READ_FILE["properties"]["path"] == {"type": "string"}  # the tool's own schema is untouched


def test_a_file_argument_the_conversation_never_names_is_not_made_up() -> None:
    _, ungrounded = ground_arguments(READ_FILE, user("read my notes"))
    assert ungrounded == ["path"]
    # Version numbers, abbreviations and a rule in the system prompt are not file names.
    _, ungrounded = ground_arguments(READ_FILE, user("Release notes for Bluefin 0.9.2, e.g. the fixes."))
    assert ungrounded == ["path"]


def test_other_arguments_stay_free_text() -> None:
    schema, ungrounded = ground_arguments(WRITE_FILE, user('Create todo.md with "buy milk" in it'))
    assert schema["properties"]["path"]["enum"] == ["todo.md"]  # the quoted phrase is content, not a name
    assert "enum" not in schema["properties"]["content"] and ungrounded == []


def test_paths_folders_and_quoted_names_count_and_the_users_own_words_come_before_the_context() -> None:
    message = (
        '<context selected-for="this message">\n<reference name="layout.md">Code lives in src/app.py.'
        "</reference>\n</context>\n\nopen `notes` and ./drafts/plan.txt"
    )
    schema, _ = ground_arguments(READ_FILE, [ChatMessage("user", message)])
    assert schema["properties"]["path"]["enum"] == ["./drafts/plan.txt", "notes", "src/app.py"]


def test_names_from_an_earlier_tool_result_count_newest_first() -> None:
    messages = [
        ChatMessage("user", "list my files"),
        ChatMessage("tool", "ideas.md\nreport.pdf", tool_name="workspace__list_files"),
        ChatMessage("user", "now read the first one"),
    ]
    schema, _ = ground_arguments(READ_FILE, messages)
    assert schema["properties"]["path"]["enum"] == ["report.pdf", "ideas.md"]


def test_an_address_argument_takes_only_addresses() -> None:
    schema = {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]}
    grounded, _ = ground_arguments(schema, user("fetch https://example.org/a?b=1. and notes.md"))
    assert grounded["properties"]["url"]["enum"] == ["https://example.org/a?b=1"]
    _, ungrounded = ground_arguments(schema, user("fetch the docs page"))
    assert ungrounded == ["url"]


def test_an_argument_with_its_own_values_or_not_a_string_is_left_alone() -> None:
    schema = {
        "type": "object",
        "properties": {
            "file_kind": {"type": "string", "enum": ["pdf", "md"]},
            "dir_depth": {"type": "integer"},
        },
        "required": ["file_kind", "dir_depth"],
    }
    grounded, ungrounded = ground_arguments(schema, user("nothing here"))
    assert grounded["properties"] == schema["properties"] and ungrounded == []


def test_a_long_conversation_offers_a_bounded_number_of_values() -> None:
    text = " ".join(f"file{i}.md" for i in range(40))
    schema, _ = ground_arguments(READ_FILE, user(text))
    assert schema["properties"]["path"]["enum"][:2] == ["file39.md", "file38.md"]
    assert len(schema["properties"]["path"]["enum"]) == MAX_GROUNDED_VALUES
