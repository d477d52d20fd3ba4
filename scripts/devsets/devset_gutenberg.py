"""Heading truth of a Project Gutenberg book from its HTML edition.

The entries are the ``<h1>``…``<h6>`` headings the edition's own contents links point at
(the heading a link target is, lies in, or directly precedes). The rules for numbering
labels and levels are those of eval/flat-text/README.md, "Numbering labels and levels":

- ``joined-labels``: a heading that is only a numbering label ("CHAPTER I.") takes the
  unlinked headings printed right after it into its title and keeps the numbering as
  ``label``; an entry's level is one more than its enclosing headings that are entries.
- ``contents-targets``: the linked headings as they are, levels by tag rank (the first
  rule set, kept for a book whose entries are no bare labels).

Both then put the entries of one numbered series ("Part I", "Part II", …) on one level.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

import lxml.html

Entry = dict[str, Any]

LABEL = re.compile(
    r"^(?:(?:chapter|chap|book|part|epoch|plate|canto|letter|section|lecture|stave)\.?\s+)?"
    r"(?:[ivxlcdm]+|\d+|the\s+(?:first|second|third|fourth|fifth|sixth|seventh|eighth"
    r"|ninth|tenth|last))\.?$",
    re.I,
)
SERIES = re.compile(r"^(part|book|epoch|volume|chapter)\b\.?\s*([ivxlcdm]+|\d+|the\s+\w+)\b", re.I)
_HEADING = re.compile(r"h[1-6]")
_SPACER_TAGS = ("a", "p", "div", "span", "br")


def _blank(s: str | None) -> bool:
    return not (s or "").replace("\xa0", "").strip()


def _own_text(el: Any) -> str:
    return (el.text or "") + (el.tail or "")


def _rank(el: Any) -> int:
    return int(el.tag[1])


@dataclass(frozen=True)
class Page:
    """A parsed HTML edition: its elements in document order and its headings."""

    elements: list[Any]
    order: dict[Any, int]
    heads: list[Any]

    @classmethod
    def of(cls, root: Any) -> Page:
        elements = list(root.iter())
        heads = [e for e in elements if isinstance(e.tag, str) and _HEADING.fullmatch(e.tag)]
        return cls(elements, {e: i for i, e in enumerate(elements)}, heads)

    def following_heading(self, t: Any) -> Any | None:
        """The first heading after anchor ``t`` with no text between them."""
        if not _blank(t.tail):
            return None
        inside = set(t.iterdescendants())
        heads = set(self.heads)
        for el in self.elements[self.order[t] + 1 :]:
            if not isinstance(el.tag, str) or el in inside:
                continue
            if el in heads:
                return el
            if not _blank(_own_text(el)):
                return None
        return None

    def text_between(self, a: Any, b: Any) -> bool:
        """Whether any text lies between heading ``a`` and heading ``b``."""
        if not _blank(a.tail):
            return True
        inside = set(a.iterdescendants())
        return any(
            isinstance(el.tag, str) and el not in inside and not _blank(_own_text(el))
            for el in self.elements[self.order[a] + 1 : self.order[b]]
        )


def _link_targets(page: Page) -> list[Any]:
    """The headings the page's ``#`` links point at, in document order."""
    ids: dict[str, Any] = {}
    for el in page.elements:
        if isinstance(el.tag, str):
            for key in ("id", "name"):
                v = el.get(key)
                if v and v not in ids:
                    ids[v] = el
    heads = set(page.heads)
    targets: list[Any] = []
    for a in page.elements:
        href = a.get("href", "") if a.tag == "a" else ""
        if not href.startswith("#") or href[1:] not in ids:
            continue
        t = ids[href[1:]]
        hd = next((x for x in [t, *t.iterancestors()] if x in heads), None)
        if hd is None:
            hd = page.following_heading(t)
        if hd is not None and hd not in targets:
            targets.append(hd)
    return sorted(targets, key=page.order.__getitem__)


def _title(el: Any) -> str:
    return re.sub(r"\s+", " ", el.text_content()).strip()


def _label_entry(page: Page, hd: Any, targets: set[Any], index: int) -> Entry:
    """A numbering label joined with the unlinked headings printed right after it."""
    label, rank = _title(hd), _rank(hd)
    parts: list[Any] = []
    j = index + 1
    heads = page.heads
    while (
        j < len(heads)
        and _rank(heads[j]) >= rank
        and heads[j] not in targets
        and (not parts or heads[j].tag == parts[0].tag)
        and not page.text_between(heads[j - 1], heads[j])
    ):
        parts.append(heads[j])
        j += 1
    title = " ".join([label, *(_title(p) for p in parts)])
    return {"label": label, "title": title}


def _outline_level(page: Page, index: int, entries: set[Any]) -> int:
    """One more than the enclosing headings (by rank) that are entries themselves."""
    rank, level = _rank(page.heads[index]), 1
    for hd in reversed(page.heads[:index]):
        if _rank(hd) < rank:
            rank = _rank(hd)
            level += hd in entries
    return level


def joined_labels(html: bytes) -> list[Entry]:
    """Truth by the ``joined-labels`` rules (see the module docstring)."""
    page = Page.of(lxml.html.parse(io.BytesIO(html)).getroot())
    targets = _link_targets(page)
    target_set = set(targets)
    index = {el: i for i, el in enumerate(page.heads)}
    out: list[Entry] = []
    for hd in targets:
        title = _title(hd)
        entry = _label_entry(page, hd, target_set, index[hd]) if LABEL.match(title) else {}
        out.append(
            (entry or {"title": title}) | {"level": _outline_level(page, index[hd], target_set)}
        )
    return out


def _anchor_ids(el: Any) -> set[str]:
    """The ids of a heading, of anchors in it and of the empty spacers right before it."""
    found = {el.get("id"), el.get("name")} | {x for a in el.iter("a") for x in _ids(a)}
    prev = el.getprevious()
    while (
        prev is not None
        and isinstance(prev.tag, str)
        and not "".join(prev.itertext()).strip()
        and prev.tag in _SPACER_TAGS
    ):
        found |= _ids(prev) | {x for a in prev.iter("a") for x in _ids(a)}
        prev = prev.getprevious()
    return {x for x in found if x is not None}


def _ids(el: Any) -> set[str]:
    return {x for x in (el.get("id"), el.get("name")) if x is not None}


def contents_targets(html: bytes) -> list[Entry]:
    """Truth by the ``contents-targets`` rules (see the module docstring)."""
    root = lxml.html.fromstring(html)
    targets = {a.get("href")[1:] for a in root.iter("a") if (a.get("href") or "").startswith("#")}
    out: list[Entry] = []
    for el in root.iter():
        if isinstance(el.tag, str) and _HEADING.fullmatch(el.tag):
            title = " ".join(" ".join(el.itertext()).split())
            if title and _anchor_ids(el) & targets:
                out.append({"level": _rank(el), "title": title})
    top = min((e["level"] for e in out), default=1)
    return [{"level": e["level"] - top + 1, "title": e["title"]} for e in out]


def series_level(truth: list[Entry]) -> list[Entry]:
    """Entries numbered in one series ("Part I", "Part II") are siblings: the HTML's own
    contents lists them alike even when the body sets them in different tags."""
    out = [dict(e) for e in truth]
    series: dict[str, list[int]] = {}
    for i, e in enumerate(out):
        if m := SERIES.match(e["title"]):
            series.setdefault(m.group(1).lower(), []).append(i)
    for idx in series.values():
        level = min(out[i]["level"] for i in idx)
        for i in idx:
            out[i]["level"] = level
    return out


RULES = {"joined-labels": joined_labels, "contents-targets": contents_targets}


def gutenberg_truth(html: bytes, rule: str) -> list[Entry]:
    """The truth of an HTML edition by the named rule set, a numbered series levelled."""
    return series_level(RULES[rule](html))
