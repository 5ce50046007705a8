"""The app pack of the selection-at-scale set is read from a snapshot of an Activepieces-shaped
repository: a piece's display name and its actions' display names, helpers and labelled apps left
out (benchmarks/selection/scale_pack.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.scripts import load_script

BENCHMARK = Path(__file__).resolve().parents[2] / "benchmarks" / "selection"
PIECES = "packages/pieces/community"

# Shaped like the Activepieces sources (createPiece in src/index.ts, createAction per action file).
PIECE = """export const {var} = createPiece({{
  displayName: '{app}',
  auth: {var}Auth,
  minimumSupportedRelease: '0.30.0',
  actions: [],
}});
"""
ACTION = """export const {var} = createAction({{
  auth: appAuth,
  name: '{var}',
  displayName: '{op}',
  description: 'Does it.',
  props: {{ id: Property.ShortText({{ displayName: 'ID', required: true }}) }},
}});
"""


@pytest.fixture(scope="module")
def scale_pack() -> ModuleType:
    return load_script("benchmarks/selection/scale_pack.py")


def _write(root: Path, path: str, text: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text, encoding="utf-8")


def _snapshot(tmp_path: Path) -> Path:
    """A bare git snapshot at ``owner+name/repo``, the way the mirrors keep one."""
    work = tmp_path / "work"
    _write(work, f"{PIECES}/acme-crm/src/index.ts", PIECE.format(var="acmeCrm", app="Acme CRM"))
    for var, op in (
        ("createLead", "Create Lead."),
        ("findLead", "Find Lead"),
        ("callApi", "Custom API Call"),
    ):
        _write(work, f"{PIECES}/acme-crm/src/lib/actions/{var}.ts", ACTION.format(var=var, op=op))
    _write(work, f"{PIECES}/jira-cloud/src/index.ts", PIECE.format(var="jira", app="Jira Cloud"))
    _write(work, f"{PIECES}/jira-cloud/src/lib/actions/a.ts", ACTION.format(var="a", op="Create Issue"))
    _write(work, f"{PIECES}/json/src/index.ts", PIECE.format(var="json", app="JSON"))
    _write(work, f"{PIECES}/json/src/lib/actions/a.ts", ACTION.format(var="a", op="Convert Text"))
    _write(work, f"{PIECES}/quiet/src/index.ts", PIECE.format(var="quiet", app="Quiet"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "init", "-q", str(work)], check=True)
    subprocess.run([*git, "-C", str(work), "add", "."], check=True)
    subprocess.run([*git, "-C", str(work), "commit", "-q", "-m", "pieces"], check=True)
    bare = tmp_path / "mirrors" / "acme+pieces" / "repo"
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(bare)], check=True)
    return bare


def test_a_new_app_becomes_one_templated_item_with_its_operations(
    scale_pack: ModuleType, tmp_path: Path
) -> None:
    bare = _snapshot(tmp_path)
    items = scale_pack.pack_items(bare, ["Jira"], "{app}: {ops}.", "# {app}\n{ops}\n")
    assert [(i["app"], i["description"], i["text"], i["group"]) for i in items] == [
        ("Acme CRM", "Acme CRM: create lead, find lead.", "# Acme CRM\ncreate lead, find lead", "app-pack")
    ]
    commit = subprocess.run(
        ["git", "--git-dir", str(bare), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    assert items[0]["source"] == f"acme/pieces@{commit[:8]}:{PIECES}/acme-crm/src/index.ts"
