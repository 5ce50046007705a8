"""The built-in servers, connected in memory through the same client code as any other server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent_core.agent.items import DocumentItem
from agent_core.agent.schema import IncludeMode, InternalServerConfig
from agent_core.mcp import McpManager, ServerState

pytestmark = pytest.mark.anyio


def internal(tool: str, **options: str | int | bool) -> InternalServerConfig:
    return InternalServerConfig(type="internal", tool=tool, options=options)


async def test_the_references_server_lists_and_reads_the_current_references() -> None:
    references = {
        "pricing": DocumentItem(
            kind="reference", name="pricing", description="Plans and prices", text="Team: $29"
        ),
    }
    async with McpManager({"refs": internal("references")}, references_source=lambda: references) as manager:
        status = manager.status("refs")
        assert status.state is ServerState.READY and status.server_name == "contextdesk-references"
        tools = {t.name: t for t in manager.tools()}
        assert set(tools) == {"list_references", "read_reference"}
        assert tools["read_reference"].include is IncludeMode.AGENT
        assert tools["read_reference"].permission == "allow"
        assert all(t.annotations.badges == ("read-only",) for t in tools.values())  # shown as such

        listed = await manager.call_tool("refs", "list_references", {})
        assert listed.text == "pricing: Plans and prices"
        assert (await manager.call_tool("refs", "read_reference", {"name": "pricing"})).text == "Team: $29"
        # Edits show at once: the server reads the source on every call.
        references["faq"] = DocumentItem(kind="reference", name="faq", text="Ask us.")
        missing = await manager.call_tool("refs", "read_reference", {"name": "nope"})
        assert missing.is_error and "Available references: faq, pricing" in missing.text
        assert await manager.ping("refs") > 0


async def test_an_unknown_builtin_fails_with_the_known_ones() -> None:
    async with McpManager({"x": internal("weather")}) as manager:
        status = manager.status("x")
    assert status.state is ServerState.FAILED
    assert (
        status.reason
        and "no built-in server 'weather'" in status.reason
        and "references, skills, workspace" in status.reason
    )


async def test_the_workspace_needs_a_root() -> None:
    async with McpManager({"ws": internal("workspace")}) as manager:
        status = manager.status("ws")
    assert status.state is ServerState.FAILED and status.reason and "options: {root:" in status.reason


@pytest.fixture
def workspace_dir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "todo.md").write_text("- buy milk\n- call Alice about the Budget\n")
    (root / "readme.txt").write_text("Project readme\n")
    (root / ".secret").write_text("hidden budget\n")
    (root / "image.bin").write_bytes(b"\x89PNG\0\0binary budget")
    (root / "big.txt").write_text("x" * 5000)
    outside = tmp_path / "outside.txt"
    outside.write_text("private budget\n")
    os.symlink(outside, root / "escape.txt")
    os.symlink(tmp_path, root / "parent-link")
    return root


async def test_the_workspace_lists_reads_and_searches_inside_its_folder_only(workspace_dir: Path) -> None:
    config = internal("workspace", root=str(workspace_dir), maxReadBytes=1000)
    async with McpManager({"ws": config}) as manager:
        tools = {t.name: t for t in manager.tools()}
        assert set(tools) == {"current_time", "list_files", "read_file", "search_files"}
        assert tools["read_file"].permission == "ask" and tools["current_time"].permission == "allow"
        # Marked read-only, which never loosens a permission: reading files is still asked about.
        assert all(t.annotations.read_only for t in tools.values())

        async def call(tool: str, **arguments: object) -> tuple[str, bool]:
            result = await manager.call_tool("ws", tool, arguments)
            return result.text, result.is_error

        listing, _ = await call("list_files")
        assert listing.splitlines() == [
            "notes/",
            "big.txt  (5000 bytes)",
            "image.bin  (19 bytes)",
            "readme.txt  (15 bytes)",
        ]
        assert "notes/todo.md" in (await call("list_files", recursive=True, pattern="*.md"))[0]
        assert await call("read_file", path="notes/todo.md") == (
            "- buy milk\n- call Alice about the Budget\n",
            False,
        )
        big, error = await call("read_file", path="big.txt")
        assert not error and big.startswith("x" * 1000) and "truncated" in big

        for refused in (
            "../outside.txt",
            "escape.txt",
            "parent-link/outside.txt",
            str(workspace_dir.parent / "outside.txt"),
        ):
            text, error = await call("read_file", path=refused)
            assert error and "outside the workspace" in text, refused
        assert "hidden" in (await call("read_file", path=".secret"))[0]
        assert "not a text file" in (await call("read_file", path="image.bin"))[0]

        found, _ = await call("search_files", query="budget")
        assert found == "notes/todo.md:2: - call Alice about the Budget"

        now, error = await call("current_time", timezone="Asia/Tokyo")
        assert not error and "Asia/Tokyo, UTC+09:00" in now
        assert "Unknown time zone" in (await call("current_time", timezone="Mars/Base"))[0]


async def test_a_workspace_folder_that_does_not_exist_is_explained(tmp_path: Path) -> None:
    async with McpManager({"ws": internal("workspace", root=str(tmp_path / "none"))}) as manager:
        result = await manager.call_tool("ws", "list_files", {})
    assert result.is_error and "does not exist" in result.text and "options.root" in result.text
    assert "File > Preferences > Workspace folder" in result.text


def test_a_workspace_call_acts_in_its_folder_named_as_people_write_it(tmp_path: Path) -> None:
    from agent_core.mcp.builtins.workspace import call_target

    home = Path.home()
    assert (
        call_target({"root": "~/Documents"}, "list_files")
        == f"in your workspace folder {Path('~', 'Documents')}"
    )
    assert (
        call_target({"root": str(home / "notes")}, "read_file")
        == f"in your workspace folder {Path('~', 'notes')}"
    )
    assert call_target({"root": str(tmp_path)}, "search_files") == f"in your workspace folder {tmp_path}"
    assert call_target({"root": str(tmp_path)}, "current_time") == ""  # the clock acts on no folder
    assert call_target({}, "list_files") == ""  # no folder set: the server says so when it starts
