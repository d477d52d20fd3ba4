"""Where headings are in a PDF's lines: from its outline, or from font-size evidence.

Both functions are pure: they take the kept lines of every page and return a
``HeadingPlan`` that says which lines become heading lines (possibly several lines merged,
or the start of a line for run-in headings) and which headings are inserted where no
line carries their title.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from .layout import Line

_NUMBERING = re.compile(
    r"^(?:(?:chapter|part|section|appendix|lecture|kapitel|teil|anhang|chapitre|partie)\b\.?\s*)?"
    r"(?:(?:\d+|[ivxlc]+|[a-z])(?:[.\-]\d+)*\.?(?:\s+|$))?",
    re.IGNORECASE,
)
_NON_WORD = re.compile(r"[\W_]+")
_NUMBER_ONLY = re.compile(
    r"^(?:(?:chapter|part|appendix|lecture|kapitel|teil|anhang)\s+)?(?:\d+|[IVXLC]+|[A-Z])\.?$",
    re.IGNORECASE,
)
_MAX_LEVEL = 6


def norm_title(text: str) -> str:
    """Fold case, numbering, punctuation and spacing: the key headings match on."""
    s = re.sub(r"^[\W_]+", "", text.casefold().strip())
    while True:  # "Chapter 3 1.2 Foo" → "foo"; "A. Appendix" → "appendix"
        nxt = _NUMBERING.sub("", s, count=1).strip()
        if nxt == s or not _NON_WORD.sub("", nxt):
            break
        s = nxt
    key = _NON_WORD.sub("", s)
    return key or _NON_WORD.sub("", text.casefold())


@dataclass(frozen=True, slots=True)
class OutlineItem:
    level: int
    title: str
    page: int  # 0-based page index
    top: float | None = None  # destination y, when the bookmark gives one


@dataclass(frozen=True, slots=True)
class Placed:
    """A heading taken from ``span`` lines starting at kept line ``index`` of a page.

    ``split`` > 0 means a run-in heading: the first ``split`` characters of the line are the
    heading and the rest of the line stays body text.
    """

    level: int
    title: str
    span: int = 1
    split: int = 0


@dataclass(slots=True)
class HeadingPlan:
    # page index → kept-line index → heading taken from the lines there
    at: dict[int, dict[int, Placed]] = field(default_factory=dict)
    # page index → kept-line index → headings inserted before that line (len(lines) = end)
    inserted: dict[int, dict[int, list[tuple[int, str]]]] = field(default_factory=dict)
    found: int = 0
    missing: int = 0

    def place(self, page: int, index: int, heading: Placed) -> None:
        self.at.setdefault(page, {})[index] = heading
        self.found += 1

    def insert(self, page: int, index: int, level: int, title: str) -> None:
        self.inserted.setdefault(page, {}).setdefault(index, []).append((level, title))
        self.missing += 1

    def __len__(self) -> int:
        return self.found + self.missing


def clean_heading(text: str) -> str:
    return " ".join(text.replace("#", " ").split()).strip()


def _run_in_split(line: str, title: str) -> int:
    """Length of the prefix of ``line`` that is ``title`` (optionally numbered), or 0."""
    words = title.split()
    if not words:
        return 0
    pattern = r"^\s*(?:[\dIVXivx]+(?:\.\d+)*\.?\s*)?" + r"\s*".join(re.escape(w) for w in words)
    m = re.match(pattern, line, re.IGNORECASE)
    if m is None or m.end() >= len(line):
        return 0
    rest = line[m.end() :]
    if not rest[:1].isspace() and rest[:1] not in {".", ":", "—", "–"}:
        return 0
    return m.end()


def plan_from_outline(pages: Sequence[Sequence[Line]], items: Sequence[OutlineItem]) -> HeadingPlan:
    """Locate each bookmark's title on its target page; insert it there when not found."""
    plan = HeadingPlan()
    used: set[tuple[int, int]] = set()
    cursor: dict[int, int] = {}
    keys_cache: dict[tuple[int, int, int], str] = {}

    def window_key(p: int, i: int, k: int) -> str:
        ck = (p, i, k)
        hit = keys_cache.get(ck)
        if hit is None:
            hit = norm_title(" ".join(ln.text for ln in pages[p][i : i + k]))
            keys_cache[ck] = hit
        return hit

    for item in items:
        p = item.page
        if not 0 <= p < len(pages):
            continue
        lines = pages[p]
        key = norm_title(item.title)
        level = max(1, min(item.level, _MAX_LEVEL))
        start = cursor.get(p, 0)
        hit: tuple[int, Placed] | None = None
        for order in (range(start, len(lines)), range(0, min(start, len(lines)))):
            for i in order:
                if any((p, j) in used for j in (i,)):
                    continue
                for k in (1, 2, 3):
                    if i + k > len(lines) or any((p, j) in used for j in range(i, i + k)):
                        break
                    wk = window_key(p, i, k)
                    if wk == key and key:
                        text = clean_heading(" ".join(ln.text for ln in lines[i : i + k]))
                        hit = (i, Placed(level, text or item.title, span=k))
                        break
                    if len(wk) > len(key) + 40:
                        break
                if hit is None and len(key) >= 4 and lines[i].text:
                    cut = _run_in_split(lines[i].text, item.title)
                    if cut:
                        text = clean_heading(lines[i].text[:cut].rstrip(" .:—–"))
                        hit = (i, Placed(level, text or item.title, span=1, split=cut))
                if hit is not None:
                    break
            if hit is not None:
                break
        if hit is not None:
            i, placed = hit
            plan.place(p, i, placed)
            for j in range(i, i + placed.span):
                used.add((p, j))
            cursor[p] = i + placed.span
            continue
        # not on the page: before the first line below the destination, else at the top
        at = cursor.get(p, 0)
        if item.top is not None:
            for i, ln in enumerate(lines):
                if ln.y <= item.top + 1.0 and (p, i) not in used:
                    at = max(at, i)
                    break
        plan.insert(p, min(at, len(lines)), level, clean_heading(item.title) or "Untitled")
    return plan


# --- font-size evidence ------------------------------------------------------------------


def body_size(pages: Sequence[Sequence[Line]]) -> float:
    sizes: Counter[float] = Counter()
    for lines in pages:
        for ln in lines:
            sizes[round(ln.size * 2) / 2] += len(ln.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


_NUMBERED = re.compile(
    r"^(?:(?:chapter|part|appendix|kapitel|teil|anhang)\s+\S+|(?:\d+|[A-Z])(?:\.\d+)*\.?)(?=\s+\S)",
    re.I,
)
_TRAILING_NUM = re.compile(r"(?<=[^\W\d_])\s+\d{1,3}$")


def _is_candidate_text(text: str) -> bool:
    if not 2 <= len(text) <= 150:
        return False
    letters = sum(ch.isalpha() for ch in text)
    if letters < 2 and not _NUMBER_ONLY.match(text):
        return False
    words = text.split()
    if len(words) > 16:
        return False
    return not (text.endswith((".", ",", ";")) and len(words) > 3 and not _NUMBER_ONLY.match(text))


def numbering_depth(text: str) -> int | None:
    """1 for "Chapter 3" / "3", 2 for "3.1", 3 for "A.1.2"; None when not numbered."""
    m = _NUMBERED.match(text.strip())
    if m is None:
        return None
    tok = m.group(0)
    if tok.split()[0].casefold() in {"chapter", "part", "appendix", "kapitel", "teil", "anhang"}:
        return 1
    return min(tok.rstrip(".").count(".") + 1, _MAX_LEVEL)


def plan_from_fonts(pages: Sequence[Sequence[Line]], *, min_headings: int = 2) -> HeadingPlan:
    """Lines set larger than the body text become headings.

    Levels: the numbering depth where headings of a size are numbered ("2.3" → 2), else
    the rank of the size among the sizes used by more than one heading.
    """
    plan = HeadingPlan()
    body = body_size(pages)
    if body <= 0:
        return plan
    skip_first = len(pages) > 5  # a title page is not a heading
    cands: list[tuple[int, int, float]] = []  # page, line, size key
    for p, lines in enumerate(pages):
        if p == 0 and skip_first:
            continue
        for i, ln in enumerate(lines):
            if ln.mono or not _is_candidate_text(ln.text):
                continue
            numbered = numbering_depth(ln.text) is not None
            if ln.size >= body * 1.12 or (
                numbered
                and (ln.size >= body * 1.07 or (ln.bold and ln.size >= body * 0.97))
                and len(ln.text) <= 90
                and not ln.text.endswith(".")
            ):
                cands.append((p, i, round(ln.size * 2) / 2))
    if not cands:
        return plan
    # merge consecutive candidate lines (multi-line titles, "Chapter 3" + title)
    groups: list[list[tuple[int, int, float]]] = []
    for c in cands:
        if groups:
            g = groups[-1]
            last = g[-1]
            first_text = pages[g[0][0]][g[0][1]].text
            if (
                c[0] == last[0]
                and c[1] == last[1] + 1
                and len(g) < 3
                and (
                    (c[2] == last[2] and numbering_depth(pages[c[0]][c[1]].text) is None)
                    or (len(g) == 1 and _NUMBER_ONLY.match(first_text) is not None)
                )
            ):
                g.append(c)
                continue
        groups.append([c])
    heads: list[tuple[int, int, int, float, str]] = []  # page, line, span, size, text
    for g in groups:
        p, i, _ = g[0]
        text = clean_heading(" ".join(pages[p][j].text for _, j, _ in g))
        text = _TRAILING_NUM.sub("", text) if len(text.split()) > 2 else text
        if not text or _NUMBER_ONLY.match(text) or len(text.split()) > 20:
            continue
        heads.append((p, i, len(g), max(s for _, _, s in g), text))
    if len(heads) < min_headings:
        return plan
    by_size: dict[float, list[int]] = {}
    count: Counter[float] = Counter()
    for _, _, _, size, text in heads:
        count[size] += 1
        depth = numbering_depth(text)
        if depth is not None:
            by_size.setdefault(size, []).append(depth)
    frequent = sorted((s for s in count if count[s] > 1), reverse=True)
    rank: dict[float, int] = {}
    for s in count:
        if s in by_size:
            rank[s] = Counter(by_size[s]).most_common(1)[0][0]
            continue
        smaller = [f for f in frequent if f <= s]
        rank[s] = min(frequent.index(smaller[0]) + 1, _MAX_LEVEL) if smaller else 1
    for p, i, span, size, text in heads:
        depth = numbering_depth(text)
        level = depth if depth is not None and size not in by_size else rank[size]
        plan.place(p, i, Placed(level, text, span=span))
    return plan


__all__ = [
    "HeadingPlan",
    "OutlineItem",
    "Placed",
    "body_size",
    "clean_heading",
    "norm_title",
    "numbering_depth",
    "plan_from_fonts",
    "plan_from_outline",
]
