"""Text from documents and file names as it may reach a terminal.

A book can hold escape sequences (OSC 52 writes the clipboard, others set the window
title or clear the screen) and a file name can hold rich markup (``[/red]`` made the
ingest summary crash). Human output passes through here at the edge (the cli modules);
JSON output does not need to: it escapes control characters itself.
"""

from __future__ import annotations

import re

from rich.markup import escape

# C0 controls but tab and newline, DEL, and C1 (0x9b and 0x9d open CSI and OSC
# sequences on their own in some terminals).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def plain(text: str) -> str:
    """``text`` without control characters (tab and newline kept)."""
    return _CONTROL.sub("", text)


def markup(text: str) -> str:
    """``plain(text)`` escaped for rich console markup."""
    return escape(plain(text))


def elide_middle(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters: a long path keeps its start and its
    file name, with ``…`` between."""
    if len(text) <= width:
        return text
    if width < 2:
        return text[:width]
    tail = (width - 1) * 2 // 3  # the end of a path (its file name) says more
    head = width - 1 - tail
    return f"{text[:head]}…{text[len(text) - tail:]}"
