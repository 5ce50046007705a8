"""Markdown to the HTML subset QTextBrowser shows: tables, links, highlighted code with a Copy link.

Code blocks are returned alongside the HTML so that the ``copy:N`` links can put block N on the
clipboard without parsing the document again.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, guess_lexer
from pygments.util import ClassNotFound

from desktop.theme import Palette

__all__ = ["COPY_SCHEME", "Rendered", "render_markdown"]

COPY_SCHEME = "copy"


@dataclass
class Rendered:
    html: str
    code_blocks: list[str] = field(default_factory=list)


def _fence(
    _renderer: object, tokens: Sequence[Token], index: int, _options: object, env: dict[str, Any]
) -> str:
    """A highlighted code block with a Copy link; its code is collected in ``env["code_blocks"]``."""
    token = tokens[index]
    palette: Palette = env["palette"]
    code_blocks: list[str] = env["code_blocks"]
    code = token.content.rstrip("\n")
    language = token.info.strip().split(" ")[0] if token.info else ""
    number = len(code_blocks)
    code_blocks.append(code)
    label = html.escape(language or "code")
    body = _highlighted(code, language, palette)
    return (
        f'<table width="100%" cellspacing="0" cellpadding="6" border="0" '
        f'style="background-color:{palette.code_background}; margin-top:4px; margin-bottom:8px;">'
        f'<tr><td><span style="color:{palette.muted}; font-size:small;">{label}</span></td>'
        f'<td align="right"><a href="{COPY_SCHEME}:{number}" style="font-size:small; text-decoration:none;">'
        f"Copy</a></td></tr>"
        f'<tr><td colspan="2"><pre style="margin:0;">{body}</pre></td></tr></table>'
    )


def _parser() -> MarkdownIt:
    parser = MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True}).enable(
        ["table", "strikethrough"]
    )
    # Registered once; each render passes its palette and a fresh code-block list through ``env``.
    parser.add_render_rule("fence", _fence)
    parser.add_render_rule("code_block", _fence)
    return parser


_MD = _parser()


def _highlighted(code: str, language: str, palette: Palette) -> str:
    try:
        lexer = get_lexer_by_name(language) if language else guess_lexer(code)
    except ClassNotFound:
        return html.escape(code)
    if not language and lexer.name == "Text only":
        return html.escape(code)
    formatter = HtmlFormatter(nowrap=True, noclasses=True, style=palette.code_style)
    return str(highlight(code, lexer, formatter)).rstrip("\n")


def render_markdown(text: str, palette: Palette) -> Rendered:
    code_blocks: list[str] = []
    body: str = _MD.render(text, {"palette": palette, "code_blocks": code_blocks})
    body = body.replace(
        "<table>",
        f'<table border="1" cellspacing="0" cellpadding="5" style="border-collapse:collapse; '
        f'border-color:{palette.border}; margin-top:4px; margin-bottom:8px;">',
    )
    body = body.replace("<code>", f'<code style="background-color:{palette.inline_code_background};">')
    return Rendered(body, code_blocks)
