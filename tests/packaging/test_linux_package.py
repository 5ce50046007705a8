"""The built .deb, as a new user meets it (packaging/check.py): installed into a fresh root, it
answers offline, shows its window on a real X display and, removed, leaves the user's data alone.

Building the .deb takes minutes, so the test run does not: this runs when `python3 packaging/build.py
linux` has left one in dist/, and `python3 packaging/check.py linux` runs the same checks by hand.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from tests.support.paths import REPO_ROOT
from tests.support.scripts import load_script

pytestmark = pytest.mark.slow


def built_deb() -> Path:
    debs = sorted((REPO_ROOT / "dist").glob("contextdesk_*.deb"), key=lambda path: path.stat().st_mtime)
    if not debs:
        pytest.skip(
            "no dist/contextdesk_*.deb: build one with `python3 packaging/build.py linux` to check it"
        )
    missing = [tool for tool in ("dpkg-deb", "Xvfb") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"checking the .deb needs {' and '.join(missing)} (apt-get install dpkg xvfb)")
    return debs[-1]


def test_the_built_deb_answers_offline_shows_its_window_and_uninstalls_leaving_user_data(
    tmp_path: Path,
) -> None:
    deb = built_deb()
    check = load_script("packaging/check.py")
    report = check.check_package("linux", deb, tmp_path, runs=1)
    with (REPO_ROOT / "pyproject.toml").open("rb") as file:
        assert report.version == tomllib.load(file)["project"]["version"]
    assert report.installed_mb < check.SIZE_GOAL_MB
    assert report.answer
    assert "ContextDesk" in report.window_title and report.window_s[0] > 0
    # The data went to the new user's platform folder, and stayed there when the install went.
    assert report.data_folder == tmp_path / "home" / ".local" / "share" / "contextdesk"
    assert (report.data_folder / "contextdesk.sqlite3").is_file()
    assert not (tmp_path / "root").exists()
