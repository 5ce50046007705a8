"""What a request carries of each skill: a selected skill's catalogue line only, framed as
third-party text; the body of an always-on, added or loaded skill; for a model that cannot load
skills, the best selected one's body inline above ``skillInlineScore``; and the tokens selection
saved against listing every skill."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.agent.schema import SelectionConfig
from agent_core.budget.counting import counter_for
from agent_core.budget.fitting import Limits
from agent_core.budget.windows import WindowSize
from agent_core.chat.prompt import Prompt, PromptLimits, build_prompt
from agent_core.context.items import ItemRef, RequestContext, RequestItem, SelectionRun, SessionItem
from agent_core.context.skill_disclosure import (
    ADDED_REASON,
    ALWAYS_REASON,
    INLINE_REASON,
    LOADED_EARLIER_REASON,
    MATCHED_REASON,
    disclosed_skills,
)
from agent_core.context.skill_framing import (
    CATALOGUE_OPENING,
    INLINE_OPENING,
    SKILLS_OPENING,
    catalogue_lines,
)
from agent_core.context.skill_report import describe_skill_uses, skill_uses
from agent_core.context.skill_source import SkillSource, enabled_skills
from agent_core.context.sources import ContextRequest, default_sources
from agent_core.providers.scripted import ScriptedProvider
from agent_core.store.export import describe_context
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

SKILLS = FIXTURES / "skill_disclosure" / "skills"
FIX_CI = ItemRef("skill", "gh-fix-ci")
PLAN = ItemRef("skill", "create-plan")
LINEAR = ItemRef("skill", "linear")
COUNTER = counter_for(ScriptedProvider(), "scripted", "x")
LIMITS = PromptLimits(Limits(WindowSize(32_000, "chat"), 1000), max_reference_tokens=4000)


def skilled_agent(root: Path, agent_yaml: str = "name: skilled\n") -> Agent:
    write(root / "agent.yaml", agent_yaml)
    shutil.copytree(SKILLS, root / "skills")
    return load_agent(root)


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    return skilled_agent(tmp_path / "agent")


def context_of(*items: RequestItem) -> RequestContext:
    return RequestContext(items, "scripted:x", SelectionRun(20, 5, 0.7))


def prompt_for(agent: Agent, context: RequestContext) -> Prompt:
    return build_prompt(agent, context, [], "our CI is red", {}, counter=COUNTER, limits=LIMITS)


def test_the_skill_source_offers_enabled_agent_mode_skills_not_in_the_chat(tmp_path: Path) -> None:
    agent = skilled_agent(
        tmp_path / "a",
        "name: a\nskills:\n  linear:\n    enabled: false\n  create-plan:\n    include: manual\n"
        "  web-design-guidelines:\n    include: always\n",
    )
    request = ContextRequest(agent, "hi", None, (SessionItem(FIX_CI, "manual"),), ())
    offered = {c.ref.name for c in SkillSource().candidates(request)}
    assert offered == {
        "gh-address-comments",
        "property-based-testing",
    }  # disabled never, manual/always not here
    assert any(isinstance(source, SkillSource) for source in default_sources())  # registered
    [document] = [
        c.document for c in SkillSource().candidates(request) if c.ref.name == "gh-address-comments"
    ]
    assert document.kind == "skill" and document.text == ""  # ranked by name and description only
    assert document.name == "gh address comments"
    assert document.description.startswith("Help address review/issue comments")


def test_a_selected_skill_brings_only_its_catalogue_line_framed_as_third_party(agent: Agent) -> None:
    context = context_of(RequestItem(FIX_CI, "agent", 0.71, skill_state="catalogue"))
    prompt = prompt_for(agent, context)
    user = prompt.messages[-1].content
    skill = agent.skills["gh-fix-ci"]
    assert CATALOGUE_OPENING in user and "written by a third party" in CATALOGUE_OPENING
    assert f"- {skill.catalogue_line()}" in user
    assert "(skills/gh-fix-ci/SKILL.md)" in user
    assert skill.body.strip()[:80] not in user and skill.body.strip()[:80] not in prompt.messages[0].content
    [part] = [p for p in prompt.manifest.parts if p.kind == "skill_catalogue"]
    assert part.name == "gh-fix-ci" and part.tokens > 0


def test_a_chats_skills_bring_their_body_in_the_system_message(agent: Agent) -> None:
    context = context_of(
        RequestItem(LINEAR, "always", skill_state="loaded", reason=ALWAYS_REASON),
        RequestItem(PLAN, "manual", skill_state="loaded", reason=ADDED_REASON),
    )
    system = prompt_for(agent, context).messages[0].content
    assert SKILLS_OPENING in system and "cannot override the user" in SKILLS_OPENING
    for name in ("linear", "create-plan"):
        assert agent.skills[name].body.strip()[:120] in system
        assert f'<skill name="{name}"' in system


def test_a_skill_loaded_during_the_reply_adds_nothing_beside_its_tool_result(agent: Agent) -> None:
    context = context_of(RequestItem(FIX_CI, "agent", 0.7, skill_state="loaded"))
    prompt = prompt_for(agent, context)
    assert not [p for p in prompt.manifest.parts if p.kind in ("skill", "skill_catalogue", "selected_skill")]


def test_the_tokens_saved_against_listing_every_skill(agent: Agent) -> None:
    context = context_of(RequestItem(FIX_CI, "agent", 0.71, skill_state="catalogue"))
    manifest = prompt_for(agent, context).manifest
    every = catalogue_lines(enabled_skills(agent))
    assert manifest.skills_listed_tokens >= COUNTER.count(every) > 0
    assert manifest.skill_tokens == sum(p.tokens for p in manifest.parts if p.kind == "skill_catalogue")
    assert manifest.skill_tokens_saved == manifest.skills_listed_tokens - manifest.skill_tokens > 0
    lines = describe_skill_uses(replace(context, manifest=manifest))
    exported = describe_context(replace(context, manifest=manifest))  # /context, the export
    assert exported[exported.index("**Skills**:") + 1 :][: len(lines)] == lines
    assert lines[0].startswith("- `gh-fix-ci` (agent 0.71, catalogue only, ")
    assert lines[-1] == (
        f"Skills: {manifest.skill_tokens:,} tokens; listing every skill's description would cost "
        f"{manifest.skills_listed_tokens:,} ({manifest.skill_tokens_saved:,} saved)"
    )


def test_an_agent_without_skills_records_no_skill_figures(tmp_path: Path) -> None:
    write(tmp_path / "a" / "agent.yaml", "name: a\n")
    manifest = prompt_for(load_agent(tmp_path / "a"), context_of()).manifest
    assert manifest.skills_listed_tokens == 0 and manifest.skill_tokens_saved == 0


SELECTED = (
    RequestItem(FIX_CI, "agent", 0.66, skill_state=None),
    RequestItem(PLAN, "agent", 0.52, reason="matched its example “make a plan”"),
)


def test_a_model_that_can_load_skills_gets_catalogue_lines_and_the_chats_skills_their_reason() -> None:
    chat = (SessionItem(LINEAR, "manual", loaded_at=3),)
    context = context_of(RequestItem(LINEAR, "manual"), *SELECTED)
    out = disclosed_skills(context, chat, SelectionConfig(), can_load=True)
    states = {item.ref.name: (item.skill_state, item.reason) for item in out.items}
    assert states == {
        "linear": ("loaded", LOADED_EARLIER_REASON),
        "gh-fix-ci": ("catalogue", MATCHED_REASON),
        "create-plan": ("catalogue", "matched its example “make a plan”"),
    }
    assert not out.notes.skills


def test_a_model_that_cannot_load_skills_gets_the_best_ones_body_inline_above_the_threshold(
    agent: Agent,
) -> None:
    config = SelectionConfig(skill_inline_score=0.6)
    out = disclosed_skills(context_of(*SELECTED), (), config, can_load=False)
    [item] = out.of_type("skill")
    assert (item.ref, item.skill_state) == (FIX_CI, "inline")
    assert item.reason == f"{MATCHED_REASON}; {INLINE_REASON}"
    [miss] = out.near_misses
    assert miss.ref == PLAN and "only the best one comes inline" in miss.reason
    assert "gh-fix-ci's instructions came inline" in out.notes.skills
    prompt = prompt_for(agent, out)
    user = prompt.messages[-1].content
    assert INLINE_OPENING in user and agent.skills["gh-fix-ci"].body.strip()[:120] in user
    assert CATALOGUE_OPENING not in user
    [use] = skill_uses(replace(out, manifest=prompt.manifest))
    assert use.state == "inline" and use.tokens is not None and use.tokens > 100


def test_below_the_threshold_no_body_comes_inline_and_the_record_says_what_it_needed() -> None:
    config = SelectionConfig(skill_inline_score=0.7)
    out = disclosed_skills(context_of(*SELECTED), (), config, can_load=False)
    assert not out.of_type("skill")
    best = next(m for m in out.near_misses if m.ref == FIX_CI)
    assert best.needed == 0.7 and "below skillInlineScore" in best.reason
    assert "no selected skill scored skillInlineScore" in out.notes.skills


def test_a_long_body_inline_is_cut_to_its_relevant_chunks_so_a_small_window_still_holds_it(
    tmp_path: Path,
) -> None:
    root = tmp_path / "agent"
    write(root / "agent.yaml", "name: local\n")
    sections = [f"## Step {n}\n\nRun the linter on module {n} and fix warning W{n}." for n in range(2000)]
    sections[1500] = "## Flaky tests\n\nRetry the flaky integration tests with --reruns 3 before failing CI."
    body = "\n\n".join(sections)
    write(
        root / "skills/ci-handbook/SKILL.md", f"---\nname: ci-handbook\ndescription: CI fixes.\n---\n{body}\n"
    )
    agent = load_agent(root)
    small = PromptLimits(Limits(WindowSize(4096, "chat"), 512), max_reference_tokens=int(0.25 * 3584))
    context = context_of(RequestItem(ItemRef("skill", "ci-handbook"), "agent", 0.8, skill_state="inline"))
    prompt = build_prompt(agent, context, [], "my flaky tests fail CI", {}, counter=COUNTER, limits=small)
    assert prompt.manifest.total_tokens <= 4096 - 512
    [part] = [p for p in prompt.manifest.parts if p.kind == "selected_skill"]
    assert part.detail.startswith("chunks ") and part.tokens <= small.max_reference_tokens + 50
    assert "Retry the flaky integration tests" in prompt.messages[-1].content
    # What View Context, the CLI and the export say of it: part of the body, not the body.
    recorded = replace(context, manifest=prompt.manifest)
    [use] = skill_uses(recorded)
    assert use.cut == part.detail
    line = describe_skill_uses(recorded)[0]
    assert f"only the parts nearest the message came inline ({part.detail})" in line


def test_a_question_about_what_a_thing_is_gets_no_skill_inline_and_says_why() -> None:
    # "what's git": a small model given a git skill's procedure recited it instead of answering.
    out = disclosed_skills(
        context_of(*SELECTED),
        (),
        SelectionConfig(skill_inline_score=0.1),
        can_load=False,
        asks_what_a_thing_is=True,
    )
    assert not out.of_type("skill")
    assert {m.ref for m in out.near_misses} == {FIX_CI, PLAN}
    assert all("asks what a thing is" in m.reason and m.needed is None for m in out.near_misses)
    assert "asks what a thing is: no skill came inline" in out.notes.skills
    # A model that loads skills itself still gets the catalogue line: it decides.
    listed = disclosed_skills(
        context_of(*SELECTED), (), SelectionConfig(), can_load=True, asks_what_a_thing_is=True
    )
    assert {item.skill_state for item in listed.of_type("skill")} == {"catalogue"}
