"""Navigation links an exporter leaves in flat text: the "Next topic: …", "Previous
topic: …" and "Parent topic: …" lines DITA and DocBook help systems print on every page,
which pandoc keeps when it writes their EPUBs as plain text. A "Next topic" link names
the heading that follows it, and a topic's "Parent topic" link says what it is under:
the headings and their depth, stated by the document itself."""

from __future__ import annotations

import re
from collections.abc import Mapping

from .candidates import Candidate
from .titles import entry_key

_LINK = re.compile(r"(?i:(next|previous|parent)\s+topic):\s+(\S.*?)\s*$")


def linked_headings(lines: list[str], candidates: Mapping[int, Candidate]) -> dict[int, int]:
    """The standalone lines the "Next topic" links name, in order (for each link, the
    first line with its title after the link and after the heading named before; a link
    repeating the last one, printed again at the top of its page, names nothing new),
    each with its depth: one below the heading its topic's "Parent topic" link names, 1
    without one. The first topic, which no link names, is no heading (a book's front
    page); "Previous topic" links name nothing new."""
    keyed: dict[str, list[int]] = {}  # standalone lines by title key, in order
    for j, c in sorted(candidates.items()):
        if c.standalone:
            keyed.setdefault(c.key, []).append(j)
    heads: list[int] = []
    parent_of: dict[int, str] = {}  # heading line -> the key of its parent topic
    for i, line in enumerate(lines):
        m = _LINK.match(line.strip())
        if m is None:
            continue
        kind, key = m.group(1).casefold(), entry_key(m.group(2))
        if kind == "next" and not (heads and candidates[heads[-1]].key == key):
            after = max(i, heads[-1]) if heads else i
            target = next((j for j in keyed.get(key, []) if j > after), None)
            if target is not None:
                heads.append(target)
        elif kind == "parent" and heads and heads[-1] not in parent_of:
            parent_of[heads[-1]] = key
    depth: dict[int, int] = {}
    latest: dict[str, int] = {}  # a title key -> its latest heading line
    for h in heads:
        parent = latest.get(parent_of.get(h, ""))
        depth[h] = depth[parent] + 1 if parent is not None else 1
        latest[candidates[h].key] = h
    return depth
