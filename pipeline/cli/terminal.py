"""Text from documents and file names as it may reach a terminal.

A book can hold escape sequences (OSC 52 writes the clipboard, others set the window
title or clear the screen) and a file name can hold rich markup (``[/red]`` made the
ingest summary crash). Human output passes through here at the edge (the cli modules);
JSON output does not need to: it escapes control characters itself.
"""

from __future__ import annotations

import itertools
import re

from rich.markup import escape
from rich.text import Text

from ..shared.pathtext import shown

# C0 controls but tab and newline, DEL, and C1 (0x9b and 0x9d open CSI and OSC
# sequences on their own in some terminals).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: str) -> str:
    """``text`` without control characters (tab and newline kept), and each byte of a
    file name that is not UTF-8 as ``\\xHH`` (a lone surrogate cannot be written)."""
    return _CONTROL.sub("", shown(text))


def one_line(text: str) -> str:
    """``plain(text)`` on one line: a newline or tab in a file name or title shows as
    ``\\n`` or ``\\t`` (a path with a newline broke a `folio docs` row in two)."""
    return plain(text).replace("\n", "\\n").replace("\t", "\\t")


def markup(text: str) -> str:
    """``plain(text)`` escaped for rich console markup."""
    return escape(plain(text))


_MARK = re.compile(r"(</?mark>)")


def marked(snippet: str, limit: int = 300) -> Text:
    """Typesense's highlighted snippet as rich ``Text``: the parts inside ``<mark>`` bold,
    everything else literal, whitespace collapsed, at most ``limit`` characters.

    Spans, not markup: escaping the text and then swapping ``<mark>`` for ``[bold]``
    turned a backslash before a match (``\\marginnote``) into an escaped ``\\[bold]``, and
    the closing tag into a MarkupError."""
    chars: list[tuple[str, bool]] = []
    bold = False
    for part in _MARK.split(plain(snippet)):
        if part in ("<mark>", "</mark>"):
            bold = part == "<mark>"
            continue
        for c in part:
            if not c.isspace():
                chars.append((c, bold))
            elif chars and chars[-1][0] != " ":
                chars.append((" ", bold))
    while chars and chars[-1][0] == " ":
        chars.pop()
    line = Text()
    for strong, run in itertools.groupby(chars[:limit], key=lambda pair: pair[1]):
        line.append("".join(c for c, _ in run), style="bold" if strong else "")
    return line


def elide_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: a long path keeps its start and its
    file name, with ``…`` between."""
    if len(text) <= width:
        return text
    if width < 2:
        return text[:width]
    tail = (width - 1) * 2 // 3  # the end of a path (its file name) says more
    head = width - 1 - tail
    return f"{text[:head]}…{text[len(text) - tail :]}"


def elide_end(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters (one or more), cut at the end with ``…``:
    a title's start says most."""
    width = max(1, width)
    return text if len(text) <= width else text[: width - 1] + "…"
