"""A reply that says it read, ran or changed something when no tool did gets a warning beside it;
a reply that did use a tool, or claims nothing of the kind, gets none."""

from __future__ import annotations

import pytest

from agent_core.context.provenance import Provenance, ToolUse
from agent_core.context.unbacked_claims import unbacked_claim

NO_TOOL = Provenance("model", "fake:fake-model")


@pytest.mark.parametrize(
    ("reply", "quoted"),
    [
        # Seen in QA with a model that made no tool call.
        ("I have read notes.md and the launch is on 1 April.", "I have read notes.md"),
        ("I've checked your documents folder: it has three files.", "I've checked your documents folder"),
        ("I ran the tests and all 12 passed.", "I ran the tests"),
        ("Done! I saved the changes to config.yaml.", "I saved the changes to config.yaml"),
        ("Your folder contains docs/index.html and src/app.js.", "Your folder contains"),
    ],
)
def test_a_claim_of_work_no_tool_did_is_warned_about(reply: str, quoted: str) -> None:
    warning = unbacked_claim(reply, NO_TOOL)
    assert warning.startswith(f"No tool was used for this reply, yet it says “{quoted}")
    assert "nothing was read, run or changed" in warning


@pytest.mark.parametrize(
    "reply",
    [
        "A palindrome reads the same forwards and backwards.",
        "I read that owls hunt by sound, so they are quiet fliers.",  # nothing a tool would do
        "You can list the files with `ls -la` in the folder.",
        "I think the file you describe would need a header.",
        # Work done in the reply itself, or on what the message held, needs no tool.
        "I've updated the code to handle empty lists:\n\n```python\nprint(1)\n```",
        "I checked your code and the loop never ends.",
        "I wrote a script for you below.",
    ],
)
def test_a_reply_that_claims_no_such_work_gets_no_warning(reply: str) -> None:
    assert unbacked_claim(reply, NO_TOOL) == ""


def test_a_reply_grounded_in_a_tool_result_or_not_written_by_the_model_gets_no_warning() -> None:
    claim = "I have read notes.md and the launch is on 1 April."
    read = ToolUse("workspace.read_file", {"path": "notes.md"})
    assert unbacked_claim(claim, Provenance("model", "m", (read,))) == ""
    assert unbacked_claim(claim, Provenance("tool_result", "", (read,))) == ""
    assert unbacked_claim(claim, None) == ""  # saved before provenance was recorded
    # A call that failed grounds nothing: the claim is still warned about.
    failed = ToolUse("workspace.read_file", {"path": "notes.md"}, is_error=True)
    assert unbacked_claim(claim, Provenance("model", "m", (failed,))) != ""
