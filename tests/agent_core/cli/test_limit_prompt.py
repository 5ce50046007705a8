"""Before a sub-agent, a workflow or /compact runs on a model that cannot do it reliably, the
terminal shows one line and runs only on --yes or a yes; a capable model is not asked about."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.cli.limit_prompt import confirm_model
from agent_core.providers.base import Provider, ProviderSettings
from agent_core.providers.local_llama import DEFAULT_MODEL_ID, LocalLlamaProvider
from agent_core.providers.scripted import ScriptedProvider
from tests.support.cli_runs import run, with_researcher

BUNDLED = f"offline:{DEFAULT_MODEL_ID}"
WARNING = (
    f"contextdesk: {BUNDLED} is small: it may not give each workflow step the output the next one needs; "
    "a step whose output does not fit the next one stops the run for review.\n"
)


def resolver(provider: Provider) -> object:
    return lambda ref: (provider, ref.partition(":")[2])


def test_the_bundled_model_warns_and_runs_only_with_yes() -> None:
    bundled = LocalLlamaProvider(ProviderSettings(provider_id="offline", type="local"))
    err = io.StringIO()
    assert not asyncio.run(confirm_model(resolver(bundled), BUNDLED, "workflow", yes=False, err=err))  # type: ignore[arg-type]
    assert err.getvalue().startswith(WARNING)
    assert "not run. Pick another model with an assistant's model: in the workflow file" in err.getvalue()
    err = io.StringIO()
    assert asyncio.run(confirm_model(resolver(bundled), BUNDLED, "workflow", yes=True, err=err))  # type: ignore[arg-type]
    assert err.getvalue() == WARNING


def test_a_model_that_passed_the_check_is_not_asked_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONTEXTDESK_HOME", str(tmp_path))

    class Cloud(ScriptedProvider):
        internal = False  # stands for a cloud model here: the two probe requests are scripted

    cloud = Cloud()
    cloud.enqueue_tool_call("add_numbers", {"a": 25, "b": 17})
    cloud.enqueue_reply('{"name": "Lighthouse Cafe", "city": "Porto", "opened": 2019, "seats": 42}')
    err = io.StringIO()
    assert asyncio.run(confirm_model(resolver(cloud), "cloud:big", "subagent", yes=False, err=err))  # type: ignore[arg-type]
    assert err.getvalue() == "" and len(cloud.requests) == 2
    # Checked once: the second run asks nothing of the model.
    assert asyncio.run(confirm_model(resolver(cloud), "cloud:big", "subagent", yes=False, err=err))  # type: ignore[arg-type]
    assert len(cloud.requests) == 2


def test_subagent_run_on_the_bundled_model_stops_before_the_child_without_yes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = with_researcher(create_agent(tmp_path / "agent").root)
    code, out, err = run(
        capsys, "subagent", "run", "--agent", str(agent), "researcher", "When is the launch?"
    )
    assert code == 1 and out == ""
    assert (
        "is small: it may not choose the tools the sub-agent needs, and may describe files it never read"
        in err
    )
    assert "Pick another model with the sub-agent file's model:" in err


READ_NOTES = """
description: Read the notes file
tools:
  - id: reader
    tool: workspace.read_file
states:
  - id: read
    tool_id: reader
    tool_args: {path: notes.md}
    next: {state_id: end, output_key: notes}
"""


def test_a_workflow_of_tool_states_only_runs_on_the_bundled_model_without_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    documents = tmp_path / "Documents"
    documents.mkdir()
    (documents / "notes.md").write_text("Buy milk.\n", encoding="utf-8")
    agent = create_agent(tmp_path / "agent").root
    config = agent / "agent.yaml"
    config.write_text(config.read_text().replace("~/Documents", str(documents)))
    (agent / "workflows").mkdir(exist_ok=True)
    (agent / "workflows" / "readnotes.yaml").write_text(READ_NOTES, encoding="utf-8")
    # --yes answers the tool's approval; a model warning would still be printed before it.
    code, out, err = run(capsys, "workflow", "run", "--agent", str(agent), "--yes", "readnotes")
    assert "is small" not in err and "Pick another model" not in err and "not run." not in err
    assert code == 0 and "Buy milk." in out
