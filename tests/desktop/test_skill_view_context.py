"""View Context's Skills column: each skill of a request as catalogue only / loaded / body inline,
with its tokens, include mode, score and reason; skills left out as near-misses; the tokens saved."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from agent_core.agent import load_agent
from agent_core.agent.agent import Agent
from agent_core.context.items import (
    ContextManifest,
    ItemRef,
    ManifestPart,
    NearMiss,
    RequestContext,
    RequestItem,
    SelectionRun,
)
from agent_core.context.skill_disclosure import ADDED_REASON, ALWAYS_REASON, LOADED_NOW_REASON, MATCHED_REASON
from desktop.dialogs.view_context import ViewContextDialog
from desktop.models.context_items import Column, ContextItemsModel, Role, near_miss_rows
from desktop.models.request_skills import (
    LOADED_IN_HISTORY,
    OFFERED_THEN_LOADED,
    involves_skills,
    skill_request_rows,
    skills_saved_line,
)
from tests.support.agent_files import write
from tests.support.paths import FIXTURES

SKILLS = FIXTURES / "desktop_skills"
A11Y = FIXTURES / "skill_script_flow" / "a11y-audit"
SAVED = "Skills: 1,140 tokens; listing every skill's description would cost 4,521 (3,381 saved)"


@pytest.fixture
def agent(tmp_path: Path) -> Agent:
    write(tmp_path / "agent.yaml", "name: a\nskills:\n  create-plan:\n    include: always\n")
    for name in ("create-plan", "file-conversion"):
        shutil.copytree(SKILLS / name, tmp_path / "skills" / name)
    shutil.copytree(A11Y, tmp_path / "skills" / "a11y-audit")
    return load_agent(tmp_path)


def request(*, manifest: bool = True) -> RequestContext:
    return RequestContext(
        items=(
            RequestItem(
                ItemRef("skill", "create-plan"), "always", reason=ALWAYS_REASON, skill_state="loaded"
            ),
            RequestItem(
                ItemRef("skill", "a11y-audit"), "agent", 0.61, reason=LOADED_NOW_REASON, skill_state="loaded"
            ),
            RequestItem(
                ItemRef("skill", "file-conversion"),
                "agent",
                0.55,
                reason=MATCHED_REASON,
                skill_state="catalogue",
            ),
        ),
        model="scripted:x",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.4),
        near_misses=(
            NearMiss(ItemRef("skill", "gone-skill"), 0.31, "below_floor", needed=0.35),
            NearMiss(ItemRef("reference", "notes"), 0.2, "below_floor"),
        ),
        manifest=ContextManifest(
            window=8000,
            window_source="test",
            reply_reserve=1000,
            counter="test",
            exact=True,
            parts=(
                ManifestPart("system_prompt", 50),
                ManifestPart("skill", 1000, "create-plan"),
                ManifestPart("skill_catalogue", 140, "file-conversion"),
            ),
            skills_listed_tokens=4521,
        )
        if manifest
        else None,
    )


def test_each_skill_row_says_what_the_request_carried_its_tokens_mode_score_and_reason(agent: Agent) -> None:
    rows = skill_request_rows(request(), agent)
    assert [(r.ref.name, r.mode, r.score, r.state, r.tokens) for r in rows] == [
        ("create-plan", "always", None, "loaded", 1000),
        # Loaded during the reply: its body is in the reply's tool result, counted with the turns.
        ("a11y-audit", "agent", 0.61, "loaded", None),
        ("file-conversion", "agent", 0.55, "catalogue only", 140),
    ]
    # Selection offered it and the model loaded it during the reply: the row says both steps.
    assert rows[1].description.startswith(f"{OFFERED_THEN_LOADED} · Accessibility audit skill")
    assert rows[2].description.startswith("Its description matched the message · Convert files")
    model = ContextItemsModel(rows)
    assert model.index(2, Column.MODE).data() == "Agent"
    assert model.index(2, Column.SCORE).data() == "0.55"
    assert model.index(2, Column.TOKENS).data() == "140"
    assert model.index(2, 0).data(Role.STATE) == "catalogue only"
    assert "In this request: catalogue only" in model.index(2, 0).data(Qt.ItemDataRole.ToolTipRole)
    assert "In this request: loaded" in rows[0].tooltip
    # a11y-audit came in during the reply: its body is in the history, and the line says so.
    assert skills_saved_line(request()) == f"{SAVED}; {LOADED_IN_HISTORY}"
    assert skills_saved_line(request(manifest=False)) == ""


def test_a_body_cut_to_its_share_of_the_window_says_only_part_of_it_came_inline(agent: Agent) -> None:
    cut = "chunks 1, 9, 26 of 116"
    context = RequestContext(
        items=(
            RequestItem(
                ItemRef("skill", "a11y-audit"), "agent", 0.8, reason=MATCHED_REASON, skill_state="inline"
            ),
        ),
        model="local:x",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.4),
        manifest=ContextManifest(
            window=4096,
            window_source="test",
            reply_reserve=512,
            counter="test",
            exact=True,
            parts=(ManifestPart("selected_skill", 800, "a11y-audit", cut),),
        ),
    )
    [row] = skill_request_rows(context, agent)
    assert row.state == "body inline"  # the badge; the words say which part of the body it was
    assert row.description.startswith(
        f"Its description matched the message; only the parts nearest the message came inline ({cut}), "
        "to fit its share of the window"
    )


def test_a_skill_the_agent_no_longer_has_shows_by_name_marked_removed(agent: Agent) -> None:
    shutil.rmtree(agent.root / "skills" / "file-conversion")
    rows = skill_request_rows(request(), load_agent(agent.root))
    assert [(r.ref.name, r.removed) for r in rows][-1] == ("file-conversion", True)


def test_only_requests_with_skills_or_an_agent_of_skills_show_the_column() -> None:
    plain = RequestContext(items=(), model="m", selection=SelectionRun(top_k=1, top_n=1, include_score=0.5))
    assert not involves_skills(plain)
    assert involves_skills(request(manifest=False))


def test_the_dialog_shows_a_skills_column_with_the_tokens_saved_and_the_skills_left_out(
    qtbot: QtBot, agent: Agent
) -> None:
    dialog = ViewContextDialog(request(), agent)
    qtbot.addWidget(dialog)
    assert list(dialog.columns) == ["rule", "reference", "skill", "tool"]
    column = dialog.columns["skill"]
    assert column.saved.text() == f"{SAVED}; {LOADED_IN_HISTORY}" and not column.saved.isHidden()
    proxy = column.items_view.proxy
    shown = {proxy.index(r, Column.NAME).data(): proxy.index(r, 0).data(Role.STATE) for r in range(3)}
    assert shown == {"create-plan": "loaded", "a11y-audit": "loaded", "file-conversion": "catalogue only"}
    misses = column.misses_model.rows()
    assert [(m.ref.name, m.reason_words) for m in misses] == [
        ("gone-skill", "under minScore: needed 0.35, got 0.31")
    ]
    assert "3" in column.title.text() and "1,140 tokens" in column.title.text()


def test_a_skill_added_by_hand_says_it_got_in_manually_and_what_its_include_mode_is(
    qtbot: QtBot, tmp_path: Path
) -> None:
    write(tmp_path / "agent.yaml", "name: a\n")
    shutil.copytree(SKILLS / "file-conversion", tmp_path / "skills" / "file-conversion")
    agent = load_agent(tmp_path)
    context = RequestContext(
        items=(
            RequestItem(
                ItemRef("skill", "file-conversion"), "manual", reason=ADDED_REASON, skill_state="loaded"
            ),
        ),
        model="scripted:x",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.4),
    )
    (row,) = skill_request_rows(context, agent)
    # The badge is how it got in (Manual: you added it); the Skills list shows its include mode
    # (Agent): the row says both, so the two do not read as contradicting each other.
    assert row.mode == "manual"
    assert row.description.startswith("Added by you to this chat (its include mode is Agent) · ")


def test_a_skill_description_with_hidden_characters_is_written_out_in_view_context(
    qtbot: QtBot, tmp_path: Path
) -> None:
    write(tmp_path / "agent.yaml", "name: a\n")
    write(
        tmp_path / "skills/sneaky/SKILL.md",
        '---\nname: sneaky\ndescription: "Weather\\u200b reports\\U000E0049."\n---\nBody\n',
    )
    agent = load_agent(tmp_path)
    context = RequestContext(
        items=(RequestItem(ItemRef("skill", "sneaky"), "agent", 0.7, reason=MATCHED_REASON),),
        model="scripted:x",
        selection=SelectionRun(top_k=20, top_n=5, include_score=0.4),
        near_misses=(NearMiss(ItemRef("skill", "sneaky"), 0.3, "below_floor", needed=0.45),),
    )
    (row,) = skill_request_rows(context, agent)
    (miss,) = near_miss_rows(context.near_misses, "skill", agent)
    for shown in (row.description, row.tooltip, miss.description, miss.tooltip):
        assert "Weather\\u200b reports\\U000e0049." in shown
        assert "\u200b" not in shown and "\U000e0049" not in shown
