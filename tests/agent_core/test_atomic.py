"""Atomic writes: a failed save leaves the previous file whole and no litter behind."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from agent_core import atomic
from agent_core.atomic import AtomicWriteError, atomic_write_text


def test_a_write_replaces_the_file_and_keeps_its_permissions(tmp_path: Path) -> None:
    target = tmp_path / "agent.yaml"
    target.write_text("old")
    target.chmod(0o640)
    atomic_write_text(target, "new ✓")
    assert target.read_text(encoding="utf-8") == "new ✓"
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.yaml"]


def test_a_full_disk_keeps_the_previous_version_and_says_how_to_fix_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "rules" / "r.md"
    target.parent.mkdir()
    target.write_text("previous")

    def disk_full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(atomic.os, "fsync", disk_full)
    with pytest.raises(AtomicWriteError, match=r"free some disk space.*previous version is unchanged"):
        atomic_write_text(target, "new text")
    assert target.read_text() == "previous"
    assert [p.name for p in target.parent.iterdir()] == ["r.md"]


def test_missing_folders_are_created(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "c.md"
    atomic_write_text(target, "x")
    assert target.read_text() == "x"
