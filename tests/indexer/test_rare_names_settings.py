"""The rare-name and head-field settings of an agent's ``selection`` reach the indexer; unset, the
indexer's own defaults hold."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agent_core.agent.schema import SelectionConfig
from agent_core.context.selection import indexer_settings
from indexer import SelectionSettings


def test_an_agents_settings_reach_the_indexer() -> None:
    config = SelectionConfig.model_validate(
        {
            "rareNameWeight": 0.3,
            "rareNameMaxItems": 5,
            "rareNameProper": False,
            "rareNameLift": True,
            "headLexicalShare": 0.5,
            "headLexicalWeight": 0.1,
        }
    )
    settings = indexer_settings(config)
    assert (
        settings.rare_name_weight,
        settings.rare_name_max_items,
        settings.rare_name_proper,
        settings.rare_name_lift,
        settings.head_lexical_share,
        settings.head_lexical_weight,
    ) == (0.3, 5, False, True, 0.5, 0.1)


def test_unset_they_are_the_indexers_own() -> None:
    assert indexer_settings(SelectionConfig()) == SelectionSettings()
    assert SelectionSettings().rare_name_weight == 0.15


def test_out_of_range_is_refused_with_the_setting_named() -> None:
    with pytest.raises(ValidationError, match=r"rareNameMaxItems|rare_name_max_items"):
        SelectionConfig.model_validate({"rareNameMaxItems": 0})


def test_the_large_library_settings_reach_the_indexer_and_refuse_out_of_range() -> None:
    config = SelectionConfig.model_validate(
        {"bodyNoiseSlope": 0.0, "headAgreementSlope": 0.3, "templateFamilyMin": 0, "twinSimilarity": 1.0}
    )
    settings = indexer_settings(config)
    assert (
        settings.body_noise_slope,
        settings.head_agreement_slope,
        settings.template_family_min,
        settings.twin_similarity,
    ) == (0.0, 0.3, 0, 1.0)
    with pytest.raises(ValidationError, match=r"headAgreementSlope|head_agreement_slope"):
        SelectionConfig.model_validate({"headAgreementSlope": -0.1})
