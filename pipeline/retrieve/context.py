"""Budgeted context for agents: ranked snippets packed with their citations, then
widened to their sections while the budget lasts."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import PurePath
from typing import Any

from ..chunk.tokens import TokenCounter
from ..index.schema import DOCUMENTS
from ..index.store import quote
from ..index.words import words
from .hits import StoredChunk
from .rank import Ranked

Span = tuple[int, int]
MIN_PIECE = 64  # tokens left worth a piece of a snippet that did not fit whole
PAD = 2  # sentences kept beside the ones a question points at (``Packer.trim``)
# The best this many snippets enter whole, not trimmed (``Packer.add``): the best match is
# the likeliest answer, and a story's scene or an argument needs its surroundings, not two
# sentences of them. Measured left one set out (scripts/eval/eval_loso.py, 2,000 tokens, docs/
# design.md): fairytaleqa whole evidence, hybrid, tuning/report 63.4/55.6 -> 69.5/59.4;
# chunking-eval, financebench-dev, docugami-10q hybrid unchanged, covid-qa within a point.
WHOLE = 1
# A piece this many tokens or fewer from an item of its section joins it, the text
# between them included: two cuts of one passage read better as one, and the reader
# pays one citation header instead of two (``Packer.add``; 0: pieces join only when
# they touch). Left one set out (scripts/eval/eval_loso.py, 2,000 tokens, docs/design.md),
# 0 -> 300, report halves, lexical: fairytaleqa 58.8 -> 61.5, docugami-10q figure recall
# 36.6 -> 37.8, chunking-eval 92.6 -> 93.1, covid-qa 75.0 -> 75.5, financebench-dev 76.0
# at both; every left-out set is given 300 by the others' tuning halves.
BRIDGE = 300
# The best snippets (``WHOLE``) grow to the farthest paragraph edge, within their section,
# that adds this many tokens or fewer on a side (``Packer.grown``): a snippet's edge inside
# a story's scene lost its end. Left one set out (scripts/eval/eval_loso.py, 2,000 tokens,
# docs/design.md), 0 -> 80, report halves, lexical: fairytaleqa 62.6 -> 64.7, chunking-eval
# and covid-qa +0.5, docugami-10q -0.3, financebench-dev unchanged; 80 is given to four
# left-out sets of five in both modes. Growing every item gained more on the books and
# cost the filings, whose answers lie in many places the budget must reach.
GROW = 80


@dataclass(frozen=True, slots=True)
class Citation:
    doc_id: str
    doc_title: str
    source: str
    breadcrumb: tuple[str, ...]
    page_start: int | None  # physical pages of the cited text itself
    page_end: int | None
    char_start: int
    char_end: int
    # The printed labels of the first and last page (one for one page; none where the
    # labels are the physical numbers or the source has none): ``printed_labels``.
    page_labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ContextItem:
    section_id: str
    snippet_ids: tuple[str, ...]
    text: str  # exactly extract(source)[char_start:char_end]
    tokens: int
    window: bool  # True when only part of the section fit
    citation: Citation
    rank: int  # best rank among its snippets (1 = best)
    signals: dict[str, float | int | None] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Context:
    query: str
    budget: int
    tokens: int
    mode: str = "lexical"
    note: str = ""
    items: tuple[ContextItem, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_markdown(self) -> str:
        if not self.items:
            return f"No context found for {self.query!r} within {self.budget} tokens.\n"
        out = [
            header(n, it.citation) + "\n\n" + it.text + "\n" for n, it in enumerate(self.items, 1)
        ]
        return "\n".join(out)


def header(n: int, c: Citation) -> str:
    return f"[{n}] {citation_text(c)}"


def citation_text(c: Citation) -> str:
    """How a context item is cited: breadcrumb — file name, pages (printed labels)."""
    pages = ""
    if c.page_start is not None:
        pages = f", p. {c.page_start}" + (f"–{c.page_end}" if c.page_end != c.page_start else "")
        if c.page_labels:
            shown = c.page_labels[0] + (f"–{c.page_labels[-1]}" if len(c.page_labels) > 1 else "")
            pages += f" (printed {shown})"
    # The file's name, not its path, and no character offsets: every header is paid from
    # the budget (a full one cost ~55 WordPiece tokens); the citation keeps both.
    path = " > ".join(c.breadcrumb)
    return f"{path} — {PurePath(c.source).name}{pages}"


@dataclass(frozen=True, slots=True)
class PageMap:
    """Where each physical page of a document starts in its text, and its label."""

    numbers: tuple[int, ...]
    starts: tuple[int, ...]
    labels: tuple[str | None, ...]

    def pages(self, a: int, b: int) -> tuple[int, int, tuple[str, ...]] | None:
        """The physical pages of ``[a, b)`` and their printed labels."""
        if not self.starts:
            return None
        first = max(0, bisect_right(self.starts, a) - 1)
        last = max(first, bisect_right(self.starts, max(a, b - 1)) - 1)
        ends = ((self.numbers[first], self.labels[first]), (self.numbers[last], self.labels[last]))
        return self.numbers[first], self.numbers[last], printed_labels(*ends)


def printed_labels(first: tuple[int, str | None], last: tuple[int, str | None]) -> tuple[str, ...]:
    """The labels to print for a page range, from its first and last (physical number,
    label): the range ``("xii", "xiv")``, one label for one page, none when the labels
    say what the numbers say, or an end has none (half a range would read as one page).
    A label equal to its own page's number used to be dropped even at the range's end,
    so pages 25–26 printed as "26"."""
    (n1, l1), (n2, l2) = first, last
    if not l1 or not l2 or (l1, l2) == (str(n1), str(n2)):
        return ()
    return (l1,) if l1 == l2 else (l1, l2)


def page_map_search(doc_ids: Sequence[str]) -> dict[str, Any] | None:
    """The search (for ``multi_search``) that reads these documents' page maps (from the
    records that hold the contents: their id is the doc_id; copies' records have none)."""
    if not doc_ids:
        return None
    return {
        "collection": DOCUMENTS,
        "q": "*",
        "filter_by": f"id:=[{','.join(quote(d) for d in doc_ids)}]",
        "include_fields": "id,doc_id,page_map",
        "per_page": len(doc_ids),
    }


def page_maps(records: dict[str, dict[str, Any]]) -> dict[str, PageMap]:
    """Page maps from document records (records written before page maps have none)."""
    out: dict[str, PageMap] = {}
    for record in records.values():
        raw = record.get("page_map")
        if raw:
            rows = json.loads(raw)
            out[record["doc_id"]] = PageMap(
                tuple(int(r[0]) for r in rows),
                tuple(int(r[2]) for r in rows),
                tuple(r[1] for r in rows),
            )
    return out


@dataclass(slots=True)
class _Item:
    """A context item while packing: the range ``[a, b)`` of ``section``."""

    section: StoredChunk
    a: int
    b: int
    tokens: int
    snippets: list[StoredChunk]
    ranks: list[tuple[int, Ranked]]  # (position in the ranking, signals)


class Packer:
    """Packs ranked snippets into ``budget`` tokens, never repeating a source character."""

    def __init__(
        self,
        budget: int,
        counter: TokenCounter,
        maps: dict[str, PageMap],
        terms: frozenset[str] = frozenset(),
    ) -> None:
        self.budget = budget
        self.counter = counter
        self.maps = maps
        self.terms = terms  # the question's (``words``): what ``trim`` and ``fill`` look for
        self.items: list[_Item] = []
        self.used = 0
        self.skipped: list[tuple[StoredChunk, StoredChunk, tuple[int, Ranked], Span]] = []

    def cost(self, sec: StoredChunk, a: int, b: int, snippets: Sequence[StoredChunk]) -> int:
        cite = self.citation(sec, a, b, snippets)
        return self.counter.count(sec.span(a, b)) + self.counter.count(header(99, cite))

    def taken(self, doc_id: str) -> list[Span]:
        return [(it.a, it.b) for it in self.items if it.section.doc_id == doc_id]

    def add(self, snippet: StoredChunk, sec: StoredChunk, ranked: tuple[int, Ranked]) -> None:
        """A snippet's range inside its section (the best ones grown to the edges of
        their paragraphs, ``grown``), grown to the whole tables it cuts when they fit,
        minus what is already taken; a piece that touches an item of the same section,
        or lies within ``BRIDGE`` tokens of one, joins it."""
        span = (max(snippet.char_start, sec.char_start), min(snippet.char_end, sec.char_end))
        # The best enter whole when they fit; a small budget still gets their cut.
        if ranked[0] > WHOLE or self.used + self.cost(sec, *span, [snippet]) > self.budget:
            span = self.trim(sec, span)
        core, grew = span, False  # an item holds text of each snippet it names
        if ranked[0] <= WHOLE:
            grown = self.grown(sec, span)
            if grown != span and self.used + self.cost(sec, *grown, [snippet]) <= self.budget:
                span, grew = grown, True
        whole = table_span(sec, *span)
        if whole != span and self.used + self.cost(sec, *whole, [snippet]) <= self.budget:
            span = whole
        for a, b in subtract(span, self.taken(sec.doc_id)):
            if grew and (b <= core[0] or a >= core[1]):
                continue  # what growth alone added, beside text already taken
            join = self.neighbour(sec, a, b)
            if join is not None:
                na, nb = min(join.a, a), max(join.b, b)
                t = self.cost(sec, na, nb, [*join.snippets, snippet])
                if self.used - join.tokens + t <= self.budget:
                    self.used += t - join.tokens
                    join.a, join.b, join.tokens = na, nb, t
                    join.snippets.append(snippet)
                    join.ranks.append(ranked)
                    continue
                if join.b == a or join.a == b:
                    continue
            t = self.cost(sec, a, b, [snippet])
            if self.used + t <= self.budget:
                self.items.append(_Item(sec, a, b, t, [snippet], [ranked]))
                self.used += t
            else:  # left for ``fill``, which takes sentences of the snippet's own range
                if grew:
                    a, b = max(a, core[0]), min(b, core[1])
                self.skipped.append((snippet, sec, ranked, (a, b)))

    def neighbour(self, sec: StoredChunk, a: int, b: int) -> _Item | None:
        """The item of ``sec`` that ``[a, b)`` touches, or, failing one, the nearest
        within ``BRIDGE`` tokens of it with nothing taken between them."""
        near: list[tuple[int, _Item]] = []
        taken = self.taken(sec.doc_id)
        for it in self.items:
            if it.section.id != sec.id:
                continue
            if it.b == a or it.a == b:
                return it
            gap = (it.b, a) if it.b < a else (b, it.a) if b < it.a else None
            if BRIDGE and gap and subtract(gap, taken) == [gap]:
                tokens = self.counter.count(sec.span(*gap))
                if tokens <= BRIDGE:
                    near.append((tokens, it))
        return min(near, key=lambda n: n[0])[1] if near else None

    def trim(self, sec: StoredChunk, span: Span) -> Span:
        """The part of a snippet's range the question points at: from its first to its
        last sentence sharing one of the question's terms, ``PAD`` sentences more on
        each side, from the header of a table it starts in; the whole range when no
        sentence shares one, or when the cut would open a code block the whole does not.

        A snippet runs to ~420 tokens, often a few lines of answer among unrelated ones
        (a filing's paragraph of figures, one point of a list); the lines cut away leave
        room for the next snippet. Measured (scripts/eval/eval_retrieval.py, 2,000 tokens),
        the padding chosen on chunking-eval's tuning half, lexical reference in context:
        no trim 93.5, pad 0/1/2/3: 90.5/93.1/94.4/93.5; report half 93.4 -> 94.2 at 2
        (finance 87.6 -> 89.7); with the table header kept, docugami-10q figure recall,
        report, lexical/hybrid 38.1/49.2 -> 41.3/49.2, financebench-dev page-hit, tuning,
        77.3/77.3 -> 81.8/77.3 (report unchanged). What trimming leaves, ``widen`` may
        give back when the whole section fits."""
        a, b = span
        cuts, shared = sentence_hits(sec, a, b, self.terms)
        hits = [n for n, k in enumerate(shared) if k]
        if not hits:
            return span
        lo, hi = max(0, hits[0] - PAD), min(len(cuts) - 1, hits[-1] + PAD)
        if lo == 0 and hi == len(cuts) - 1:
            return span
        # Rows without their table's header read as bare numbers: a cut that starts
        # inside a table starts at its header (or caption) when the snippet holds it.
        start = max(a, table_span(sec, cuts[lo][0], cuts[lo][0] + 1)[0])
        cut = (start, cuts[hi][1])
        return span if _open_fence(sec.span(*cut)) and not _open_fence(sec.span(a, b)) else cut

    def grown(self, sec: StoredChunk, span: Span) -> Span:
        """``span`` grown, within its section, to the farthest paragraph edge on each side
        that adds ``GROW`` tokens or fewer and opens no code block: the rest of a
        paragraph it cuts, and short paragraphs beside it."""
        if GROW <= 0:
            return span
        text = sec.body  # exactly the section's range of the source
        s, e = span[0] - sec.char_start, span[1] - sec.char_start
        before = [m.end() for m in _PARAGRAPH_BREAK.finditer(text, 0, s)]
        after = [m.start() for m in _PARAGRAPH_BREAK.finditer(text, e)]
        lo = self._reach(text, s, [x for x in [*reversed(before), 0] if x < s])
        hi = self._reach(text, e, [x for x in [*after, len(text)] if x > e])
        return sec.char_start + lo, sec.char_start + hi

    def _reach(self, text: str, stay: int, edges: list[int]) -> int:
        """The farthest of ``edges`` (nearest first) whose text between it and ``stay``
        counts ``GROW`` tokens or fewer and opens no code block; else ``stay``."""
        reach = stay
        for edge in edges:
            piece = text[min(stay, edge) : max(stay, edge)]
            if self.counter.count(piece) > GROW:
                break
            if not _open_fence(piece):
                reach = edge
        return reach

    def fill(self) -> None:
        """Spend what budget is left on the snippets that did not fit whole, in rank
        order: of each, the run of whole sentences around the one sharing most of the
        question's terms that fits.

        Snippets run to ~420 tokens, so at 2,000 tokens four fit and the fifth, often
        the one holding the answer, was skipped while 150-250 tokens stayed unused.
        Measured at 2,000 tokens, lexical/hybrid (scripts/eval/eval_retrieval.py): chunking-eval
        reference in context, tuning half 92.6/92.2 -> 92.6/92.6, report half 92.5/91.3
        -> 93.8/92.9; with the period scope of ``arrange`` as well, docugami-10q figure
        recall tuning 40.2/50.9 -> 42.9/52.3, report 35.0/48.2 -> 37.1/49.3, and
        financebench-dev page-hit tuning 77.3/77.3 -> 77.3/81.8, report 76.0/80.0 ->
        80.0/80.0. Done after widening, so an item still grows to its whole section
        first (done before, it measured the same on the tuning half). Growing items by up
        to 80 tokens of neighbouring sentences instead (an answer cut at a snippet's
        edge) lost on the tuning half."""
        for snippet, sec, ranked, span in self.skipped:
            left = self.budget - self.used
            if left < MIN_PIECE:
                return
            for a, b in subtract(span, self.taken(sec.doc_id)):
                piece = self.window(sec, a, b, self.terms, [snippet])
                if piece is None:
                    continue
                (wa, wb), t = piece
                self.items.append(_Item(sec, wa, wb, t, [snippet], [ranked]))
                self.used += t
                break

    def least(self) -> int | None:
        """The budget the best snippet that did not fit needs at the least: its sentence
        sharing most of the question's terms, with its citation, and never under
        ``MIN_PIECE``, below which ``fill`` takes no piece (None: every snippet fit)."""
        if not self.skipped:
            return None
        snippet, sec, _, (a, b) = self.skipped[0]
        cuts, hits = sentence_hits(sec, a, b, self.terms)
        if not cuts:
            return None
        best = best_sentence(hits)
        return max(MIN_PIECE, self.cost(sec, *cuts[best], [snippet]))

    def window(
        self, sec: StoredChunk, a: int, b: int, terms: frozenset[str], snippets: list[StoredChunk]
    ) -> tuple[Span, int] | None:
        """The sentences of ``[a, b)`` around its best one, as many as the budget left
        holds, and their cost; None when not even the best one fits. Grown on the
        sentences' own counts (each counted once), then checked as a whole."""
        cuts, hits = sentence_hits(sec, a, b, terms)
        if not cuts:
            return None
        sizes = [self.counter.count(sec.span(*c)) for c in cuts]
        cite_tokens = self.counter.count(header(99, self.citation(sec, a, b, snippets)))
        left = self.budget - self.used - cite_tokens
        best = best_sentence(hits)
        lo, hi = _grow(hits, sizes, best, left)
        while lo < hi and _open_fence(sec.span(cuts[lo][0], cuts[hi][1])):
            lo, hi = (lo, hi - 1) if hi > best else (lo + 1, hi)  # no half a code block
        while True:  # the whole may count a little more than its parts
            span = (cuts[lo][0], cuts[hi][1])
            t = self.cost(sec, *span, snippets)
            if self.used + t <= self.budget:
                return span, t
            if lo == hi:
                return None
            if hits[lo] < hits[hi]:
                lo += 1
            else:
                hi -= 1

    def widen(self) -> None:
        """Grow items to their whole section (what of it is free), best first."""
        for it in self.items:
            sec = it.section
            others = [s for s in self.taken(sec.doc_id) if s != (it.a, it.b)]
            free = subtract((sec.char_start, sec.char_end), others)
            whole = next((p for p in free if p[0] <= it.a and it.b <= p[1]), None)
            if whole is None or whole == (it.a, it.b):
                continue
            t = self.cost(sec, *whole, it.snippets)
            if self.used - it.tokens + t <= self.budget:
                self.used += t - it.tokens
                it.a, it.b, it.tokens = whole[0], whole[1], t

    def citation(
        self, sec: StoredChunk, a: int, b: int, snippets: Sequence[StoredChunk]
    ) -> Citation:
        return cite(sec, a, b, snippets, self.maps.get(sec.doc_id))

    def result(self) -> list[ContextItem]:
        out: list[ContextItem] = []
        for it in self.items:
            sec = it.section
            position, best = min(it.ranks, key=lambda r: r[0])
            out.append(
                ContextItem(
                    section_id=sec.id,
                    snippet_ids=tuple(s.id for s in it.snippets),
                    text=sec.span(it.a, it.b),
                    tokens=it.tokens,
                    window=(it.a, it.b) != (sec.char_start, sec.char_end),
                    citation=self.citation(sec, it.a, it.b, it.snippets),
                    rank=position,
                    signals={
                        "score": best.score,
                        "lexical": best.lexical,
                        "lexical_rank": best.lexical_rank,
                        "dense": best.dense,
                        "dense_rank": best.dense_rank,
                    },
                )
            )
        return out


def cite(
    sec: StoredChunk,
    a: int,
    b: int,
    snippets: Sequence[StoredChunk] = (),
    page_map: PageMap | None = None,
) -> Citation:
    """The citation of ``[a, b)`` of ``sec`` (a section, or any stored chunk)."""
    pages = _pages(page_map, sec, a, b, snippets)
    start, end, labels = pages if pages else (None, None, ())
    return Citation(sec.doc_id, sec.doc_title, sec.source, sec.breadcrumb, start, end, a, b, labels)


def _pages(
    page_map: PageMap | None, sec: StoredChunk, a: int, b: int, snippets: Sequence[StoredChunk]
) -> tuple[int, int, tuple[str, ...]] | None:
    """The pages of ``[a, b)``: exact from the document's page map; else, for records
    without one, the pages of the snippets it consists of, or of the section."""
    if page_map is not None:
        return page_map.pages(a, b)
    if sec.page_start is None:
        return None
    inside = [s for s in snippets if s.page_start is not None]
    if inside and (a, b) != (sec.char_start, sec.char_end):
        lo = min(s.page_start or 0 for s in inside)
        hi = max(s.page_end or s.page_start or 0 for s in inside)
        return lo, hi, ()
    return sec.page_start, sec.page_end or sec.page_start, ()


def table_span(sec: StoredChunk, a: int, b: int) -> Span:
    """``[a, b)`` grown to whole tables where it starts or ends inside one (a statement
    cut between two snippets answers nothing), with the caption line above a table; a
    span that ends on a table's caption grows over that table (a snippet holding only a
    statement's heading and caption ranks well and answers nothing)."""
    body, base = sec.body, sec.char_start
    lines = body.splitlines(keepends=True)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    first = max(0, bisect_right(starts, a - base) - 1)
    last = max(first, bisect_right(starts, max(a, b - 1) - base) - 1)
    if first < len(lines) and _is_row(lines[first]):
        while first > 0 and _is_row(lines[first - 1]):
            first -= 1
        caption = first - 2
        if caption >= 0 and not lines[first - 1].strip() and _is_caption(lines[caption]):
            first = caption
        a = min(a, base + starts[first])
    if last < len(lines) and _is_caption(lines[last]) and _lead_only(lines[first : last + 1]):
        after = last + 1
        while after < len(lines) and not lines[after].strip():
            after += 1
        if after < len(lines) and _is_row(lines[after]):
            last = after
    if last < len(lines) and _is_row(lines[last]):
        while last + 1 < len(lines) and _is_row(lines[last + 1]):
            last += 1
        b = max(b, base + starts[last] + len(lines[last].rstrip("\n")))
    return a, b


def _lead_only(lines: Sequence[str]) -> bool:
    """Headings and one caption line: a table's lead, not content of its own."""
    text = [x for x in lines if x.strip()]
    return all(x.lstrip().startswith("#") for x in text[:-1])


def _is_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def _is_caption(line: str) -> bool:
    text = line.strip()
    return bool(text) and len(text) <= 200 and not _is_row(text)


def _grow(hits: Sequence[int], sizes: Sequence[int], best: int, left: int) -> Span:
    """The run of sentences ``[lo, hi]`` from ``best`` outwards, the neighbour sharing
    more terms first (the following one on a tie), while their sizes sum to ``left``."""
    lo = hi = best
    used = sizes[best]
    while True:
        before = hits[lo - 1] if lo > 0 else -1
        after = hits[hi + 1] if hi + 1 < len(hits) else -1
        nxt = hi + 1 if after >= before else lo - 1
        if max(before, after) < 0 or used + sizes[nxt] > left:
            return lo, hi
        used += sizes[nxt]
        lo, hi = min(lo, nxt), max(hi, nxt)


_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)", re.M)


def _open_fence(text: str) -> bool:
    """``text`` opens a fenced code block it does not close (or closes one it did not
    open): cut there, the rest of a context would read as code."""
    return len(_FENCE.findall(text)) % 2 == 1


_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE_END = re.compile(r"(?P<stop>(?<=[.!?])\s+)|\n\s*")
# A line that is a block of its own (or ends one): blank, a heading, a table row, a quote,
# a list item, a fence or indented code. A line break beside one ends a sentence.
_BLOCK_LINE = re.compile(r"\s*$|\s*(?:#|\||>|[-*+\u2022]\s|\d{1,3}[.)]\s|```|~~~)|    |\t")
SOFT_WRAP = True  # a line break inside a paragraph of prose is a space (``sentences``)


def sentences(text: str) -> list[Span]:
    """The sentences (or lines) of ``text`` as ranges, whitespace between them left out.
    A line break ends a sentence unless it wraps a paragraph of prose (``_wrapped``)."""
    out: list[Span] = []
    start = 0
    fences = [m.start() for m in _FENCE.finditer(text)] if SOFT_WRAP else []
    for m in _SENTENCE_END.finditer(text):
        soft = SOFT_WRAP and m.group("stop") is None and _wrapped(text, m.start())
        if soft and bisect_right(fences, m.start()) % 2 == 0:  # code keeps its lines
            continue
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


def _wrapped(text: str, at: int) -> bool:
    """The line break at ``at`` wraps prose: neither its line nor the next is a block
    of its own. Books and RFCs wrap their paragraphs at ~70 characters; each line taken
    for a sentence made ``Packer.trim``'s padding two lines instead of two sentences."""
    before = text[text.rfind("\n", 0, at) + 1 : at]
    end = text.find("\n", at + 1)
    after = text[at + 1 : end if end >= 0 else len(text)]
    block = _BLOCK_LINE.match(before) or _BLOCK_LINE.match(after)
    return not block and not before.rstrip().endswith("|")


def sentence_hits(
    sec: StoredChunk, a: int, b: int, terms: frozenset[str]
) -> tuple[list[Span], list[int]]:
    """The sentences of ``[a, b)`` as document ranges, and how many of ``terms`` each
    shares."""
    cuts = [(a + s, a + e) for s, e in sentences(sec.span(a, b))]
    return cuts, [len(terms.intersection(words(sec.span(*c)))) for c in cuts]


def best_sentence(hits: Sequence[int]) -> int:
    """The sentence sharing most of the question's terms, the first of equals: where
    ``window`` grows a piece from, and what ``least`` says the smallest piece is."""
    return max(range(len(hits)), key=lambda i: (hits[i], -i))


def subtract(span: Span, taken: Sequence[Span]) -> list[Span]:
    pieces = [span]
    for a, b in taken:
        nxt: list[Span] = []
        for s, e in pieces:
            if b <= s or a >= e:
                nxt.append((s, e))
                continue
            if s < a:
                nxt.append((s, a))
            if b < e:
                nxt.append((b, e))
        pieces = nxt
    return [(s, e) for s, e in pieces if e > s]
