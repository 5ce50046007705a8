"""``contextdesk index`` and ``contextdesk select`` on an agent large enough to be indexed in
tiers, with the real embedding model: select answers on the descriptions and says so, index
embeds every body once, and select then judges every item whole."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agent_core.agent.scaffold import create_agent
from agent_core.cli.main import main
from agent_core.paths import user_dirs
from indexer import EmbeddingCache
from tests.support.paths import REPO_ROOT
from tests.support.tier_documents import MESSAGE, TELESCOPE, WAIT, skill_documents

pytestmark = pytest.mark.slow

HANDBOOK = {"type": "reference", "name": TELESCOPE.name}


@pytest.fixture
def large_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The default agent, the club handbook (only its body says what it is for) and a few real
    skills as agent-mode references; any body left to embed counts as a large agent's."""
    import indexer.tiers

    monkeypatch.setattr(indexer.tiers, "BODIES_LATER_MIN_CHUNKS", 1)
    root = tmp_path / "agent"
    create_agent(root)
    for document in (TELESCOPE, *skill_documents(4)):
        description = document.description.replace('"', "'")
        (root / "references" / f"{document.name}.md").write_text(
            f'---\ndescription: "{description}"\ninclude: agent\n---\n{document.text}\n', encoding="utf-8"
        )
    return root


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_select_answers_on_descriptions_says_so_and_index_makes_every_item_whole(
    large_agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    agent = str(large_agent)
    code, out, err = run(capsys, "select", "--agent", agent, "--no-tools", MESSAGE)
    assert code == 0, err
    assert "judged on the description only (bodies not indexed yet)" in out
    assert f"contextdesk index --agent {agent}" in err
    code, out, err = run(capsys, "select", "--agent", agent, "--no-tools", "--json", MESSAGE)
    assert code == 0, err
    assert HANDBOOK in json.loads(out)["description_only"]

    code, out, err = run(capsys, "index", "--agent", agent, "--json")
    assert code == 0, err
    first = json.loads(out)
    # The two selections before left every body for this command: it embeds them now.
    assert first["embedded"] > 0 and first["chunks"] == first["embedded"] + first["from_cache"]
    assert first["items"] >= 9  # three rules, two references, the skill, the handbook, four skills
    code, out, _ = run(capsys, "index", "--agent", agent, "--json")
    again = json.loads(out)
    assert (again["embedded"], again["from_cache"]) == (0, first["chunks"])  # nothing twice
    code, out, _ = run(capsys, "index", "--agent", agent)
    assert out.startswith(f"Indexed {first['items']} agent-mode items of ") and "0 newly embedded" in out

    code, out, err = run(capsys, "select", "--agent", agent, "--no-tools", "--json", MESSAGE)
    assert code == 0, err
    data = json.loads(out)
    assert "description_only" not in data and "contextdesk index" not in err
    assert HANDBOOK in [{k: item[k] for k in ("type", "name")} for item in data["selected"]]


_CUT_SHORT = """
import sys
import indexer.index
from agent_core.cli import progress_lines
from agent_core.cli.main import main

indexer.index.EMBED_SLICE = 8  # slices of 8 chunks, each saved as it is done

def waiting(stream):
    def report(done, total):
        print("embedded", done, "of", total, flush=True)
        sys.stdin.readline()  # the test kills the process here, after the first slice
    return report

progress_lines.indexing_progress = waiting
sys.exit(main(["index", "--agent", sys.argv[1]]))
"""


def test_an_index_cut_short_keeps_its_slices_and_the_next_run_embeds_only_the_rest(
    large_agent: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO_ROOT)}
    child = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_CUT_SHORT), str(large_agent)],
        env=env,
        cwd=REPO_ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdin is not None
    line = child.stdout.readline()
    child.kill()
    child.wait(WAIT)
    child.stdout.close()
    child.stdin.close()
    assert line.startswith("embedded 8 of "), line
    cache = EmbeddingCache(user_dirs().embeddings_cache)
    kept = cache.count()
    cache.close()
    assert kept == 8

    code, out, err = run(capsys, "index", "--agent", str(large_agent), "--json")
    assert code == 0, err
    resumed = json.loads(out)
    assert 0 < resumed["embedded"] < resumed["chunks"]
    cache = EmbeddingCache(user_dirs().embeddings_cache)
    assert cache.count() == kept + resumed["embedded"]  # each chunk embedded once over both runs
    cache.close()


def test_index_refuses_a_folder_that_is_no_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "index", "--agent", str(tmp_path / "missing"))
    assert code == 1 and out == ""
    assert "is not a folder" in err and "contextdesk agent new" in err
