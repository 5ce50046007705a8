"""Load the repository's scripts (packaging/*.py, which are not in a package) as modules."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from tests.support.paths import REPO_ROOT


def load_script(relative: str) -> ModuleType:
    """The script at ``relative`` (to the repository) as a module, registered under its stem so
    its dataclasses can resolve their annotations."""
    name = f"_script_{Path(relative).stem}"
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
