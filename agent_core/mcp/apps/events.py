"""What a view tells its front end through the host (shown to the user), and the host context
the front end gives a view (theme, locale, size)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = [
    "AppContextUpdated",
    "AppEvent",
    "AppLinkRequested",
    "AppLogged",
    "AppMessageRequested",
    "AppSizeChanged",
    "AppTeardownRequested",
    "HostContext",
]


@dataclass(frozen=True)
class AppMessageRequested:
    """The view asks to add a message to the chat (``ui/message``). Third-party text: the front end
    shows it and lets the user send it; it is never sent to the model unasked."""

    call_id: str
    text: str  # bounded (MAX_RECORDED_TEXT_CHARS)


@dataclass(frozen=True)
class AppContextUpdated:
    """The view's context for the model (``ui/update-model-context``; each replaces the last):
    shown to the user, recorded in the reply's RequestContext."""

    call_id: str
    text: str  # its text blocks and structured content as JSON, bounded


@dataclass(frozen=True)
class AppSizeChanged:
    """The view's content size in CSS pixels (``ui/notifications/size-changed``), clamped to
    ``AppLimits.max_width`` / ``max_height``."""

    call_id: str
    width: int | None
    height: int | None


@dataclass(frozen=True)
class AppLinkRequested:
    """The view asks to open an http(s) URL in the browser (``ui/open-link``): ask the user first."""

    call_id: str
    url: str


@dataclass(frozen=True)
class AppLogged:
    """A log line from the view (``notifications/message``), bounded."""

    call_id: str
    level: str
    text: str


@dataclass(frozen=True)
class AppTeardownRequested:
    """The view asks to be closed (``ui/notifications/request-teardown``)."""

    call_id: str


AppEvent = (
    AppMessageRequested
    | AppContextUpdated
    | AppSizeChanged
    | AppLinkRequested
    | AppLogged
    | AppTeardownRequested
)


@dataclass(frozen=True)
class HostContext:
    """What the front end tells a view about where it is shown (``hostContext`` of the spec)."""

    theme: Literal["light", "dark"] = "light"
    locale: str = "en-US"  # BCP 47
    time_zone: str | None = None  # IANA, e.g. "Europe/Berlin"
    max_height: int | None = None  # the view sets its height up to this (CSS pixels)
    width: int | None = None  # fixed width of the container, when the front end fixes it
    styles: dict[str, str] | None = None  # CSS variables (``--color-background-primary``: value)

    def as_json(self) -> dict[str, Any]:
        """The fields a front end sets, as the spec spells them (display mode is always inline)."""
        dimensions: dict[str, int] = {}
        if self.max_height is not None:
            dimensions["maxHeight"] = self.max_height
        if self.width is not None:
            dimensions["width"] = self.width
        context: dict[str, Any] = {
            "theme": self.theme,
            "locale": self.locale,
            "displayMode": "inline",
            "availableDisplayModes": ["inline"],
            "platform": "desktop",
        }
        if self.time_zone:
            context["timeZone"] = self.time_zone
        if dimensions:
            context["containerDimensions"] = dimensions
        if self.styles:
            context["styles"] = {"variables": dict(self.styles)}
        return context
