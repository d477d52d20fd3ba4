"""Text lines with their layout (position, size, weight) and how they join into paragraphs.

pypdf reports every run of text it appends to a page's output through ``visitor_text``,
with the text matrices and the font. ``LineCollector`` rebuilds the page's lines from
those runs (their concatenation is exactly ``extract_text()``), so one pass gives the
text and the evidence for paragraphs and font-size headings.
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Any, NamedTuple

LIGATURES = str.maketrans(
    {
        "ﬀ": "ff",
        "ﬁ": "fi",
        "ﬂ": "fl",
        "ﬃ": "ffi",
        "ﬄ": "ffl",
        "ﬅ": "ft",
        "ﬆ": "st",
        "\u00a0": " ",
        "\u2002": " ",
        "\u2003": " ",
        "\u2009": " ",
        "\u200b": "",
        "\ufeff": "",
    }
)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
# LIGATURES, then what _CONTROL matches deleted, in one pass (no ligature yields one)
_LIGATURES_NO_CONTROL = {
    **LIGATURES,
    **dict.fromkeys([*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F]),
}
# any character the table above maps: most lines hold none, and a search for one costs a
# tenth of the translate (a dictionary look-up per character)
_TRANSLATED = re.compile(
    "[" + "".join(re.escape(chr(k)) for k in sorted(_LIGATURES_NO_CONTROL)) + "]"
)
_SPACES = re.compile(r"[ \t]+")
_BOLD_NAME = re.compile(
    r"bold|black|heavy|semibold|demi|[-,]b$|[-,]bd|cmbx|cmssbx|sfbx|lmroman\d*-bold|bx\d"
    r"|lin(?:libertine|biolinum)[ot]?b",  # Linux Libertine/Biolinum: "LinBiolinumOB"
    re.I,
)
_MONO_NAME = re.compile(r"mono|courier|typewriter|cmtt|sftt|consol|inconsolata|menlo|\btt\d", re.I)
_BULLET = re.compile(r"^(?:[•◦▪▫‣∙●○■□–—*-]\s|\(?\d{1,2}[.)]\s|\(?[a-z][.)]\s|\([ivx]+\)\s)")
_SENTENCE_END = re.compile(r"[.!?:;…\"”’)\]]$")
_SENTENCE_END_CHARS = frozenset('.!?:;…"”’)]')  # the class of _SENTENCE_END
_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")


class Line(NamedTuple):
    """One line of a page as laid out: baseline ``y`` grows upwards (PDF space)."""

    text: str
    x: float
    y: float
    size: float
    bold: bool
    mono: bool
    # (x, text) of each horizontally separate run of the line, when it has two or more:
    # the evidence for table columns
    cells: tuple[tuple[float, str], ...] = ()


@dataclass(frozen=True, slots=True)
class PageFailure:
    """A page that could not be read, and why: the file's other pages are kept."""

    reason: str

    @classmethod
    def of(cls, exc: Exception) -> PageFailure:
        return cls(f"{type(exc).__name__}: {exc}")


PageLines = list[Line] | PageFailure  # one page as read: its lines, or why it failed


_GLYPH_DIGITS = {
    name: str(i)
    for i, name in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    )
}
_GLYPH_NAME = re.compile(
    r"/(zero|one|two|three|four|five|six|seven|eight|nine)(?:\.(?:prop|oldstyle|osf|lf|tf|taboldstyle|tosf|sups|inferior|superior))+"
)


def _glyph_digit(m: re.Match[str]) -> str:
    return _GLYPH_DIGITS[m.group(1)]


def clean_text(text: str) -> str:
    """Ligatures unfolded, odd spaces and control characters dropped, runs of spaces folded."""
    if "/" in text:
        text = _GLYPH_NAME.sub(_glyph_digit, text)
    if _TRANSLATED.search(text) is not None:
        text = text.translate(_LIGATURES_NO_CONTROL)
    if "  " in text or "\t" in text:  # else the fold leaves it as it is
        text = _SPACES.sub(" ", text)
    return text.strip()


def _font_flags(font: Any, cache: dict[int, tuple[bool, bool]]) -> tuple[bool, bool]:
    if font is None:
        return False, False
    key = id(font)
    hit = cache.get(key)
    if hit is not None:
        return hit
    name = ""
    weight = 0.0
    try:
        name = str(font.get("/BaseFont", "") or "")
        desc = font.get("/FontDescriptor")
        if desc is None and "/DescendantFonts" in font:
            desc = font["/DescendantFonts"][0].get_object().get("/FontDescriptor")
        if desc is not None:
            desc = desc.get_object()
            weight = float(desc.get("/FontWeight", 0) or 0)
            if not name:
                name = str(desc.get("/FontName", "") or "")
    except Exception:  # damaged font dictionaries: no evidence, not an error
        pass
    flags = (
        weight >= 600 or _BOLD_NAME.search(name) is not None,
        _MONO_NAME.search(name) is not None,
    )
    cache[key] = flags
    return flags


class LineCollector:
    """A ``visitor_text`` callback that groups pypdf's text runs into lines."""

    __slots__ = (
        "_bold",
        "_chars",
        "_fonts",
        "_mono",
        "_parts",
        "_pos",
        "_segs",
        "_sizes",
        "lines",
    )

    def __init__(self) -> None:
        self.lines: list[Line] = []
        self._fonts: dict[int, tuple[bool, bool]] = {}
        self._reset()

    def _reset(self) -> None:
        self._parts: list[str] = []
        self._pos: tuple[float, float] | None = None
        self._sizes: Counter[float] = Counter()
        self._chars = 0
        self._bold = 0
        self._mono = 0
        self._segs: list[tuple[float, float, str]] = []  # x, estimated end x, text

    def __call__(self, text: str, cm: Any, tm: Any, font: Any, size: Any) -> None:
        if not text:
            return
        pieces = text.split("\n")
        last = len(pieces) - 1
        for k, piece in enumerate(pieces):
            if piece:
                n = len(piece.strip())
                if n:
                    try:
                        _a, _b, c, d, e, f = (float(v) for v in tm[:6])
                        ca, cb, cc, cd, ce, cf = (float(v) for v in cm[:6])
                        scale = ((c * ca + d * cc) ** 2 + (c * cb + d * cd) ** 2) ** 0.5
                        eff = abs(float(size)) * scale
                        x = e * ca + f * cc + ce
                        if self._pos is None:
                            self._pos = (x, e * cb + f * cd + cf)
                        self._segment(x, eff, piece)
                    except (TypeError, ValueError):
                        eff = 0.0
                    bold, mono = _font_flags(font, self._fonts)
                    self._sizes[round(eff, 1)] += n
                    self._chars += n
                    self._bold += n if bold else 0
                    self._mono += n if mono else 0
                self._parts.append(piece)
            if k < last:
                self._end_line()

    def _segment(self, x: float, size: float, piece: str) -> None:
        """Start a new cell when the run begins well right of where the last one ended."""
        width = len(piece) * size * 0.55
        segs = self._segs
        if segs:
            x0, end, prev = segs[-1]
            if x <= end + max(size * 1.5, 4.0) and x >= x0 - 1.0:
                segs[-1] = (x0, max(end, x + width), prev + piece)
                return
        segs.append((x, x + width, piece))

    def _end_line(self) -> None:
        text = clean_text("".join(self._parts))
        cells: tuple[tuple[float, str], ...] = ()
        if len(self._segs) >= 2:
            cells = tuple((round(x, 1), t) for x, _end, raw in self._segs if (t := clean_text(raw)))
            if len(cells) < 2:
                cells = ()
        if text:
            x, y = self._pos or (0.0, 0.0)
            size = self._sizes.most_common(1)[0][0] if self._sizes else 0.0
            chars = max(self._chars, 1)
            self.lines.append(
                Line(
                    text,
                    round(x, 1),
                    round(y, 1),
                    size,
                    self._bold / chars >= 0.8,
                    self._mono / chars >= 0.8,
                    cells,
                )
            )
        self._reset()

    def finish(self) -> list[Line]:
        self._end_line()
        return self.lines


# --- paragraphs -------------------------------------------------------------------------


_COUNT = itemgetter(1)


class PageStats(NamedTuple):
    left: float
    gap: float
    typical_len: int


def page_stats(lines: Sequence[Line]) -> PageStats:
    if not lines:
        return PageStats(0.0, 12.0, 60)
    xs: dict[int, int] = {}
    for ln in lines:
        if len(ln.text) > 20:
            x = round(ln.x)
            xs[x] = xs.get(x, 0) + 1
    # the first x of the most lines, as ``Counter.most_common(1)`` picks it
    left = float(max(xs.items(), key=_COUNT)[0]) if xs else min(ln.x for ln in lines)
    # ``1.0 if s < 1.0 else s`` is ``max(s, 1.0)``, NaN kept, without the call
    gaps = [
        gap
        for a, b in itertools.pairwise(lines)
        if 0 < (gap := a.y - b.y) < 3 * (1.0 if a.size < 1.0 else a.size)
        and abs(a.size - b.size) < 0.5
    ]
    gap = statistics.median(gaps) if gaps else max(lines[0].size, 1.0) * 1.2
    lens = sorted(len(ln.text) for ln in lines)
    typical = lens[int(len(lens) * 0.8)] if len(lens) >= 3 else 60
    return PageStats(left, gap, max(typical, 20))


def ends_sentence(text: str) -> bool:
    """What ``_SENTENCE_END.search(text)`` finds, from the last character (``$`` matches
    before a final line break too): the search tried the pattern at every position."""
    last = text[-1:]
    if last == "\n":
        last = text[-2:-1]
    return last in _SENTENCE_END_CHARS


def continues(prev: Line, cur: Line, stats: PageStats, *, same_page: bool = True) -> bool:
    """Whether ``cur`` continues the paragraph that ``prev`` ends."""
    if prev.mono or cur.mono:
        return prev.mono and cur.mono and (not same_page or 0 < prev.y - cur.y < stats.gap * 2.2)
    ends = ends_sentence(prev.text)
    hyphen = prev.text.endswith(("-", "\u00ad")) and not prev.text.endswith("--")
    lower_start = cur.text[:1].islower()
    if _BULLET.match(cur.text):
        return False
    if not same_page:
        return (hyphen or not ends) and (lower_start or hyphen)
    most = cur.size if cur.size > prev.size else prev.size  # max(prev.size, cur.size, 1.0)
    if abs(prev.size - cur.size) > 0.12 * (1.0 if most < 1.0 else most):
        return False
    dy = prev.y - cur.y
    size = 1.0 if cur.size < 1.0 else cur.size  # max(cur.size, 1.0)
    if dy < -1.0 or dy > stats.gap * 1.45 + 0.5:
        # a new column or a float between two lines: go on only mid-sentence
        return (not ends or hyphen) and (lower_start or hyphen)
    indent = cur.x - stats.left
    if 0.6 * size < indent < 4.5 * size and prev.x - stats.left < 0.6 * size and ends:
        return False
    return not (ends and len(prev.text) < 0.65 * stats.typical_len)


# the _WORD matches with a hyphen; tried only where no letter comes before (a match never
# starts after a letter, where one starting there would have begun before it): without the
# look-behind each letter of a word without a hyphen was tried, and backtracked (half the
# time of ``Vocabulary``'s start on the bench PDFs)
_COMPOUND = re.compile(r"(?<![^\W\d_])[^\W\d_]+(?:-[^\W\d_]+)+")


class Vocabulary:
    """The words of a document, lower case, for dehyphenation: ``join_lines`` asks whether
    a hyphenated compound occurs (its tokens that hold a hyphen: found up front, in the
    lines that hold one) and, only for a compound that does, whether the word joined
    occurs (``has_word``: looked for in the text case-folded, then among the words of the
    lines whose folding holds it)."""

    __slots__ = ("_folded", "_lines", "compounds")

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = list(lines)
        hyphened = "\n".join([ln for ln in self._lines if "-" in ln])
        self.compounds = {w.casefold() for w in set(_COMPOUND.findall(hyphened))}
        self._folded: str | None = None

    def has_word(self, word: str) -> bool:
        """Whether ``word`` is a word of the text case-folded (``word in
        vocabulary(lines)``). Case folding maps each character on its own, so a word's
        folding is part of its line's: only the lines whose folding holds ``word`` are
        tokenized (all the words of a book took a tenth of a second, for a few questions)."""
        lines = self._lines
        if self._folded is None:
            self._folded = "\n".join(lines).casefold()
        folded = self._folded
        at = folded.find(word)
        if at < 0:
            return False
        if "\n" in word:  # no word spans two lines
            return False
        if not word or folded.count("\n") != len(lines) - 1:  # a line holds a line break
            return word in vocabulary(lines)
        i = last = 0  # the line of position ``last`` of the folded text
        while at >= 0:
            i += folded.count("\n", last, at)
            if any(w.casefold() == word for w in _WORD.findall(lines[i])):
                return True
            last = folded.find("\n", at)  # on from the next line
            if last < 0:
                return False
            at = folded.find(word, last)
        return False


def vocabulary(lines: Iterable[str]) -> set[str]:
    """Lower-cased words and hyphenated compounds seen anywhere (for dehyphenation): the
    distinct words of all lines found in one pass (a line break is no word character, so
    no word spans two lines), each case-folded once."""
    return {w.casefold() for w in set(_WORD.findall("\n".join(lines)))}


def _last_word(text: str) -> str | None:
    """The last ``_WORD`` match of ``text``: found in its last blank-free stretch (no
    match spans a blank, so the matches there are the whole text's), else in all of it.
    ``_join_how`` asks when the stretch ends in a letter, which is a match: the rest of the
    text is then never read."""
    words = _WORD.findall(text[text.rfind(" ") + 1 :]) or _WORD.findall(text)
    return words[-1] if words else None


# how two lines join
_KEEP, _DROP, _GLUE, _SPACE = 0, 1, 2, 3  # prev; prev[:-1] + nxt; prev + nxt; prev + " " + nxt


def hyphen_between_letters(prev: str, nxt: str) -> bool:
    """``prev`` ends in a hyphen after a letter and ``nxt`` opens with a lower-case
    letter: a word broken at a line's end, or a compound."""
    return (
        prev.endswith("-")
        and len(prev) > 1
        and prev[-2].isalpha()
        and nxt[:1].isalpha()
        and nxt[:1].islower()
    )


def _join_how(prev: str, nxt: str, vocab: Vocabulary | None) -> int:
    """How ``nxt`` joins ``prev``: nothing to join; a soft hyphen or a hyphen between
    letters dropped, unless the vocabulary holds the hyphenated compound and not the word
    joined (the hyphen kept, glued); else a space. It reads ``prev`` from its end only: its
    last two characters and the last word before its last one, asked for only when the
    character before the last is a letter (``_last_word``: found after the last blank), so
    ``prev`` may be the end of a longer text from a blank on."""
    if not nxt:
        return _KEEP
    if prev.endswith("\u00ad"):
        return _DROP
    if hyphen_between_letters(prev, nxt):
        if vocab:
            head = _last_word(prev[:-1])
            tail = _WORD.match(nxt)  # nxt opens with a letter: its first word starts there
            if head is not None and tail is not None:
                joined = (head + tail.group()).casefold()
                hyphened = f"{head}-{tail.group()}".casefold()
                if hyphened in vocab.compounds and not vocab.has_word(joined):
                    return _GLUE
        return _DROP
    return _SPACE


def join_lines(texts: Sequence[str], vocab: Vocabulary | None) -> tuple[str, list[int]]:
    """``texts`` joined one after the other as ``_join_how`` says, and the offset in the
    result at which each text's place begins (after the last text joined, for a text left
    out), in time linear in the length: the text joined so far is kept in parts and read
    from its last blank on (all that ``_join_how`` looks at)."""
    parts: list[str] = []
    starts: list[int] = []
    length = 0
    view = ""  # the joined text from its last blank separator on (all of it before one)
    for text in texts:
        if length == 0:  # nothing joined yet: the text is the start
            starts.append(0)
            parts, view, length = [text], text, len(text)
            continue
        how = _join_how(view, text, vocab)
        if how == _KEEP:
            starts.append(length)
            continue
        if how == _DROP:
            parts[-1] = parts[-1][:-1]
            view = view[:-1] + text
            length -= 1
            parts.append(text)
        elif how == _GLUE:
            view += text
            parts.append(text)
        else:
            view = " " + text
            parts.append(view)
            length += 1
        length += len(text)
        starts.append(length - len(text))
    return "".join(parts), starts


__all__ = [
    "Line",
    "LineCollector",
    "PageStats",
    "Vocabulary",
    "clean_text",
    "continues",
    "join_lines",
    "page_stats",
    "vocabulary",
]
