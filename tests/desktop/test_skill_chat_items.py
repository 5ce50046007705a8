"""A skill joins and leaves the open chat from the Skills section (its button and its context
menu), through the same session add/remove as rules and references; the list marks the skills the
chat holds, added, always on, or loaded by the model, and removing a loaded one unloads it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QMenu
from pytestqt.qtbot import QtBot

from agent_core.agent import load_agent
from agent_core.context.items import ItemRef, SessionItem
from agent_core.providers.base import ChatRequest
from desktop.app import DesktopApp, create_app
from desktop.models.skills_model import SkillRole, SkillsModel, chat_skill_states, skill_rows
from desktop.views.skill_delegate import skill_badges
from desktop.views.skills_panel import ADD_TEXT, REMOVE_TEXT, SkillsSection
from tests.support.agent_files import write
from tests.support.desktop_driver import WAIT_MS, idle, scripted, send
from tests.support.paths import FIXTURES

SKILLS = FIXTURES / "desktop_skills"
PLAN = ItemRef("skill", "create-plan")
CONVERSION = ItemRef("skill", "file-conversion")


def test_the_chat_s_skills_are_marked_by_how_they_came_in(tmp_path: Path) -> None:
    write(tmp_path / "agent.yaml", "name: a\n")
    for name in ("create-plan", "file-conversion"):
        shutil.copytree(SKILLS / name, tmp_path / "skills" / name)
    states = chat_skill_states(
        (
            SessionItem(PLAN, "manual", loaded_at=3),
            SessionItem(CONVERSION, "manual"),
            SessionItem(ItemRef("rule", "x"), "always"),
        )
    )
    assert states == {"create-plan": "loaded", "file-conversion": "added"}
    assert chat_skill_states((SessionItem(PLAN, "always"),)) == {"create-plan": "always"}
    model = SkillsModel(skill_rows(load_agent(tmp_path).skills.values()))
    changed: list[int] = []
    model.dataChanged.connect(lambda first, _last, _roles=(): changed.append(first.row()))
    model.set_in_chat({"file-conversion": "added"})
    model.set_in_chat({"file-conversion": "added"})  # nothing changes: nothing repainted
    assert changed == [1]
    conversion, plan = model.index(1, 0), model.index(0, 0)
    assert conversion.data(SkillRole.IN_CHAT) == "added" and plan.data(SkillRole.IN_CHAT) == ""
    assert ("In chat", "skill") in skill_badges(conversion)
    assert "In this chat: added by you" in conversion.data(Qt.ItemDataRole.ToolTipRole)
    model.set_in_chat({"create-plan": "loaded"})
    assert ("Loaded", "skill") in skill_badges(model.index(0, 0))
    assert model.index(1, 0).data(SkillRole.IN_CHAT) == ""


@pytest.fixture
def app(qtbot: QtBot, agent_dir: Path) -> Iterator[DesktopApp]:
    for name in ("create-plan", "file-conversion"):
        shutil.copytree(SKILLS / name, agent_dir / "skills" / name)
    create_app()
    desktop = DesktopApp()
    desktop.start(agent_dir)
    qtbot.waitUntil(lambda: desktop.window.current_controller() is not None, timeout=WAIT_MS)
    yield desktop
    desktop.close()


def section(app: DesktopApp) -> SkillsSection:
    return app.window.context_panel.skills


def chat_refs(app: DesktopApp) -> set[ItemRef]:
    controller = app.window.current_controller()
    assert controller is not None
    return {item.ref for item in controller.items()}


def index_of(skills: SkillsSection, name: str) -> QModelIndex:
    assert skills.select(name)
    return skills.view.currentIndex()


def action(menu: QMenu, text: str) -> object:
    return next(a for a in menu.actions() if a.text() == text)


def test_add_to_chat_and_remove_from_chat_go_through_the_session(qtbot: QtBot, app: DesktopApp) -> None:
    skills = section(app)
    qtbot.waitUntil(lambda: skills.select("file-conversion"), timeout=WAIT_MS)
    assert skills.chat_button.text() == ADD_TEXT and skills.chat_button.isEnabled()
    qtbot.mouseClick(skills.chat_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: CONVERSION in chat_refs(app), timeout=WAIT_MS)
    qtbot.waitUntil(
        lambda: index_of(skills, "file-conversion").data(SkillRole.IN_CHAT) == "added", timeout=WAIT_MS
    )
    assert skills.chat_button.text() == REMOVE_TEXT
    # The context menu offers the other way round.
    menu = skills.menu_for(index_of(skills, "file-conversion"))
    action(menu, REMOVE_TEXT).trigger()  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: CONVERSION not in chat_refs(app), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: not index_of(skills, "file-conversion").data(SkillRole.IN_CHAT), timeout=WAIT_MS)
    assert skills.chat_button.text() == ADD_TEXT
    menu = skills.menu_for(index_of(skills, "create-plan"))
    action(menu, ADD_TEXT).trigger()  # type: ignore[attr-defined]
    qtbot.waitUntil(lambda: PLAN in chat_refs(app), timeout=WAIT_MS)


def test_a_skill_the_model_loaded_is_marked_and_removing_it_unloads_it(qtbot: QtBot, app: DesktopApp) -> None:
    qtbot.waitUntil(
        lambda: any(t.server == "skills" and t.name == "load" for t in app.host.tools.tools()),
        timeout=WAIT_MS,
    )
    provider = scripted(app)
    provider.enqueue_tool_call("skills__load", {"name": "create-plan"})
    provider.enqueue_reply("Here is the plan.")
    send(qtbot, app, "Make a plan for the launch")
    qtbot.waitUntil(lambda: idle(app), timeout=WAIT_MS)
    skills = section(app)
    qtbot.waitUntil(
        lambda: index_of(skills, "create-plan").data(SkillRole.IN_CHAT) == "loaded", timeout=WAIT_MS
    )
    assert skills.chat_button.text() == REMOVE_TEXT
    assert "loaded by the model" in skills.chat_button.toolTip()
    provider.enqueue_reply("Go on.")
    send(qtbot, app, "Go on")
    qtbot.waitUntil(lambda: idle(app) and "Go on" in sent(provider.requests[-1]), timeout=WAIT_MS)
    assert '<skill name="create-plan"' in system(provider.requests[-1])  # it stays while loaded
    qtbot.mouseClick(skills.chat_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: PLAN not in chat_refs(app), timeout=WAIT_MS)
    # The next request's system message carries no body of it (the load result stays in the history).
    provider.enqueue_reply("Fine.")
    send(qtbot, app, "Thanks")
    qtbot.waitUntil(lambda: idle(app) and "Thanks" in sent(provider.requests[-1]), timeout=WAIT_MS)
    assert '<skill name="create-plan"' not in system(provider.requests[-1])


def sent(request: ChatRequest) -> str:
    return "\n".join(str(message.content) for message in request.messages)


def system(request: ChatRequest) -> str:
    return str(request.messages[0].content)
