"""The resource and prompt lists: sorted by server then name, labels, and the item under a role."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QAbstractItemModelTester
from pytestqt.qtbot import QtBot

from agent_core.mcp.types import PromptArgument, PromptInfo, ResourceInfo
from desktop.models.mcp_catalog import CatalogRole, PromptListModel, ResourceListModel


def test_resources_are_sorted_by_server_then_uri_and_labelled_with_their_title(qtbot: QtBot) -> None:
    model = ResourceListModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    greeting = ResourceInfo("demo", "demo://greeting", "greeting", "A greeting")
    readme = ResourceInfo("docs", "file:///README.md", "file:///README.md")
    notes = ResourceInfo("demo", "demo://notes", "notes", title="Meeting notes")
    model.set_items([readme, notes, greeting])
    assert [model.index(r).data(CatalogRole.NAME) for r in range(3)] == [
        "demo://greeting",
        "demo://notes",
        "file:///README.md",
    ]
    assert model.index(0).data() == "demo: greeting  (demo://greeting)"
    assert model.index(1).data() == "demo: Meeting notes  (demo://notes)"
    assert model.index(2).data() == "docs: file:///README.md"
    assert model.index(0).data(Qt.ItemDataRole.ToolTipRole) == "demo: greeting  (demo://greeting)\nA greeting"
    assert model.index(0).data(CatalogRole.ITEM) is greeting
    assert model.item(0) is greeting and model.index(3).data() is None
    model.set_items([])
    assert model.rowCount() == 0


def test_prompts_show_their_server_name_and_description(qtbot: QtBot) -> None:
    model = PromptListModel()
    QAbstractItemModelTester(model, QAbstractItemModelTester.FailureReportingMode.Fatal)
    review = PromptInfo(
        "demo", "review", "Ask for a review of some code.", arguments=(PromptArgument("code", required=True),)
    )
    model.set_items([PromptInfo("alpha", "plain"), review])
    assert model.index(0).data() == "alpha: plain"
    assert model.index(1).data() == "demo: review — Ask for a review of some code."
    assert (model.index(1).data(CatalogRole.SERVER), model.index(1).data(CatalogRole.DESCRIPTION)) == (
        "demo",
        "Ask for a review of some code.",
    )
    assert model.items() == [PromptInfo("alpha", "plain"), review]
