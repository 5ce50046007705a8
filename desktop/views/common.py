"""Small widgets used across views: a text browser as tall as its content, a banner, a badge."""

from __future__ import annotations

import math

from PySide6.QtCore import QMetaMethod, QRectF, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QCursor, QDesktopServices, QFont, QFontMetrics, QPainter, QResizeEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QSizePolicy,
    QTextBrowser,
    QToolButton,
    QToolTip,
    QWidget,
)

from desktop.markdown import COPY_SCHEME, render_markdown
from desktop.theme import badge_colors, colors

__all__ = [
    "WEB_SCHEMES",
    "Badge",
    "Banner",
    "ElidedLabel",
    "MarkdownView",
    "fit_list_height",
    "not_opened_words",
    "paint_badge",
]

#: The links a text shown here may open in another program. A reply, a tool result or a skill is
#: untrusted: a link to another scheme ("ms-msdt:", "smb:", a file beside the app) hands the
#: system's handler for it whatever the text's author chose, so it is not followed.
WEB_SCHEMES = frozenset({"http", "https", "mailto"})
REFUSED_LINK_SHOWN_MS = 12_000


def not_opened_words(url: QUrl) -> str:
    """What a user is told about a link that is not followed, and what to do if it is wanted."""
    return (
        f"Not opened: only web links (http, https, mailto) open from here. This one is "
        f"“{url.toString()}”; copy it from the text if you trust where it leads."
    )


class MarkdownView(QTextBrowser):
    """Read-only markdown, exactly as tall as its text; web links open in the system browser and
    ``Copy`` links above code blocks copy the block. Any other link goes to ``other_link`` when
    something listens (the documentation follows its own pages), else is not followed and says so."""

    link_copied = Signal(str)
    other_link = Signal(QUrl)  # a link neither to the web nor a Copy link
    link_refused = Signal(QUrl)  # such a link, not followed: nothing listens to other_link

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; border: none; }")
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(lambda _size: self._fit())
        self.anchorClicked.connect(self._on_anchor)
        self._code_blocks: list[str] = []
        self._markdown = ""

    def set_markdown(self, text: str) -> None:
        if text == self._markdown:
            return
        self._markdown = text
        palette = colors()
        rendered = render_markdown(text, palette)
        self._code_blocks = rendered.code_blocks
        self.document().setDefaultStyleSheet(
            f"a {{ color: {palette.link}; }} pre {{ white-space: pre-wrap; }} "
            f"th {{ background-color: {palette.inline_code_background}; }}"
        )
        self.setHtml(rendered.html)
        self._fit()

    def retheme(self) -> None:
        """Render the markdown again in the colours of the theme now applied (code blocks too)."""
        if self._markdown:
            text, self._markdown = self._markdown, ""
            self.set_markdown(text)

    def set_plain(self, text: str) -> None:
        self._markdown = ""
        self._code_blocks = []
        self.setPlainText(text)
        self._fit()

    def markdown(self) -> str:
        return self._markdown

    def code_blocks(self) -> list[str]:
        return list(self._code_blocks)

    def _on_anchor(self, url: QUrl) -> None:
        if url.scheme() == COPY_SCHEME:
            number = int(url.path() or "0")
            if 0 <= number < len(self._code_blocks):
                QApplication.clipboard().setText(self._code_blocks[number])
                self.link_copied.emit(self._code_blocks[number])
            return
        if url.scheme().lower() in WEB_SCHEMES:
            QDesktopServices.openUrl(url)
        elif self.isSignalConnected(QMetaMethod.fromSignal(self.other_link)):
            self.other_link.emit(url)
        else:
            words = not_opened_words(url)
            QToolTip.showText(QCursor.pos(), words, self)
            window = self.window()
            if isinstance(window, QMainWindow):  # the tooltip goes with the mouse; this line stays a while
                window.statusBar().showMessage(words, REFUSED_LINK_SHOWN_MS)
            self.link_refused.emit(url)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.document().setTextWidth(self.viewport().width())
        self._fit()

    def _fit(self) -> None:
        margins = self.contentsMargins()
        height = math.ceil(self.document().size().height()) + margins.top() + margins.bottom()
        if height != self.height():
            self.setFixedHeight(max(height, 20))

    def sizeHint(self) -> QSize:
        return QSize(400, self.height())


def paint_badge(painter: QPainter, rect: QRectF, text: str, kind: str, font: QFont) -> float:
    """Draw a rounded badge at ``rect``'s left, vertically centred; returns its width."""
    small = QFont(font)
    small.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
    small.setBold(True)
    metrics = QFontMetrics(small)
    width = metrics.horizontalAdvance(text) + 12
    height = metrics.height() + 2
    box = QRectF(rect.left(), rect.center().y() - height / 2, width, height)
    badge = badge_colors(kind)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(badge.background)
    painter.drawRoundedRect(box, height / 2, height / 2)
    painter.setPen(badge.foreground)
    painter.setFont(small)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
    painter.restore()
    return width


class Badge(QLabel):
    """A small coloured label: an include mode, a score, a status."""

    def __init__(self, text: str, kind: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.set_kind(text, kind)

    def set_kind(self, text: str, kind: str) -> None:
        colours = badge_colors(kind)
        self.setText(text)
        self.setStyleSheet(
            f"QLabel {{ background-color: {colours.background.name()}; color: {colours.foreground.name()};"
            " border-radius: 8px; padding: 1px 8px; font-weight: 600; font-size: 11px; }"
        )


class Banner(QFrame):
    """A non-modal message across the top of a window, until dismissed; never steals focus."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("banner")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(12, 6, 6, 6)
        self._label = QLabel()
        self._label.setWordWrap(True)
        self._label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self._close = QToolButton()
        self._close.setText("✕")
        self._close.setAutoRaise(True)
        self._close.setToolTip("Dismiss")
        self._close.clicked.connect(self.hide)
        layout.addWidget(self._label, 1)
        layout.addWidget(self._close)
        self.hide()

    def show_message(self, text: str, *, level: str = "error") -> None:
        palette = colors()
        background = palette.warning_background if level != "info" else palette.inline_code_background
        self.setStyleSheet(
            f"#banner {{ background-color: {background}; border-bottom: 1px solid {palette.border}; }}"
        )
        self._label.setText(text)
        self.show()

    def text(self) -> str:
        return self._label.text()


class ElidedLabel(QLabel):
    """One line of text cut with "…" to the width it is given, so a long name or status never
    widens its row; it asks for its whole width and settles for ``minimum`` pixels."""

    def __init__(self, text: str = "", minimum: int = 40) -> None:
        super().__init__()
        self._full = text
        self._minimum = minimum
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self._elide()

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str) -> None:
        self._full = text
        self.updateGeometry()
        self._elide()

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        return QSize(self.fontMetrics().horizontalAdvance(self._full) + 2, hint.height())

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self.sizeHint().width(), self._minimum), super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.width(), self._minimum)
        self.setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, width))


def fit_list_height(view: QAbstractItemView, max_rows: int = 8) -> None:
    """Make a list exactly as tall as its rows (up to ``max_rows``), so short lists leave no gap."""
    model = view.model()
    rows = model.rowCount() if model is not None else 0
    height = sum(view.sizeHintForRow(row) for row in range(min(rows, max_rows)))
    if rows > max_rows:
        height += view.sizeHintForRow(0) // 2  # show that there is more
    frame = view.frameWidth() * 2
    view.setFixedHeight(height + frame + (2 if rows else 0))
