"""The words for items judged before their index was complete: a rule or a reference waits for
its body, a skill (which has none) for its description sentence by sentence."""

from __future__ import annotations

from agent_core.context.items import ItemRef
from agent_core.context.judged_short import (
    judged_short_reason,
    judged_short_summary,
    judged_short_tag,
    what_follows,
)


def test_a_reference_waits_for_its_body_and_a_skill_for_its_sentences() -> None:
    reference, skill = ItemRef("reference", "handbook"), ItemRef("skill", "pdf")
    assert (
        judged_short_reason(reference, True)
        == "judged on its description only (its body is still being indexed)"
    )
    assert (
        judged_short_reason(reference, False)
        == "judged on its description only (its body is not indexed yet)"
    )
    assert judged_short_reason(skill, True) == (
        "judged on its whole description only (its sentences are still being indexed)"
    )
    assert "body" not in judged_short_reason(skill, False)
    assert (judged_short_tag(reference), judged_short_tag(skill)) == (
        "description only",
        "whole description only",
    )


def test_the_summary_counts_each_kind_in_its_own_words_and_says_nothing_for_none() -> None:
    refs = [ItemRef("rule", "a"), *(ItemRef("skill", f"s{i}") for i in range(1_200))]
    assert judged_short_summary(refs, still_indexing=False) == (
        "1 item judged on the description only (bodies not indexed yet); "
        "1,200 skills judged on the whole description only (sentences not indexed yet)"
    )
    assert judged_short_summary([]) == ""


def test_what_follows_names_what_the_background_embeds() -> None:
    assert what_follows(["reference", "rule"]) == "bodies"
    assert what_follows(["skill"]) == "sentences"
    assert what_follows(["skill", "reference"]) == "bodies and sentences"
    assert what_follows([]) == "bodies"
