"""The model's memory proposals are untrusted: only the user's message is sent, and a proposal
survives only with a quote really in that message, from a statement (not a question, hypothetical
or quoted text), without secrets, within the caps."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from agent_core.agent.schema import MemoryConfig
from agent_core.errors import ProviderError, ProviderUnavailableError
from agent_core.memory.chat_extraction import asks_model, model_proposals
from agent_core.memory.extraction_model import (
    MAX_PROPOSALS,
    SYSTEM_PROMPT,
    extract_with_model,
    extraction_request,
    read_reply,
)
from agent_core.providers.base import ProviderSettings, ToolCalling
from agent_core.providers.local_llama import LocalLlamaProvider
from agent_core.providers.openai_compatible import OpenAICompatibleProvider
from agent_core.providers.scripted import ScriptedProvider
from tests.support.fake_api import FakeApi, Reply

MESSAGE = (
    "btw we moved to  PostgreSQL 16 last month. If I were on AWS I'd use RDS. "
    "Can you help with the migration? My manager is Dana."
)


def answer(*memories: dict[str, Any]) -> str:
    return json.dumps({"memories": list(memories)})


def test_a_quote_in_the_message_gives_a_proposal_quoting_the_users_exact_words() -> None:
    found = read_reply(
        answer(
            {
                "text": "Our database is PostgreSQL 16",
                "quote": "We moved to PostgreSQL 16 last month.",
                "kind": "project",
                "importance": 4,
            }
        ),
        MESSAGE,
    )
    [proposal] = found.proposals
    assert proposal.text == "Our database is PostgreSQL 16"
    assert proposal.quote == "we moved to  PostgreSQL 16 last month"  # as written, double space and all
    assert (proposal.kind, proposal.importance, proposal.explicit) == ("project", 4, False)
    assert found.notes == ()


def test_quotes_match_across_curly_quotes_case_and_line_breaks() -> None:
    message = "I’m based in\nLyon and I work on the billing service"
    found = read_reply(answer({"text": "I am based in Lyon", "quote": "i'm BASED in lyon"}), message)
    assert [p.quote for p in found.proposals] == ["I’m based in\nLyon"]


@pytest.mark.parametrize(
    ("quote", "reason"),
    [
        ("we moved to MySQL 8 last month", "quote not in your message"),  # hallucinated
        ("I'd use RDS", "from a hypothetical"),
        ("help with the migration", "from a question"),
        ("Dana", "quote too short"),
        ("", "no quote"),
    ],
)
def test_a_proposal_without_a_stated_fact_behind_it_is_left_out(quote: str, reason: str) -> None:
    found = read_reply(answer({"text": "I use RDS on AWS", "quote": quote}), MESSAGE)
    assert found.proposals == ()
    assert found.notes == (f"1 memory the model proposed was left out: {reason} (1).",)


def test_quoted_and_reported_words_are_not_the_users_facts() -> None:
    message = 'My README says "our database is MySQL 8". Dana told me the launch is on Friday'
    found = read_reply(
        answer(
            {"text": "Our database is MySQL 8", "quote": "our database is MySQL 8"},
            {"text": "The launch is on Friday", "quote": "the launch is on Friday"},
        ),
        message,
    )
    assert found.proposals == ()
    assert found.notes == (
        "2 memories the model proposed were left out: quoted text (1), from someone else's words (1).",
    )


def test_pasted_code_and_quoted_lines_are_not_the_users_facts() -> None:
    message = (
        "> our database is MySQL 8\nwhy does this fail?\n```\n# we deploy on heroku daily\n```\nI use fly.io"
    )
    found = read_reply(
        answer(
            {"text": "Our database is MySQL 8", "quote": "our database is MySQL 8"},
            {"text": "We deploy on Heroku", "quote": "we deploy on heroku daily"},
            {"text": "I use fly.io", "quote": "I use fly.io"},
        ),
        message,
    )
    assert [p.quote for p in found.proposals] == ["I use fly.io"]
    assert found.notes == ("2 memories the model proposed were left out: quoted text (2).",)


def test_words_said_twice_are_taken_where_they_are_a_statement() -> None:
    message = "What if my editor is vim? It is: my editor is vim."
    found = read_reply(answer({"text": "My editor is vim", "quote": "my editor is vim"}), message)
    assert [p.quote for p in found.proposals] == ["my editor is vim"] and found.notes == ()
    found = read_reply(answer({"text": "My editor is vim", "quote": "my editor is vim"}), message[:25])
    assert found.notes == ("1 memory the model proposed was left out: from a question (1).",)


def test_a_short_message_can_be_quoted_whole() -> None:
    found = read_reply(answer({"text": "I am vegan", "quote": "vegan"}), "Vegan.")
    assert [(p.text, p.quote) for p in found.proposals] == [("I am vegan", "Vegan")]


def test_a_text_naming_values_the_user_never_said_is_replaced_by_the_users_words() -> None:
    found = read_reply(
        answer(
            {"text": "My manager is Priya", "quote": "my manager is dana"},
            {"text": "We use PostgreSQL 17", "quote": "we moved to PostgreSQL 16 last month"},
            {"text": "Dana's email is dana@kestrel.io", "quote": "My manager is Dana"},
        ),
        MESSAGE,
    )
    assert [p.text for p in found.proposals] == ["My manager is Dana", "We moved to PostgreSQL 16 last month"]
    found = read_reply(
        answer({"text": "We deploy on render.com", "quote": "we deploy on fly.io"}), "we deploy on fly.io"
    )
    assert [p.text for p in found.proposals] == ["We deploy on fly.io"]
    found = read_reply(
        answer({"text": "We deploy on Fly.io", "quote": "we deploy on fly.io"}), "we deploy on fly.io"
    )
    assert [p.text for p in found.proposals] == ["We deploy on Fly.io"]  # the same value, capitalised


def test_secrets_are_dropped_with_a_note_that_does_not_repeat_them() -> None:
    message = "my api key is sk-proj-abcdefghijklmnopqrstuvwx and I prefer tabs over spaces"
    found = read_reply(
        answer(
            {
                "text": "My API key is sk-proj-abcdefghijklmnopqrstuvwx",
                "quote": "my api key is sk-proj-abcdefghij",
            },
            {"text": "I prefer tabs over spaces", "quote": "I prefer tabs over spaces"},
        ),
        message,
    )
    assert [p.text for p in found.proposals] == ["I prefer tabs over spaces"]
    assert found.notes == ("A memory was not proposed: it holds an API key (never saved automatically).",)
    assert "sk-proj" not in " ".join(found.notes)


def test_kinds_importance_length_and_count_are_capped() -> None:
    facts = [f"I use tool number {n} every day" for n in range(8)]
    message = ". ".join(facts)
    candidates = [{"text": fact, "quote": fact, "kind": "secret-plan", "importance": 42} for fact in facts]
    candidates.append({"text": "I use tool number 0 every day", "quote": facts[0]})  # the same again
    found = read_reply(answer(*candidates), message)
    assert [p.text for p in found.proposals] == facts[:MAX_PROPOSALS]
    assert {p.kind for p in found.proposals} == {"fact"} and {p.importance for p in found.proposals} == {5}
    assert found.notes == (
        f"The model proposed 8 memories from one message: the first {MAX_PROPOSALS} were kept.",
    )

    long_fact = "I work on " + "the billing service " * 20
    found = read_reply(answer({"text": long_fact, "quote": long_fact, "importance": -3}), long_fact)
    assert found.proposals == () and found.notes == (
        "1 memory the model proposed was left out: too long (1).",
    )
    found = read_reply(
        answer({"text": "I work on the billing service", "quote": "I work on the billing", "importance": -3}),
        long_fact,
    )
    assert [(p.text, p.kind, p.importance) for p in found.proposals] == [
        ("I work on the billing service", "project", 1)
    ]


@pytest.mark.parametrize(
    "reply",
    [
        "Sure! Here are the memories: []",
        'Here you go: {"memories": []}',
        '{"memories": [{"text": "I use vim", "quote": "I use vim", "confidence": 0.9}]}',
        '{"memories": [{"text": "I use vim"}]}',
        '{"facts": []}',
        '[{"text": "I use vim", "quote": "I use vim"}]',
        '{"memories": "I use vim"}',
        "",
        json.dumps({"memories": [{"text": "I use vim", "quote": "I use vim"}] * 500}),
    ],
)
def test_anything_but_the_json_asked_for_gives_no_proposals_and_a_note(reply: str) -> None:
    found = read_reply(reply, "I use vim for everything")
    assert found.proposals == ()
    assert found.notes == (
        "The model's answer to the memory question was not the JSON asked for: no memory was proposed "
        "from this message.",
    )


def test_a_json_fence_is_fine_and_no_memories_is_no_note() -> None:
    fenced = '```json\n{"memories": [{"text": "I use vim", "quote": "I use vim"}]}\n```'
    assert [p.text for p in read_reply(fenced, "I use vim for everything").proposals] == ["I use vim"]
    assert read_reply('{"memories": []}', "I use vim for everything").notes == ()


def test_the_request_holds_the_users_words_only_and_asks_for_a_short_exact_answer() -> None:
    request = extraction_request("I prefer tabs", "my cat is called Miso", "gpt-test")
    system, user = request.messages
    assert (system.role, system.content) == ("system", SYSTEM_PROMPT)
    assert user.role == "user" and "I prefer tabs" in user.content and "my cat is called Miso" in user.content
    assert len(request.messages) == 2 and request.tools == ()
    assert (request.settings.model, request.settings.temperature) == ("gpt-test", 0.0)
    assert request.settings.max_output_tokens <= 500
    assert extraction_request("I prefer tabs", None, "m").messages[1].content.count("<<<") == 1


def test_one_completion_is_asked_and_checked() -> None:
    provider = ScriptedProvider()
    provider.enqueue_reply(answer({"text": "I prefer tabs", "quote": "I prefer tabs"}))
    found = asyncio.run(extract_with_model(provider, "m", "I prefer tabs, can you fix my editor config?"))
    assert [p.quote for p in found.proposals] == ["I prefer tabs"]
    assert len(provider.requests) == 1


def test_a_model_that_does_not_answer_in_time_is_a_provider_error() -> None:
    class Never:
        async def wait(self) -> None:
            await asyncio.Event().wait()

    provider = ScriptedProvider()
    provider.enqueue_reply(chunks=[Never()])
    with pytest.raises(ProviderError, match="did not answer within"):
        asyncio.run(extract_with_model(provider, "m", "I prefer tabs", timeout=0.01))


def test_when_the_model_fails_the_offline_rules_stand_in_with_a_note() -> None:
    provider = ScriptedProvider()
    provider.enqueue_error(ProviderUnavailableError("the server is down: try again later"))
    found = asyncio.run(model_proposals(provider, "m", "we deploy on fly.io now", None))
    assert [p.quote for p in found.proposals] == ["we deploy on fly.io now"] and found.actor == "extractor"
    assert found.notes == (
        "The model could not look for memories in this message (the server is down: try again later); "
        "the offline rules did instead.",
    )


def test_only_capable_models_are_asked_and_only_when_extraction_is_model() -> None:
    cloud = ScriptedProvider()
    local = LocalLlamaProvider(ProviderSettings(provider_id="local", type="local"))
    model = MemoryConfig(extraction="model")
    assert asks_model("we deploy on fly.io now", model, cloud, "m")
    assert not asks_model(
        "we deploy on fly.io now", model, local, "smollm2-135m-instruct"
    )  # the rules stand in
    assert not asks_model("we deploy on fly.io now", MemoryConfig(extraction="rules"), cloud, "m")
    assert not asks_model("we deploy on fly.io now", MemoryConfig(extraction="off"), cloud, "m")
    assert not asks_model(
        "we deploy on fly.io now", MemoryConfig(extraction="model", enabled=False), cloud, "m"
    )
    assert not asks_model(
        "remember that we deploy on fly.io", model, cloud, "m"
    )  # explicit: the rules take it
    assert not asks_model("ok", model, cloud, "m")
    assert not asks_model("x" * 10_000, model, cloud, "m")

    class Small(ScriptedProvider):
        def tool_calling(self, model_id: str) -> ToolCalling:
            return "routed"

    assert not asks_model("we deploy on fly.io now", model, Small(), "m")  # cannot choose tools


def sse_text(*chunks: str) -> list[bytes]:
    """An OpenAI-style stream of ``chunks``, then a stop."""
    events = [
        {"choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}]} for chunk in chunks
    ]
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    return [f"data: {json.dumps(event)}\n\n".encode() for event in events] + [b"data: [DONE]\n\n"]


def test_through_a_real_openai_compatible_provider_only_the_users_words_are_sent() -> None:
    api = FakeApi()
    provider = OpenAICompatibleProvider(
        ProviderSettings(
            provider_id="lab", type="openai-compatible", base_url=f"{api.url}/v1", api_key="sk-test"
        )
    )
    reply = answer(
        {"text": "I prefer tabs over spaces", "quote": "I prefer tabs over spaces", "kind": "preference"}
    )
    api.queue(Reply(sse_events=sse_text("```json\n", reply[:20], reply[20:], "\n```")))

    async def run() -> Any:
        try:
            return await extract_with_model(
                provider, "lab-model", "I prefer tabs over spaces, fix my config", "my editor is vim"
            )
        finally:
            await provider.aclose()

    try:
        found = asyncio.run(run())
    finally:
        api.close()
    assert [(p.text, p.kind, p.quote) for p in found.proposals] == [
        ("I prefer tabs over spaces", "preference", "I prefer tabs over spaces")
    ]
    [sent] = api.requests
    assert [m["role"] for m in sent.body["messages"]] == ["system", "user"]
    assert "fix my config" in sent.body["messages"][1]["content"]
    assert "my editor is vim" in sent.body["messages"][1]["content"]
    assert sent.body["temperature"] == 0.0 and "tools" not in sent.body
