"""The import report as the desktop shows it: what to read before trusting a skill comes first,
and an import of nothing says so in its first line."""

from __future__ import annotations

from agent_core.agent.importers import ImportReport
from desktop.dialogs.import_report import report_summary, report_text


def test_trust_warnings_come_first_and_are_counted_in_the_summary() -> None:
    report = ImportReport(
        "Agent Skills (folders with a SKILL.md)",
        created=["skill 'sneaky' (1 file)"],
        warnings=["skill 'sneaky' (from Sneaky): named 'sneaky'"],
        trust_warnings=["skill 'sneaky' (from Sneaky): SKILL.md tells the model to send private data out"],
    )
    text = report_text(report)
    assert text.startswith("Read before trusting: what these skills ask of the model (1):")
    assert text.index("send private data out") < text.index("named 'sneaky'")
    assert report_summary(report).endswith("1 warning, 1 to read before trusting.")


def test_an_import_of_nothing_says_so_first() -> None:
    report = ImportReport(
        "Agent Skills (folders with a SKILL.md)",
        skipped=["skill at .: SKILL.md: not UTF-8 text (byte 33)"],
        nothing_imported=True,
    )
    assert report_summary(report) == (
        "Nothing was imported: the lines below say why. (Agent Skills (folders with a SKILL.md): "
        "1 left out, 0 warnings)"
    )
