"""Rare names and fields: a word that names exactly one item (an app, a library) lifts that item,
a common word lifts nothing, and a message saying what a description says is not outvoted by
other items' bodies."""

from __future__ import annotations

import numpy as np
import pytest

from indexer import Document, SelectionSettings
from indexer._rare_names import HeadIndex, head_bonus
from indexer.ranking import rank_hybrid

APPS = [
    "Strava",
    "Fitbit",
    "Splitwise",
    "Wise",
    "Gong",
    "Fireflies",
    "Otter",
    "Jira",
    "Linear",
    "Asana",
    "Trello",
    "ClickUp",
    "Monday",
    "Stripe",
    "PayPal",
    "Square",
    "QuickBooks",
    "Xero",
    "FreshBooks",
    "Slack",
    "Discord",
    "Teams",
    "Zoom",
    "Webex",
    "Notion",
    "Coda",
    "Airtable",
    "Dropbox",
    "Box",
    "OneDrive",
    "Gmail",
    "Outlook",
    "HubSpot",
    "Salesforce",
    "Pipedrive",
    "Zendesk",
    "Intercom",
    "Freshdesk",
    "Shopify",
    "WooCommerce",
    "Mailchimp",
    "Klaviyo",
    "Sendgrid",
    "Twilio",
    "Figma",
    "Miro",
    "Canva",
    "Toggl",
    "Harvest",
    "Calendly",
]


def app_item(app: str) -> Document:
    """One item of the app-automation template: only the app's name differs."""
    slug = f"{app.lower()}-automation"
    return Document(
        key=f"reference:{slug}",
        kind="reference",
        name=slug,
        description=f"Automate {app} tasks via the connected MCP tool server: list, create and update "
        "records. Always search tools first for current schemas.",
        text=f"# {app} automation\n\nSearch the tools, then call them with the ids the search gave.",
    )


LIBRARY = [app_item(app) for app in APPS]
OFF = SelectionSettings(rare_name_weight=0.0, rare_name_lift=False, head_lexical_weight=0.0)
STRAVA = APPS.index("Strava")
FITBIT = APPS.index("Fitbit")


def included_names(message: str, cosines: np.ndarray, settings: SelectionSettings) -> list[str]:
    index = HeadIndex(LIBRARY)
    bonus, lifted = head_bonus(lambda: index, message, settings)
    ranking = rank_hybrid(
        cosines.astype(np.float32),
        np.arange(len(LIBRARY), dtype=np.intp),
        np.zeros(len(LIBRARY), dtype=np.float32),
        np.zeros(len(LIBRARY), dtype=np.bool_),
        settings,
        bonus,
        lifted,
    )
    return [LIBRARY[int(i)].name for i in ranking.included_order()]


def templated_cosines() -> np.ndarray:
    """What the embedding gives a templated library: every item alike, a neighbour a little ahead,
    all under the floor."""
    cosines = np.full(len(LIBRARY), 0.33)
    cosines[FITBIT] = 0.36
    cosines[STRAVA] = 0.34
    return cosines


def test_fifty_templated_apps_have_fifty_library_items() -> None:
    assert len(LIBRARY) == 50


def test_a_message_naming_strava_selects_strava_and_not_its_neighbours() -> None:
    settings = SelectionSettings(rare_name_weight=0.15, rare_name_lift=True)
    assert included_names("log my morning run on Strava", templated_cosines(), settings) == [
        "strava-automation"
    ]


def test_without_the_signal_the_templated_library_offers_nothing() -> None:
    assert included_names("log my morning run on Strava", templated_cosines(), OFF) == []


def test_a_common_word_of_the_template_lifts_nothing() -> None:
    settings = SelectionSettings(rare_name_weight=0.15, rare_name_lift=True)
    index = HeadIndex(LIBRARY)
    assert not index.name_match("automate my tasks and update the records").any()
    assert included_names("automate my tasks and update the records", templated_cosines(), settings) == []


def test_the_name_match_is_one_item_share_of_its_distinctive_words() -> None:
    match = HeadIndex(LIBRARY).name_match("log my morning run on Strava")
    assert match[STRAVA] == 1.0
    assert np.count_nonzero(match) == 1


def test_a_misspelt_long_name_still_matches_but_a_short_near_word_does_not() -> None:
    index = HeadIndex(LIBRARY)
    quickbooks = APPS.index("QuickBooks")
    assert index.name_match("list unpaid invoices in quikbooks")[quickbooks] == 1.0
    # "box" is a word of its own, not a typo of "xero" or "wise"; short words never match fuzzily.
    assert not index.name_match("put it in a wiser place")[APPS.index("Wise")]


@pytest.mark.parametrize("typo", ["calender", "calednar", "calendr"])
def test_one_edit_or_one_swap_of_a_long_word_matches(typo: str) -> None:
    index = HeadIndex([*LIBRARY, app_item("Calendar")])
    assert index.name_match(f"whats on my {typo}")[len(LIBRARY)] == 1.0


def test_a_fuzzy_match_needs_the_same_first_letter() -> None:
    index = HeadIndex([*LIBRARY, app_item("Evolution")])
    assert not index.name_match("summarize the french revolution").any()


def test_a_name_word_many_items_share_is_not_distinctive() -> None:
    # "google" names seven items here: saying it alone says which of them it is not.
    googles = [app_item(f"Google {part}") for part in ("Calendar", "Meet", "Drive", "Sheets", "Docs")]
    index = HeadIndex([*LIBRARY, *googles])
    match = index.name_match("open google")
    assert not match.any()
    assert index.name_match("add a row to my google sheets")[len(LIBRARY) + 3] == 1.0


USE_WHEN = Document(
    key="reference:debug",
    kind="reference",
    name="debug",
    description="Use when encountering any bug, crash or test failure, before proposing fixes.",
    text="# Systematic debugging\n\nReproduce first. Form one hypothesis at a time and check it.",
)
BODY_HEAVY = [
    Document(
        key=f"reference:{topic}",
        kind="reference",
        name=topic,
        description=f"Patterns for {topic.replace('-', ' ')}.",
        text=f"# {topic}\n\n" + "When the app crashes on startup, check the crash log. " * 6,
    )
    for topic in ("mobile-release", "electron-packaging", "service-workers")
]


def test_the_head_field_ranks_the_description_that_says_the_message_first() -> None:
    index = HeadIndex([USE_WHEN, *BODY_HEAVY])
    scores = index.head_scores("the app crashes on startup, some bug")
    assert int(np.argmax(scores)) == 0
    assert scores[0] > 0


def test_the_head_field_adds_its_weight_to_the_score() -> None:
    index = HeadIndex([USE_WHEN, *BODY_HEAVY])
    bonus, lifted = head_bonus(lambda: index, "any bug or crash", SelectionSettings(head_lexical_weight=0.2))
    assert bonus is not None and lifted is None
    assert bonus[0] == pytest.approx(0.2 * index.head_scores("any bug or crash")[0])


def test_off_by_default_nothing_is_built() -> None:
    def never() -> HeadIndex:
        raise AssertionError("the head index is built only when a head signal is on")

    assert head_bonus(never, "log my run on strava", OFF) == (None, None)


def test_negative_weights_are_refused() -> None:
    with pytest.raises(ValueError, match="cannot be negative"):
        SelectionSettings(rare_name_weight=-0.1)


def test_an_ordinary_word_in_a_name_is_not_a_name() -> None:
    # A tool named git_show and a note named leave-policy: their descriptions never write
    # "show" or "leave" as names, so saying them lifts nothing.
    tool = Document("tool:git/git_show", "tool", "git_show", "Shows the contents of a commit.", "")
    note = Document("reference:leave-policy", "reference", "leave-policy", "How to ask for leave.", "")
    index = HeadIndex([*LIBRARY, tool, note])
    assert not index.name_match("show me what they'll leave behind").any()
    assert index.name_match("show me what they'll leave behind", proper=False)[len(LIBRARY) + 1] > 0


def test_a_pasted_blob_is_never_matched_fuzzily() -> None:
    blob = "Q" + "x" * 5000
    index = HeadIndex([*LIBRARY, app_item(blob[:40])])
    assert not index.name_match(f"here is my key {blob}").any()
