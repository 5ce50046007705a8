from __future__ import annotations

from indexer import Document, render_parameters, tool_document
from indexer._texts import action_head, anchor_chunks, anchor_text, hybrid_chunks, mask_opaque_tokens


def test_anchor_text_follows_the_anchor_format() -> None:
    rule = Document("rule:a", "rule", "a", "desc", "body")
    bare = Document("reference:b", "reference", "b", "", "body")
    tool = Document("tool:s/t", "tool", "t", "does t", "x: ignored", server="s")
    assert anchor_text(rule) == "a: desc\n\nbody"
    assert anchor_text(bare) == "b\n\nbody"
    assert anchor_text(tool) == "t: does t"
    assert anchor_chunks(rule) == ["a: desc", "body"]


def test_tool_parameters_render_one_line_each() -> None:
    schema = {
        "type": "object",
        "properties": {"repo_name": {"type": "string", "description": "Repository name"}, "draft": {}},
    }
    assert render_parameters(schema) == "repo name: Repository name\ndraft"
    assert render_parameters({"type": "object"}) == ""


def test_hybrid_tool_chunks_name_the_server_and_keep_the_tool_name_on_parameters() -> None:
    doc = tool_document(
        "github",
        "create_issue",
        "Create a new issue",
        {"properties": {"title": {"description": "Issue title"}}},
    )
    assert doc.key == "tool:github/create_issue"
    assert hybrid_chunks(doc) == [
        "create issue (github): Create a new issue",
        "create issue parameters: title: Issue title",
    ]


def test_hybrid_uses_the_anchor_chunks_for_rules_and_references() -> None:
    doc = Document("rule:a", "rule", "a", "desc", "one\n\ntwo")
    assert hybrid_chunks(doc) == anchor_chunks(doc)


def test_links_addresses_and_paths_are_masked_by_plain_words() -> None:
    assert (
        mask_opaque_tokens("screenshot https://book.example.com/demo?x=1 and book.example.com/demo-physio")
        == "screenshot a link and a link"
    )
    assert mask_opaque_tokens("meet jonas@example.com at 11") == "meet someone at 11"
    assert mask_opaque_tokens("commit in ~/code/ledger, then read ./notes.md and /etc/hosts") == (
        "commit in a folder, then read a file and a folder"
    )
    assert mask_opaque_tokens("read notes.txt, then index.html") == "read a file, then a file"
    # Fractions, versions, "and/or", abbreviations and node.js are words, not paths.
    assert mask_opaque_tokens("upgrade node.js") == "upgrade node.js"
    text = "and/or 3/4 of the team, e.g. version 2.1"
    assert mask_opaque_tokens(text) == text


def test_the_action_head_drops_the_text_a_message_dictates() -> None:
    assert action_head("make a linear ticket: csv export times out for big clinics") == "make a linear ticket"
    assert action_head("post 'deploying now :rocket:' in #deploys") == "post some text in #deploys"
    assert action_head("draft a reply to our accountant saying we'll send it friday") == (
        "draft a reply to our accountant"
    )
    # Nothing dictated: no second view. Apostrophes and times are not quotes or payloads.
    assert action_head("what's on my calendar tomorrow") is None
    assert action_head("note: the deploy failed at 10:30") is None
