"""The web engine side of one view's sandbox: an off-the-record profile of its own, the URL scheme
that serves only this view's two documents, a request guard under the CSP, and a page that
refuses navigation and new windows.

Every view gets its own profile, so no cookie, storage, cache or permission is shared between
views, kept after the view closes, or written to disk.
"""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QUrl
from PySide6.QtWebEngineCore import (
    QWebEnginePage,
    QWebEngineProfile,
    QWebEngineSettings,
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlSchemeHandler,
)

from desktop.mcp_apps.host_page import (
    APP_PATH,
    HOST_PAGE_CSP,
    HOST_PATH,
    VIEW_HOST,
    app_url,
    host_page,
    host_url,
)
from desktop.mcp_apps.sandbox_policy import HOST_SCHEME, ViewPolicy, origin_allowed

__all__ = ["RequestGuard", "SandboxPage", "sandbox_profile"]

logger = logging.getLogger(__name__)

Attribute = QWebEngineSettings.WebAttribute


class _ViewDocuments(QWebEngineUrlSchemeHandler):
    """Serves the host page and the app's document of one view; every other URL fails."""

    def __init__(self, app_html: str, app_csp: str, policy: ViewPolicy, parent: QObject) -> None:
        super().__init__(parent)
        self._documents = {
            HOST_PATH: (host_page(policy).encode(), HOST_PAGE_CSP),
            APP_PATH: (app_html.encode(), app_csp),
        }

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:
        url = job.requestUrl()
        document = self._documents.get(url.path()) if url.host() == VIEW_HOST else None
        if document is None or job.requestMethod() != b"GET":
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        body, policy = document
        # A multimap: each header's values as a list (a bare value would be read as its bytes).
        headers: dict[Any, Any] = {
            QByteArray(b"Content-Security-Policy"): [QByteArray(policy.encode())],
            QByteArray(b"Cache-Control"): [QByteArray(b"no-store")],
        }
        job.setAdditionalResponseHeaders(headers)
        buffer = QBuffer(job)
        buffer.setData(body)
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        job.reply(b"text/html;charset=utf-8", buffer)


class RequestGuard(QWebEngineUrlRequestInterceptor):
    """Blocks every request that is neither this view's own documents nor an origin the resource
    declared: under the CSP, so that a CSP the engine got wrong still leaks nothing."""

    def __init__(self, policy: ViewPolicy, parent: QObject) -> None:
        super().__init__(parent)
        self._policy = policy
        self.blocked: list[str] = []  # what was stopped, for the log and the tests

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        if url.scheme() == HOST_SCHEME:
            allowed = url.host() == VIEW_HOST and url.path() in (HOST_PATH, APP_PATH)
        else:
            allowed = origin_allowed(url.toString(), self._policy)
        if not allowed:
            info.block(True)
            text = url.toString()[:200]
            self.blocked.append(text)
            logger.info("MCP App view: blocked a request to %s", text)


def sandbox_profile(
    app_html: str, app_csp: str, policy: ViewPolicy
) -> tuple[QWebEngineProfile, RequestGuard]:
    """A new off-the-record profile serving one view (``app_html`` under the CSP ``app_csp``), with
    everything a view does not need off, and its request guard. Its owner must delete it after the
    page that uses it."""
    profile = QWebEngineProfile()  # no storage name: off the record, nothing on disk
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.MemoryHttpCache)
    profile.setPersistentCookiesPolicy(QWebEngineProfile.PersistentCookiesPolicy.NoPersistentCookies)
    profile.setPersistentPermissionsPolicy(QWebEngineProfile.PersistentPermissionsPolicy.AskEveryTime)
    profile.setSpellCheckEnabled(False)
    settings = profile.settings()
    for attribute in (
        Attribute.LocalContentCanAccessFileUrls,
        Attribute.LocalContentCanAccessRemoteUrls,
        Attribute.PluginsEnabled,
        Attribute.JavascriptCanOpenWindows,
        Attribute.JavascriptCanPaste,
        Attribute.JavascriptCanAccessClipboard,
        Attribute.LocalStorageEnabled,
        Attribute.AllowRunningInsecureContent,
        Attribute.AllowGeolocationOnInsecureOrigins,
        Attribute.HyperlinkAuditingEnabled,
        Attribute.DnsPrefetchEnabled,
        Attribute.ScreenCaptureEnabled,
        Attribute.PdfViewerEnabled,
        Attribute.NavigateOnDropEnabled,
        Attribute.ErrorPageEnabled,
        Attribute.FullScreenSupportEnabled,
        Attribute.WebRTCPublicInterfacesOnly,
    ):
        settings.setAttribute(attribute, attribute == Attribute.WebRTCPublicInterfacesOnly)
    documents = _ViewDocuments(app_html, app_csp, policy, profile)
    profile.installUrlSchemeHandler(HOST_SCHEME.encode(), documents)
    guard = RequestGuard(policy, profile)
    profile.setUrlRequestInterceptor(guard)
    return profile, guard


class SandboxPage(QWebEnginePage):
    """A view's page: loads the host page and, inside it, the app's document once each; refuses
    every other navigation (the app's own frame included) and every new window."""

    def __init__(self, profile: QWebEngineProfile, parent: QObject | None = None) -> None:
        super().__init__(profile, parent)
        self._loaded: set[str] = set()
        self.refused: list[str] = []  # navigations and CSP refusals, for the log and the tests
        self.permissionRequested.connect(lambda permission: permission.deny())

    def acceptNavigationRequest(
        self, url: QUrl | str, _navigation_type: QWebEnginePage.NavigationType, is_main_frame: bool
    ) -> bool:
        text = QUrl(url).toString()
        expected = host_url() if is_main_frame else app_url()
        if text == expected and text not in self._loaded:
            self._loaded.add(text)
            return True
        self.refused.append(text[:200])
        logger.info("MCP App view: refused a navigation to %s", text[:200])
        return False

    # Returning None refuses the window (Qt's documented way); the stub does not allow None.
    def createWindow(self, _type: QWebEnginePage.WebWindowType) -> QWebEnginePage | None:  # type: ignore[override]
        self.refused.append("(a new window)")
        return None

    def javaScriptConsoleMessage(
        self,
        level: QWebEnginePage.JavaScriptConsoleMessageLevel,
        message: str,
        _line_number: int,
        _source_id: str,
    ) -> None:
        if "Content Security Policy" in message and message.startswith("Refused to"):
            # The CSP stopped something (a request, a frame, the app's frame navigating away).
            self.refused.append(message[:300])
            logger.info("MCP App view: %s", message[:300])
        else:
            logger.debug("MCP App view console (%s): %s", level.name, message[:500])
