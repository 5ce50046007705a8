"""A command imports only what it needs: startup time is part of every `contextdesk` call."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.support.paths import REPO_ROOT

PROBE = """
import json, sys
from agent_core.cli.main import build_parser
build_parser(sys.argv[1:])
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("agent_core.cli.", "mcp", "pydantic", "indexer")))))
"""


def imported_by(*argv: str) -> set[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return set(json.loads(result.stdout))


def test_a_command_imports_only_its_own_module_and_no_heavy_dependency_up_front() -> None:
    modules = imported_by("select", "--agent", "x", "hello")
    assert "agent_core.cli.select_command" in modules
    assert (
        not {"agent_core.cli.agent_commands", "agent_core.cli.chat_command", "agent_core.cli.select_run"}
        & modules
    )
    assert not any(m == "mcp" or m.startswith(("mcp.", "pydantic", "indexer")) for m in modules)
    modules = imported_by("index", "--agent", "x")
    assert "agent_core.cli.index_command" in modules and "agent_core.cli.select_command" not in modules
    assert not any(m.startswith(("pydantic", "indexer")) for m in modules)


def test_top_level_help_still_lists_every_command() -> None:
    modules = imported_by("--help-is-not-parsed-here")
    assert {
        "agent_core.cli.agent_commands",
        "agent_core.cli.mcp_commands",
        "agent_core.cli.select_command",
        "agent_core.cli.chat_command",
        "agent_core.cli.sessions_commands",
    } <= modules


def run_probe(probe: str) -> object:
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(result.stdout.splitlines()[-1])  # the command may print before the probe


def test_starting_the_desktop_app_imports_no_command_module() -> None:
    probe = (
        "import json, sys\n"
        "from desktop import launcher\n"
        "launcher.start_desktop = lambda: 0\n"
        "assert launcher.main([]) == 0\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('agent_core.cli.'))))\n"
    )
    assert run_probe(probe) == ["agent_core.cli.main"]


def test_a_command_run_through_the_launcher_loads_no_qt() -> None:
    probe = (
        "import json, sys\n"
        "from desktop import launcher\n"
        "launcher.main(['sessions', 'list'])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('PySide6', 'shiboken6', 'desktop')))))\n"
    )
    assert run_probe(probe) == ["desktop", "desktop.launcher"]
