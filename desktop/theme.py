"""Light and dark themes that follow the system, and the colours of include-mode badges."""

from __future__ import annotations

import os
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPainter, QPalette, QPen
from PySide6.QtWidgets import (
    QApplication,
    QPlainTextEdit,
    QProxyStyle,
    QStyle,
    QStyleOption,
    QStyleOptionComplex,
    QTextEdit,
    QWidget,
)

from desktop.theme_switch import restyle_widgets

__all__ = [
    "THEME_VARIABLE",
    "BadgeColors",
    "FramedFieldsStyle",
    "Palette",
    "apply_theme",
    "badge_colors",
    "colors",
    "is_dark",
]


@dataclass(frozen=True)
class BadgeColors:
    background: QColor
    foreground: QColor


@dataclass(frozen=True)
class Palette:
    """Colours the widgets use beyond the Qt palette (bubbles, code blocks, muted text)."""

    user_bubble: str
    assistant_bubble: str
    code_background: str
    inline_code_background: str
    border: str
    field_border: str  # the frame of the message box and the model box: it must show on the window
    muted: str
    error: str
    warning: str  # amber text: something the user chose to stop (a denied tool call), not a failure
    warning_background: str
    link: str
    code_style: str  # a Pygments style


LIGHT = Palette(
    user_bubble="#e8f0fe",
    assistant_bubble="#ffffff",
    code_background="#f5f6f8",
    inline_code_background="#eef0f3",
    border="#d9dce1",
    field_border="#aab1bb",
    muted="#6b7280",
    error="#b42318",
    warning="#8a4b08",
    warning_background="#fff4e5",
    link="#1a66d2",
    code_style="friendly",
)
DARK = Palette(
    user_bubble="#24324a",
    assistant_bubble="#23262b",
    code_background="#16181c",
    inline_code_background="#30343a",
    border="#3a3f47",
    field_border="#5f6772",
    muted="#9aa3ae",
    error="#ff8a80",
    warning="#ffc46b",
    warning_background="#3d2e12",
    link="#7ab4ff",
    code_style="github-dark",
)

# Include modes: Always blue, Manual green, Agent purple; removed items grey.
_BADGES_LIGHT = {
    "always": ("#dbe8ff", "#1849a9"),
    "manual": ("#dcf5e6", "#146c3c"),
    "agent": ("#efe1ff", "#6b2bb3"),
    "score": ("#eef0f3", "#374151"),
    "removed": ("#eceff1", "#6b7280"),
    "miss": ("#fdebd2", "#8a4b08"),
    "pinned": ("#fde2ef", "#9d174d"),
    "read-only": ("#e3f1f4", "#155e75"),
    "destructive": ("#fde4e1", "#b42318"),
    "skill": ("#fdf3c7", "#854d0e"),
}
_BADGES_DARK = {
    "always": ("#1d3a6e", "#b9d3ff"),
    "manual": ("#174a31", "#b5f0cc"),
    "agent": ("#47276e", "#e2c8ff"),
    "score": ("#353a41", "#d8dde3"),
    "removed": ("#33373c", "#a3abb5"),
    "miss": ("#4a3213", "#ffd39a"),
    "pinned": ("#5a1e3b", "#fbcfe8"),
    "read-only": ("#15414d", "#b6e6f2"),
    "destructive": ("#5c1f1a", "#ffc4bc"),
    "skill": ("#4a3c0e", "#fde68a"),
}


def is_dark(palette: QPalette | None = None) -> bool:
    palette = palette or QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def colors() -> Palette:
    return DARK if is_dark() else LIGHT


def badge_colors(kind: str) -> BadgeColors:
    """Colours of a badge: an include mode (always/manual/agent), "score", "removed", "miss",
    "pinned", a tool's "read-only" or "destructive" hint, or "skill" (a skill whose body a request
    carried)."""
    table = _BADGES_DARK if is_dark() else _BADGES_LIGHT
    background, foreground = table.get(kind, table["score"])
    return BadgeColors(QColor(background), QColor(foreground))


def _dark_palette() -> QPalette:
    palette = QPalette()
    role = QPalette.ColorRole
    for which, value in (
        (role.Window, "#1e2024"),
        (role.WindowText, "#e6e8eb"),
        (role.Base, "#181a1d"),
        (role.AlternateBase, "#23262b"),
        (role.ToolTipBase, "#2b2f35"),
        (role.ToolTipText, "#e6e8eb"),
        (role.Text, "#e6e8eb"),
        (role.Button, "#2a2d32"),
        (role.ButtonText, "#e6e8eb"),
        (role.BrightText, "#ff6b6b"),
        (role.Highlight, "#3b6fd6"),
        (role.HighlightedText, "#ffffff"),
        (role.Link, "#7ab4ff"),
        (role.PlaceholderText, "#8a929c"),
    ):
        palette.setColor(which, QColor(value))
    for which in (role.Text, role.WindowText, role.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, which, QColor("#6d747d"))
    return palette


def apply_theme(app: QApplication, scheme: Qt.ColorScheme | None = None) -> None:
    """Fusion everywhere (the same look on every platform), light or dark as the system is, and
    again whenever the system switches. ``scheme`` forces one (tests; platforms that cannot tell).

    Every widget switches at once, those already built too: widgets that paint themselves
    (badges, gauges, lists) read the colours when they paint; styled ones (message bubbles,
    cards, dialogs left open) are restyled (``theme_switch``).
    """
    if not isinstance(app.style(), FramedFieldsStyle):
        app.setStyle(FramedFieldsStyle())
    hints = app.styleHints()
    scheme = scheme if scheme is not None else _scheme_from_environment()
    chosen = scheme if scheme is not None else hints.colorScheme()
    before = colors()
    app.setPalette(_dark_palette() if chosen == Qt.ColorScheme.Dark else app.style().standardPalette())
    if colors() is not before:
        restyle_widgets(before, colors())
    if scheme is None and not app.property(_FOLLOWING):
        app.setProperty(_FOLLOWING, True)
        hints.colorSchemeChanged.connect(lambda _scheme: apply_theme(app))


# Widgets (by object name) whose frame is drawn in ``field_border`` whatever they are: Fusion draws
# frames a shade darker than the window, which on a dark window does not show. Every text field,
# drop-down, number box, editable text area and check box gets the same frame.
FRAMED_FIELDS = frozenset({"composer", "modelPicker"})
_FRAMED_CONTROLS = (QStyle.ComplexControl.CC_ComboBox, QStyle.ComplexControl.CC_SpinBox)


def _is_field(element: QStyle.PrimitiveElement, widget: QWidget | None) -> bool:
    if element == QStyle.PrimitiveElement.PE_FrameLineEdit:
        return True
    if element != QStyle.PrimitiveElement.PE_Frame or widget is None:
        return False
    if widget.objectName() in FRAMED_FIELDS:
        return True
    return isinstance(widget, QPlainTextEdit | QTextEdit) and not widget.isReadOnly()


class FramedFieldsStyle(QProxyStyle):
    """Fusion, with the frames of fields (text, drop-downs, number boxes, editable text areas,
    check boxes) drawn in a colour that shows in both themes (read when painted, so a theme
    switch shows at once)."""

    def __init__(self) -> None:
        super().__init__("Fusion")

    def drawPrimitive(
        self,
        element: QStyle.PrimitiveElement,
        option: QStyleOption,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawPrimitive(element, option, painter, widget)
        if _is_field(element, widget):
            _frame(painter, option)
        elif element == QStyle.PrimitiveElement.PE_IndicatorCheckBox:
            _frame(painter, option, radius=1)

    def drawComplexControl(
        self,
        control: QStyle.ComplexControl,
        option: QStyleOptionComplex,
        painter: QPainter,
        widget: QWidget | None = None,
    ) -> None:
        super().drawComplexControl(control, option, painter, widget)
        if control in _FRAMED_CONTROLS:
            _frame(painter, option)


def _frame(painter: QPainter, option: QStyleOption, radius: float = 2) -> None:
    focused = bool(option.state & QStyle.StateFlag.State_HasFocus)
    palette = colors()
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor(palette.link if focused else palette.field_border), 1))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(QRectF(option.rect).adjusted(0.5, 0.5, -0.5, -0.5), radius, radius)
    painter.restore()


_FOLLOWING = "contextdeskFollowsColorScheme"
THEME_VARIABLE = "CONTEXTDESK_THEME"


def _scheme_from_environment() -> Qt.ColorScheme | None:
    """``CONTEXTDESK_THEME=dark`` or ``light`` overrides the system's choice."""
    value = os.environ.get(THEME_VARIABLE, "").strip().lower()
    return {"dark": Qt.ColorScheme.Dark, "light": Qt.ColorScheme.Light}.get(value)
