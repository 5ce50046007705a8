"""Whether Qt WebEngine is here, and what it needs before the QApplication exists.

WebEngine is an optional component (the ``apps`` extra; docs/packaging.md says how it ships).
Without it the chat shows an MCP App tool's text result and a note instead of the view
(desktop/mcp_apps/component.py).
"""

from __future__ import annotations

import importlib.util
import logging
import os

from desktop.mcp_apps.sandbox_policy import HOST_SCHEME

__all__ = ["prepare_webengine", "webengine_available"]

logger = logging.getLogger(__name__)

_prepared = False


def webengine_available() -> bool:
    """Qt WebEngine's widgets can be imported (without importing them: that is not free)."""
    try:
        return importlib.util.find_spec("PySide6.QtWebEngineWidgets") is not None
    except (ImportError, ValueError):
        return False


def prepare_webengine() -> bool:
    """Call once before the QApplication is made: registers the views' URL scheme and sets the
    engine's switches. Returns whether WebEngine is available; without it, does nothing."""
    global _prepared
    if _prepared:
        return True
    if not webengine_available():
        return False
    # Chromium refuses to start its process sandbox as root (it cannot drop privileges it would
    # need to keep; crbug.com/638180), so as root, as in containers and CI, the engine only runs
    # with that sandbox off. A view's isolation then rests on the iframe sandbox, the CSP, the
    # request guard and the off-the-record profile (desktop/mcp_apps/sandbox.py); for every other
    # user the process sandbox stays on.
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
    if os.environ.get("QT_QPA_PLATFORM", "").startswith("offscreen"):
        # Offscreen there is no GL context to share: the GPU process would only fail and retry.
        flags = os.environ.get("QTWEBENGINE_CHROMIUM_FLAGS", "")
        if "--disable-gpu" not in flags:
            os.environ["QTWEBENGINE_CHROMIUM_FLAGS"] = f"{flags} --disable-gpu".strip()
    from PySide6.QtWebEngineCore import QWebEngineUrlScheme

    scheme = QWebEngineUrlScheme(HOST_SCHEME.encode())
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    # Secure (so the app counts as a secure context), not local: no file access, no CORS, no fetch
    # of the scheme from the app (its origin is opaque anyway).
    scheme.setFlags(QWebEngineUrlScheme.Flag.SecureScheme)
    QWebEngineUrlScheme.registerScheme(scheme)
    # WebEngine shares GL contexts with the widgets: set before the QApplication exists (cheaper at
    # start than importing QtWebEngineWidgets, which does the same; the views import it later).
    from PySide6.QtCore import QCoreApplication, Qt

    QCoreApplication.setAttribute(Qt.ApplicationAttribute.AA_ShareOpenGLContexts)

    _prepared = True
    return True
