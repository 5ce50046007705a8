"""One plug-in mechanism for every plug-in kind: providers, embedding backends, importers, token
counters, context sources, the kinds of item a chat carries and request tools.

A plug-in is a hook ``register_<kind>(register)`` that calls ``register(name, plugin)`` once per thing
it offers. Third-party hooks are found through the entry-point group ``contextdesk.<kind>``; the
built-in ones are written as the same ``module:function`` references and loaded the same way, on
first use (as simonw/llm's ``DEFAULT_PLUGINS`` beside its setuptools entry points). A new kind is one
line::

    CONTEXT_SOURCES: PluginRegistry[ContextSource] = PluginRegistry(
        "context_sources", noun="context source", builtins=("agent_core.context.sources:register_context_sources",)
    )

Every registry follows the same rules: a name belongs to one plug-in (registering a different one
under a taken name raises :class:`PluginError`); asking for an unknown name raises
:class:`PluginError` listing the known ones; a plug-in that fails to load is logged with its name and
skipped, with none of its registrations kept, and the others keep working.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Generic, TypeVar

from agent_core.errors import ContextDeskError

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["ENTRY_POINT_PREFIX", "PluginError", "PluginRegistry", "Register"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

#: What a plug-in's hook receives: ``register(name, plugin)``.
Register = Callable[[str, T], None]

ENTRY_POINT_PREFIX = "contextdesk."


class PluginError(ContextDeskError):
    """A plug-in name is unknown or taken twice; the message names the plug-ins and the fix."""


class PluginRegistry(Generic[T]):
    """Named plug-ins of one kind. Thread-safe; loads its plug-ins once, on first use."""

    def __init__(self, kind: str, *, noun: str, builtins: Sequence[str] = ()) -> None:
        """``kind`` names the entry-point group (``contextdesk.<kind>``) and the hook a plug-in module
        exposes (``register_<kind>``); ``noun`` is what one plug-in is called in messages
        ("provider type"); ``builtins`` are ``module:function`` hooks loaded before third-party ones.
        """
        self.kind = kind
        self.noun = noun
        self.builtins = tuple(builtins)
        self.entry_point_group = ENTRY_POINT_PREFIX + kind
        self._plugins: dict[str, T] = {}
        self._lock = threading.RLock()
        self._loaded = False

    def register(self, name: str, plugin: T) -> None:
        """Make ``plugin`` available as ``name`` (registering the same plugin again does nothing).

        Raises:
            PluginError: a different plug-in already has ``name``.
        """
        with self._lock:
            self._load()
            self._check_free(name, plugin, self._plugins)
            self._plugins[name] = plugin

    def get(self, name: str) -> T:
        """The plug-in registered as ``name``.

        Raises:
            PluginError: nothing is registered as ``name``.
        """
        with self._lock:
            self._load()
            plugin = self._plugins.get(name)
            if plugin is None:
                known = ", ".join(sorted(self._plugins)) or "none is installed"
                raise PluginError(
                    f"Unknown {self.noun} {name!r}: use one of {known}, or install the plug-in that "
                    f"provides it (entry-point group {self.entry_point_group})."
                )
            return plugin

    def names(self) -> list[str]:
        """The registered names, sorted."""
        with self._lock:
            self._load()
            return sorted(self._plugins)

    def plugins(self) -> list[tuple[str, T]]:
        """``(name, plugin)`` pairs in registration order: built-ins first, in their listed order."""
        with self._lock:
            self._load()
            return list(self._plugins.items())

    # -- loading -----------------------------------------------------------------------------------

    def _check_free(self, name: str, plugin: T, taken: dict[str, T]) -> None:
        existing = taken.get(name)
        if existing is not None and existing != plugin:
            raise PluginError(
                f"Two plug-ins register the {self.noun} {name!r}: uninstall one of them, or give the "
                "new one a different name."
            )

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            # Set first: a hook that asks this registry for its names must not load everything again.
            self._loaded = True
            from importlib.metadata import EntryPoint, entry_points  # 25 ms: only when plug-ins are used

            built_in = [EntryPoint(value, value, self.entry_point_group) for value in self.builtins]
            for entry_point in (*built_in, *entry_points(group=self.entry_point_group)):
                self._load_plugin(entry_point)

    def _load_plugin(self, entry_point: EntryPoint) -> None:
        staged: dict[str, T] = {}

        def register(name: str, plugin: T) -> None:
            self._check_free(name, plugin, self._plugins)
            self._check_free(name, plugin, staged)
            staged[name] = plugin

        # A plug-in is foreign code: whatever it raises, the app and the other plug-ins go on.
        try:
            loaded = entry_point.load()
            hook = (
                getattr(loaded, f"register_{self.kind}", None) if isinstance(loaded, ModuleType) else loaded
            )
            if not callable(hook):
                raise PluginError(
                    f"{entry_point.value} is neither a register_{self.kind}(register) function nor a "
                    "module with one: point the entry point at that function."
                )
            hook(register)
        except Exception:  # top-level handler at the plug-in boundary, logged in full
            logger.exception(
                "%s plug-in %r (%s) failed to load and is skipped; the other plug-ins still work. "
                "Fix: update or uninstall the package that provides it.",
                self.entry_point_group,
                entry_point.name,
                entry_point.value,
            )
            return
        self._plugins.update(staged)
