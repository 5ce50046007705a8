"""A non-modal progress note for the status bar: text and a busy bar for work that takes a while.

A step that ends within ``SLOW_MS`` shows nothing at all (the issue: progress only for what is
slow enough to notice); a slower one shows its text and a busy bar, then "ready" for a few seconds.
A failure stays, with the reason in the tooltip, until the next attempt.
"""

from __future__ import annotations

from functools import partial

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QSizePolicy, QWidget

from desktop.theme import colors
from desktop.views.common import ElidedLabel

__all__ = ["LINGER_MS", "SLOW_MS", "StatusIndicator"]

SLOW_MS = 300
LINGER_MS = 4000


class StatusIndicator(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 8, 0)
        layout.setSpacing(6)
        # Long texts (a failure's reason) take the room there is and never widen the window.
        self.label = ElidedLabel()
        self.label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.bar = QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setFixedSize(100, 10)
        # Not Expanding (its default): the layout would then stretch the indicator and part bar from text.
        self.bar.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.bar.setTextVisible(False)
        layout.addWidget(self.bar)  # first, like a spinner: the text after it may be cut
        layout.addWidget(self.label, 1)
        self._token = 0
        self._busy = False
        self._failed = False
        self._text = ""
        self.hide()

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def failed(self) -> bool:
        return self._failed

    def text(self) -> str:
        """What the indicator shows now, in full ("" while hidden)."""
        return "" if self.isHidden() else self._text

    def start(self, text: str, *, detail: str = "", delay_ms: int = SLOW_MS) -> None:
        """Work began; shown after ``delay_ms`` if it is still going (0: at once), ``detail`` as tooltip."""
        self._token += 1
        token = self._token
        self._busy = True
        if delay_ms <= 0:
            self._reveal(token, text, detail)
        else:
            QTimer.singleShot(delay_ms, self, partial(self._reveal, token, text, detail))

    def _reveal(self, token: int, text: str, detail: str) -> None:
        if token != self._token or not self._busy:
            return
        self._set(text, failed=False)
        self.setToolTip(detail or text)
        self.bar.show()
        self.show()

    def finish(self, text: str = "") -> None:
        """The work is done: ``text`` shows for a few seconds, but only if the progress was shown."""
        was_shown = not self.isHidden()
        self._token += 1
        self._busy = False
        if not was_shown or not text:
            self.hide()
            return
        token = self._token
        self._set(text, failed=False)
        self.bar.hide()
        QTimer.singleShot(LINGER_MS, self, partial(self._hide_if_current, token))

    def _hide_if_current(self, token: int) -> None:
        if token == self._token:
            self.hide()

    def fail(self, text: str, reason: str = "") -> None:
        """The work failed: ``text`` (and ``reason``) stay until the next :meth:`start`."""
        self._token += 1
        self._busy = False
        self._set(f"{text}: {reason}" if reason else text, failed=True)
        self.setToolTip(reason or text)
        self.bar.hide()
        self.show()

    def _set(self, text: str, *, failed: bool) -> None:
        self.label.set_full_text(text)
        self._failed = failed
        self._text = text
        self.label.setStyleSheet(f"color: {colors().error};" if failed else "")
        self.setToolTip(text)
