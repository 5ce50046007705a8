"""Markdown to the HTML subset QTextBrowser shows: tables, links, highlighted code with a Copy link.

Code blocks are returned alongside the HTML so that the ``copy:N`` links can put block N on the
clipboard without parsing the document again.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
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


def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "breaks": True}).enable(
        ["table", "strikethrough"]
    )


_MD = _parser()


def _highlighted(code: str, language: str, palette: Palette) -> str:
    try:
        lexer = get_lexer_by_name(language) if language else guess_lexer(code)
    except ClassNotFound:
        return html.escape(code)
    if not language and lexer.name == "Text only":
        return html.escape(code)
    formatter = HtmlFormatter(nowrap=True, noclasses=True, style=palette.code_style)
    return highlight(code, lexer, formatter).rstrip("\n")


def render_markdown(text: str, palette: Palette) -> Rendered:
    rendered = Rendered("")
    tokens = _MD.parse(text)
    renderer = _MD.renderer

    def fence(tokens_: list, index: int, options: dict, env: dict) -> str:  # type: ignore[type-arg]
        token = tokens_[index]
        code = token.content.rstrip("\n")
        language = token.info.strip().split(" ")[0] if token.info else ""
        number = len(rendered.code_blocks)
        rendered.code_blocks.append(code)
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

    renderer.rules["fence"] = fence
    renderer.rules["code_block"] = fence
    body = renderer.render(tokens, _MD.options, {})
    body = body.replace(
        "<table>",
        f'<table border="1" cellspacing="0" cellpadding="5" style="border-collapse:collapse; '
        f'border-color:{palette.border}; margin-top:4px; margin-bottom:8px;">',
    )
    body = body.replace("<code>", f'<code style="background-color:{palette.inline_code_background};">')
    rendered.html = body
    return rendered
