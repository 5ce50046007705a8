"""Folding duplicates among selection's candidates, on real skills found in two public collections
(tests/fixtures/duplicate_items): the same item takes one place, templated items stay two."""

from __future__ import annotations

import time
from dataclasses import replace

from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import IncludeMode
from agent_core.context.duplicates import (
    ANY_NAME_MIN_CHARS,
    MAX_SAME_NAME_COMPARED,
    fold_duplicates,
    folded_name,
)
from agent_core.context.items import ItemRef, NearMiss, RequestItem
from agent_core.context.selection import Candidate, document_candidate, tool_candidate
from indexer import Document
from tests.support.duplicate_items import COLLECTIONS, reference


def skill(name: str, description: str) -> Candidate:
    """A skill as selection ranks it: name and description, no body."""
    ref = ItemRef("skill", name)
    return Candidate(ref, Document(ref.key, "skill", name.replace("-", " "), description, ""))


def names(candidates: list[Candidate]) -> list[str]:
    return [c.ref.name for c in candidates]


def test_one_skill_vendored_by_a_second_collection_takes_one_place() -> None:
    original = reference("vercel-labs", "web-design-guidelines")
    vendored = reference("antigravity", "web-design-guidelines", "web-design-guidelines-2")
    other = reference("antigravity", "senior-architect")

    kept, folded = fold_duplicates([vendored, other, original])

    assert names(kept) == ["senior-architect", "web-design-guidelines"]  # the name without the suffix
    assert folded.copies == {vendored.ref: original.ref}


def test_a_command_vendored_under_two_plugin_names_folds_by_its_identical_body() -> None:
    first = reference("antigravity", "error-debugging-error-analysis")
    second = reference("antigravity", "error-diagnostics-error-analysis")

    kept, folded = fold_duplicates([second, first])

    assert names(kept) == ["error-debugging-error-analysis"]  # neither has a suffix: the first by name
    assert folded.copies == {second.ref: first.ref}


def test_a_same_named_copy_edited_here_and_there_folds_and_under_other_names_does_not() -> None:
    # Three lines differ: the plug-in's name written into them.
    one = reference("antigravity", "debugging-toolkit-smart-debug", "smart-debug")
    two = reference("antigravity", "error-diagnostics-smart-debug", "smart-debug-2")
    assert one.document.text != two.document.text

    kept, folded = fold_duplicates([one, two])
    assert names(kept) == ["smart-debug"]
    assert folded.copies == {two.ref: one.ref}

    # Under their own names they are templated items: "Use when working with <name>".
    apart = [
        reference("antigravity", "debugging-toolkit-smart-debug"),
        reference("antigravity", "error-diagnostics-smart-debug"),
    ]
    kept, folded = fold_duplicates(apart)
    assert len(kept) == 2
    assert not folded.copies


def test_one_template_filled_in_for_two_roles_stays_two_items() -> None:
    architect = reference("antigravity", "senior-architect")
    fullstack = reference("antigravity", "senior-fullstack")

    kept, folded = fold_duplicates([architect, fullstack])

    assert names(kept) == ["senior-architect", "senior-fullstack"]
    assert not folded.copies


def test_two_versions_of_a_skill_under_one_name_stay_two_items() -> None:
    # 45 rules and 70: materially different, though the name and most of the text are shared.
    # That collection's header names it vercel-react-best-practices: imported under one name here.
    older = reference("antigravity", "react-best-practices", "react-best-practices")
    newer = reference("vercel-labs", "react-best-practices", "react-best-practices-2")

    kept, folded = fold_duplicates([older, newer])

    assert len(kept) == 2
    assert not folded.copies


def test_templated_app_skills_with_the_same_sentence_stay_two_items() -> None:
    strava = skill("strava-automation", "Automate Strava tasks via Rube MCP (Composio): activities, routes.")
    splitwise = skill(
        "splitwise-automation", "Automate Splitwise tasks via Rube MCP (Composio): expenses, groups."
    )

    kept, folded = fold_duplicates([strava, splitwise])

    assert len(kept) == 2
    assert not folded.copies


def test_skills_fold_by_their_description_when_their_names_fold_alike() -> None:
    description = "Use when working with web design guidelines"
    first = skill("Web_Design-Guidelines", description)
    copy = skill("web-design-guidelines-2", f"  {description.upper()} ")

    kept, folded = fold_duplicates([copy, first])

    assert names(kept) == ["Web_Design-Guidelines"]
    assert folded.copies == {copy.ref: first.ref}


def test_a_short_shared_description_does_not_fold_two_differently_named_items() -> None:
    description = "Helps with tasks."
    assert len(description) < ANY_NAME_MIN_CHARS

    kept, _folded = fold_duplicates([skill("alpha", description), skill("beta", description)])

    assert names(kept) == ["alpha", "beta"]


def test_tools_of_two_servers_and_items_of_two_kinds_and_empty_bodies_are_never_folded() -> None:
    home = tool_candidate("files-home", "read_file", "Read a file from the allowed folder", {})
    work = tool_candidate("files-work", "read_file", "Read a file from the allowed folder", {})
    text = "Commit messages start with a verb in the imperative and stay under 72 characters. " * 3
    rule = document_candidate(DocumentItem("rule", "commits", text=text, include=IncludeMode.AGENT))
    ref = document_candidate(DocumentItem("reference", "commits", text=text, include=IncludeMode.AGENT))
    empty = [
        document_candidate(DocumentItem("reference", n, include=IncludeMode.AGENT)) for n in ("a", "a-2")
    ]

    kept, folded = fold_duplicates([home, work, rule, ref, *empty])

    assert len(kept) == 6
    assert not folded.copies


def test_copies_of_selected_items_and_near_misses_are_listed_as_duplicates_with_their_score() -> None:
    original = reference("vercel-labs", "web-design-guidelines")
    vendored = reference("antigravity", "web-design-guidelines", "web-design-guidelines-2")
    first = reference("antigravity", "error-debugging-error-analysis")
    second = reference("antigravity", "error-diagnostics-error-analysis")
    _kept, folded = fold_duplicates([original, vendored, first, second])

    selected = [RequestItem(original.ref, "agent", 0.61)]
    assert folded.near_misses(selected, [NearMiss(first.ref, 0.38, "below_floor", 0.45)]) == (
        NearMiss(vendored.ref, 0.61, "duplicate of web-design-guidelines"),
        NearMiss(second.ref, 0.38, "duplicate of error-debugging-error-analysis"),
    )
    assert folded.near_misses([], []) == ()  # copies of items nobody scored say nothing


def test_names_fold_case_separators_and_an_import_suffix() -> None:
    assert folded_name("PDF_Tools-2") == folded_name("pdf tools") == "pdf-tools"
    assert folded_name("python-3") == "python"  # harmless: the bodies must match as well


def test_a_thousand_items_fold_in_milliseconds_once_their_bodies_are_known() -> None:
    body = (COLLECTIONS / "vercel-labs" / "react-best-practices" / "SKILL.md").read_text(encoding="utf-8")
    library = [
        document_candidate(
            DocumentItem("reference", f"skill-{i}", text=f"# Skill {i}\n\n{body}", include=IncludeMode.AGENT)
        )
        for i in range(1000)
    ]
    library += [document_candidate(DocumentItem("reference", "skill-7-2", text=library[7].document.text))]

    started = time.perf_counter()
    kept, folded = fold_duplicates(library)
    first = time.perf_counter() - started
    started = time.perf_counter()
    fold_duplicates(library)
    again = time.perf_counter() - started

    assert len(kept) == 1000
    assert folded.copies == {ItemRef("reference", "skill-7-2"): ItemRef("reference", "skill-7")}
    # Measured on two shared cores: ~60 ms the first time (7 MB of text), ~4 ms after.
    assert again < first
    assert again < 0.1


def test_an_edited_copy_is_a_new_version_and_no_longer_folds_when_it_differs_materially() -> None:
    original = reference("vercel-labs", "web-design-guidelines")
    copy = reference("antigravity", "web-design-guidelines", "web-design-guidelines-2")
    assert fold_duplicates([original, copy])[1].copies

    rewritten = reference("antigravity", "senior-architect").document.text
    edited = Candidate(copy.ref, replace(copy.document, text=rewritten))

    kept, folded = fold_duplicates([original, edited])

    assert len(kept) == 2
    assert not folded.copies


def test_past_sixteen_items_of_one_name_only_identical_bodies_fold() -> None:
    base = reference("antigravity", "debugging-toolkit-smart-debug", "smart-debug")
    edited = reference("antigravity", "error-diagnostics-smart-debug", "smart-debug-2")
    identical = [
        Candidate(
            ItemRef("reference", f"smart-debug-{i}"), replace(base.document, key=f"reference:smart-debug-{i}")
        )
        for i in range(3, 3 + MAX_SAME_NAME_COMPARED)
    ]

    kept, folded = fold_duplicates([base, edited, *identical])

    assert names(kept) == ["smart-debug", "smart-debug-2"]  # near-identical, but not compared
    assert set(folded.copies) == {c.ref for c in identical}
