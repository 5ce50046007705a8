"""Templated families: in a large pack of items described by one sentence with another app's name
in it, a member is chosen only when the message names it; other items are not affected."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from indexer import Document, SelectionSettings
from indexer._templates import TemplateFamilies
from indexer.ranking import rank_hybrid

APPS = [
    "Strava",
    "Fitbit",
    "Splitwise",
    "Google Calendar",
    "Google Meet",
    "Google Drive",
    "Cal.com",
    "HubSpot",
    "Fireflies",
    "Gong",
    "Microsoft Teams",
    "PDF.co",
]


def app_item(app: str, slug: str | None = None) -> Document:
    """One item of an app-automation pack: the description is one template with the app's name."""
    slug = slug or f"{app.lower().replace(' ', '-').replace('.', '-')}-automation"
    return Document(
        key=f"skill:{slug}",
        kind="skill",
        name=slug,
        description=f"Automate {app} tasks via the connected MCP tool server: list, create and update "
        "records. Always search tools first for current schemas.",
        text="",
    )


def other_items() -> list[Document]:
    return [
        Document("skill:pdf", "skill", "pdf", "Merge, split and fill PDF files with Python tools.", ""),
        Document(
            "skill:meeting-minutes",
            "skill",
            "meeting-minutes",
            "Use when a meeting ended: write the minutes, decisions and action items.",
            "",
        ),
    ]


LIBRARY = [app_item(app) for app in APPS] + other_items()
NAMES = [d.name for d in LIBRARY]


def named(message: str, *more: str, documents: list[Document] = LIBRARY, min_size: int = 10) -> list[str]:
    """The family members ``message`` (and ``more``) name: gated, and not left out."""
    families = TemplateFamilies(documents, min_size)
    unnamed = families.unnamed([message, *more])
    return [d.name for number, d in enumerate(documents) if families._gated[number] and not unnamed[number]]


def test_every_member_of_a_large_family_is_gated_and_nothing_else() -> None:
    families = TemplateFamilies(LIBRARY, 10)
    assert families.gated == len(APPS)
    assert not families._gated[NAMES.index("pdf")] and not families._gated[NAMES.index("meeting-minutes")]


def test_a_family_smaller_than_the_setting_is_not_a_family() -> None:
    assert TemplateFamilies(LIBRARY, len(APPS) + 1).gated == 0
    assert not TemplateFamilies(LIBRARY, len(APPS) + 1).unnamed(["anything"]).any()


def test_a_message_naming_an_app_names_that_app_alone() -> None:
    assert named("log my morning run on strava") == ["strava-automation"]
    assert named("add a meeting with Sam on friday to my Google Calendar") == ["google-calendar-automation"]


def test_a_word_many_members_share_names_none_of_them() -> None:
    # "google" is in three names, "automation" in all: neither tells a member apart.
    assert named("automate my google stuff") == []


def test_meeting_does_not_name_google_meet_but_meet_does() -> None:
    assert named("write the minutes of the meeting") == []
    assert named("create a google meet link for the standup") == ["google-meet-automation"]


@pytest.mark.parametrize(
    ("message", "app"),
    [
        ("whats on my calender", "google-calendar-automation"),
        ("add the taxi to splitwize", "splitwise-automation"),
    ],
)
def test_a_long_name_misspelt_by_one_edit_still_names_it(message: str, app: str) -> None:
    assert named(message) == [app]


def test_names_written_otherwise_in_the_description_still_form_the_family() -> None:
    # "Cal.com" and "HubSpot" are written otherwise than their slugs; "PDF.co" has a short name.
    families = TemplateFamilies(LIBRARY, 10)
    for slug in ("cal-com-automation", "hubspot-automation", "pdf-co-automation"):
        assert families._gated[NAMES.index(slug)], slug
    assert named("update the deal in hubspot") == ["hubspot-automation"]


def test_a_slug_written_as_one_word_is_named_by_the_two_words() -> None:
    documents = [app_item(app) for app in APPS if app != "Google Calendar"]
    documents.append(app_item("Google Calendar", "googlecalendar-automation"))
    assert named("what's on my google calendar today", documents=documents) == ["googlecalendar-automation"]


def test_the_message_before_a_short_follow_up_names_too() -> None:
    assert named("and for last week?", "how far did i run on strava") == ["strava-automation"]


def test_an_unnamed_member_is_never_included_and_does_not_set_the_best() -> None:
    # Google Meet scores a little above Google Calendar, as the embedding gives it for "add a
    # meeting to my google calendar"; unnamed, it must neither be chosen nor push Calendar "far".
    families = TemplateFamilies(LIBRARY, 10)
    message = "add a meeting with Sam to my google calendar"
    cosines = np.full(len(LIBRARY), 0.2, dtype=np.float32)
    cosines[NAMES.index("google-meet-automation")] = 0.9
    cosines[NAMES.index("google-calendar-automation")] = 0.6
    ranking = rank_hybrid(
        cosines,
        np.arange(len(LIBRARY), dtype=np.intp),
        np.zeros(len(LIBRARY), dtype=np.float32),
        np.zeros(len(LIBRARY), dtype=np.bool_),
        SelectionSettings(),
        unnamed=families.unnamed([message]),
    )
    assert [NAMES[int(i)] for i in ranking.included_order()] == ["google-calendar-automation"]
    assert ranking.row(NAMES.index("google-meet-automation")).reason == "not_named"


def test_a_negative_family_size_is_refused() -> None:
    with pytest.raises(ValueError, match="template_family_min"):
        SelectionSettings(template_family_min=-1)


def test_tools_described_alike_are_never_gated() -> None:
    tools = [
        Document(
            f"tool:github/create_{thing}",
            "tool",
            f"create_{thing}",
            f"Create a new {thing} in a GitHub repository.",
            "",
        )
        for thing in (
            "issue",
            "branch",
            "pull_request",
            "release",
            "label",
            "milestone",
            "tag",
            "file",
            "fork",
            "gist",
            "webhook",
        )
    ]
    families = TemplateFamilies(tools, 10)
    assert families.gated == 0
    assert not families.unnamed(["open a PR"]).any()


def test_an_item_the_user_gave_examples_is_not_gated() -> None:
    documents = [*LIBRARY[:-2], replace(app_item("Strava"), examples=("log my morning run",))]
    documents = [d for d in documents if d.name != "strava-automation"] + [documents[-1]]
    families = TemplateFamilies(documents, 10)
    assert not families._gated[len(documents) - 1]
    assert families.gated == len(APPS) - 1


def test_a_pasted_blob_costs_no_more_than_its_words() -> None:
    # Every word and pair of words is looked up once: a long paste must not hang selection.
    assert named("x" * 5000 + " strava " + "y " * 5000) == ["strava-automation"]
