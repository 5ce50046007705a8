"""A non-editable install finds its resources; the wheel carries them; the desktop entry installs."""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from agent_core import resources
from agent_core.errors import ContextDeskError
from tests.support.paths import REPO_ROOT
from tests.support.scripts import load_script


def test_an_installed_copy_finds_its_resources_under_the_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(resources, "_CHECKOUT", tmp_path / "no-checkout")
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    with pytest.raises(ContextDeskError, match="reinstall"):
        resources.default_agent_dir()
    (tmp_path / "share" / "contextdesk" / "default-agent").mkdir(parents=True)
    assert resources.default_agent_dir() == tmp_path / "share" / "contextdesk" / "default-agent"
    assert resources.app_icon() == tmp_path / "share" / "contextdesk" / "icons" / "contextdesk.svg"


def test_a_checkout_uses_its_own_resources_folder() -> None:
    assert resources.default_agent_dir() == REPO_ROOT / "resources" / "default-agent"
    assert resources.app_icon().is_file()


@pytest.mark.slow
def test_the_wheel_carries_the_default_agent_icon_and_desktop_entry(tmp_path: Path) -> None:
    wheel = load_script("packaging/build.py").build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    shipped = {name.split(".data/data/", 1)[1] for name in names if ".data/data/" in name}
    agent_files = {
        p.relative_to(REPO_ROOT / "resources").as_posix() for p in (REPO_ROOT / "resources").rglob("*.*")
    }
    assert {f"share/contextdesk/{path}" for path in agent_files} <= shipped
    assert "share/applications/contextdesk.desktop" in shipped
    # The documentation Help shows inside the app.
    assert {"share/contextdesk/docs/agent-format.md", "share/contextdesk/docs/README.md"} <= shipped


def test_the_desktop_entry_installs_with_an_absolute_command_and_uninstalls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = load_script("packaging/linux/install_desktop_entry.py")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    command = Path(sys.executable).with_name("contextdesk")
    entry, icon = script.install(command)
    text = entry.read_text(encoding="utf-8")
    assert f"Exec={command}\n" in text and "Name=ContextDesk" in text and "Icon=contextdesk" in text
    assert icon.read_bytes() == (REPO_ROOT / "resources" / "icons" / "contextdesk.svg").read_bytes()
    assert script.uninstall() == [entry, icon] and not entry.exists() and not icon.exists()
    with pytest.raises(SystemExit, match="does not exist"):
        script.install(tmp_path / "missing" / "contextdesk")
