"""Layout lines of PDF pages from PDFium's text layer (pypdfium2).

The same ``Line`` records as ``layout.LineCollector`` builds from pypdf's runs, about
seven times faster on the corpus PDFs (pypdf parses every content stream in Python) and
with better word spacing: pypdf glues the words of tightly justified lines together
("theauthor"), PDFium places the spaces from glyph positions.

How a page is read: the page text in one call, split at PDFium's line breaks; a run is
a stretch of one text object, found by asking for the text object of words' first
characters (of characters once the document has shown a TeX math-symbol font, whose glyphs
are then remapped), jumping over positions while the object stays rather than asking at
every one (``_object_starts``: 0.85 M of 3.05 M positions read on the corpus PDFs); per run
the origin of its first glyph, its font size scaled by the character's matrix, its font's
bold/mono flags and, where another run is compared with it, the right edge of its last
glyph.

PDFium is not thread-safe: call this from one thread per process (Folio's pools are
processes). The functions are bound with ``void*`` handles so that handles are plain
ints (cheap to compare); they come from the library pypdfium2 loads.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise
from operator import add, attrgetter, itemgetter
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from .layout import (
    _BOLD_NAME,
    _LIGATURES_NO_CONTROL,
    _MONO_NAME,
    _SPACES,
    Line,
    PageFailure,
    PageLines,
    clean_text,
)

_VP, _INT, _DBL = ctypes.c_void_p, ctypes.c_int, ctypes.c_double
_T = TypeVar("_T")
_Tp = ctypes.c_void_p  # a text page handle as the calls bound without argtypes take it
# a line break ("\n", after a "\r" or not) or one of PDFium's hyphen markers: one character
# class, which the pattern engine scans for quickly (a third of the time of "\r?\n|[...]")
_BREAK = re.compile("[\n\ufffe\x02]")
_WORD = re.compile(r"\S+")
# a blank other than a space or a line break, or a carriage return not ending a line: a
# page without one has words one space apart within a line where no two spaces meet
_ODD_SPACE = re.compile(r"[^\S \n\r]|\r(?!\n)")
# characters of right-to-left scripts (every code point of bidirectional class R, AL or AN,
# and the right-to-left marks): PDFium reorders the characters of a line holding one, so a
# text object's characters may then lie apart (``_object_starts`` reads every position)
_RTL = re.compile(
    "[\u0590-\u08ff\u200f\u202b\u202e\u2067\ufb1d-\ufdff\ufe70-\ufefe"
    "\U00010800-\U00010fff\U0001e800-\U0001efff]"
)
# a character from U+0590 on (where right-to-left scripts begin): most pages hold none
# past their quotes and ligatures, and this finds one ~50 times faster than ``max(text)``
_HIGH = re.compile("[^\x00-\u058f]")
_HYPHEN = str.maketrans({"\ufffe": "-", "\x02": "-"})
# what ``clean_text`` looks for besides runs of spaces (a glyph name's "/", ligatures, odd
# spaces, controls, tabs), but "\r" and "\x02", which ``_clean`` drops or makes a hyphen
# first: the lines of a page that holds none are cleaned by ``_clean_plain``
_UNCLEAN = re.compile(
    "[/\t"
    + "".join(re.escape(chr(k)) for k in sorted(_LIGATURES_NO_CONTROL) if chr(k) not in "\r\x02")
    + "]"
)
# TeX math-symbol fonts (OMS encoding) embedded without a usable ToUnicode map: PDFium
# passes the character codes through (⟨key⟩ comes out as "hkeyi", ≠ as "6="). Only
# digits and lower-case letters are remapped; other ASCII may be a right mapping.
_SYMBOL_NAME = re.compile(r"cmsy|lmmathsymbols|cmbsy", re.I)
_OMS = str.maketrans(
    {
        "0": "′", "1": "∞", "2": "∈", "3": "∋", "4": "△", "5": "▽", "6": "⁄", "7": "↦",
        "8": "∀", "9": "∃", "a": "⊣", "b": "⌊", "c": "⌋", "d": "⌈", "e": "⌉", "f": "{",
        "g": "}", "h": "⟨", "i": "⟩", "j": "|", "k": "‖", "l": "↕", "m": "⇕", "n": "\\",
        "o": "≀", "p": "√", "q": "⨿", "r": "∇", "s": "∫", "t": "⊔", "u": "⊓", "v": "⊑",
        "w": "⊒", "x": "§", "y": "†", "z": "‡",
    }
)  # fmt: skip


class _Run(NamedTuple):
    text: str
    chars: int  # non-blank characters
    x: float
    y: float
    size: float
    last: int  # the position of its last glyph, whose right edge is read only where used
    bold: bool
    mono: bool


class _Api:
    """The PDFium calls used here, bound once per process."""

    def __init__(self) -> None:
        import pypdfium2_raw.bindings as bindings  # ships with pypdfium2

        lib = bindings._libs["pdfium"]
        # the same library as a ``PyDLL``: its calls keep the GIL rather than release and
        # take it back around each one (~35 ns of a ~260 ns call). For the short calls
        # made per character or run only (2 M on the bench PDFs); a page's load and text
        # page, milliseconds, let other threads run
        held = ctypes.PyDLL(lib._name, handle=lib._handle)

        def bind(name: str, args: list[Any] | None, res: Any, dll: Any = lib) -> Callable[..., Any]:
            fn = dll[name]  # a fresh function object: pypdfium2's own typing stays intact
            fn.argtypes, fn.restype = args, res
            return fn  # type: ignore[no-any-return]

        self.load_pdf_page = bind("FPDF_LoadPage", [_VP, _INT], _VP)
        self.close_pdf_page = bind("FPDF_ClosePage", [_VP], None)
        self.load_page = bind("FPDFText_LoadPage", [_VP], _VP)
        self.close_page = bind("FPDFText_ClosePage", [_VP], None)
        self.count_chars = bind("FPDFText_CountChars", [_VP], _INT)
        self.get_text = bind("FPDFText_GetText", [_VP, _INT, _INT, _VP], _INT)
        # per character on a page whose text comes back with another length: bound
        # without ``argtypes`` like the calls below (23 pages of the bench PDFs, 36 k calls)
        self.get_unicode = bind("FPDFText_GetUnicode", None, ctypes.c_uint, held)
        # called per character or per run, so without ``argtypes`` (half the cost of a
        # call): they take the text page as a ``c_void_p`` (``_Api.handle``), an index
        # (a Python int is passed as a C int) and the out-parameters below as ``c_void_p``
        self.text_object = bind("FPDFText_GetTextObject", None, _VP, held)
        self.origin = bind("FPDFText_GetCharOrigin", None, _INT, held)
        self.char_box = bind("FPDFText_GetCharBox", None, _INT, held)
        self.font_size = bind("FPDFText_GetFontSize", None, _DBL, held)
        self.matrix = bind("FPDFText_GetMatrix", None, _INT, held)
        self.font = bind("FPDFTextObj_GetFont", [_VP], _VP, held)
        size_t = ctypes.c_size_t
        self.font_name = bind("FPDFFont_GetBaseFontName", [_VP, _VP, size_t], size_t)
        # out-parameters, reused (one thread per process)
        self.x, self.y = _DBL(), _DBL()
        self.left, self.right, self.bottom, self.top = _DBL(), _DBL(), _DBL(), _DBL()
        self.px, self.py = _VP(ctypes.addressof(self.x)), _VP(ctypes.addressof(self.y))
        self.box = tuple(
            _VP(ctypes.addressof(v)) for v in (self.left, self.right, self.bottom, self.top)
        )
        self.name = ctypes.create_string_buffer(256)
        self.text = ctypes.create_string_buffer(1 << 16)  # a page's text (UTF-16), grown
        self.m = (ctypes.c_float * 6)()
        self.pm = _VP(ctypes.addressof(self.m))
        self.run = self._run_reader()
        self.right_edge = self._right_reader()

    def _run_reader(self) -> Callable[[_Tp, str, int, int, bool, bool], _Run]:
        """``run(tp, piece, first, last, bold, mono)``: a run read from its first character:
        the origin of its glyph, its font size scaled by its matrix. The calls and
        out-parameters are held in the closure (247 k runs on the corpus PDFs: no attribute
        look-ups, no ``__new__`` frame)."""
        origin, font_size, matrix = self.origin, self.font_size, self.matrix
        px, py, pm, m = self.px, self.py, self.pm, self.m
        x, y = self.x, self.y
        new = tuple.__new__

        def run(tp: _Tp, piece: str, first: int, last: int, bold: bool, mono: bool) -> _Run:
            origin(tp, first, px, py)
            size = font_size(tp, first)  # the Tf operand: scale by text matrix x CTM
            if matrix(tp, first, pm):
                c, d = m[2], m[3]  # each read of the array makes a float: once each
                scale = (c * c + d * d) ** 0.5
                if scale > 0:
                    size *= scale
            chars = len(piece) - piece.count(" ")
            return new(_Run, (piece, chars, x.value, y.value, size, last, bold, mono))

        return run

    def _right_reader(self) -> Callable[[_Tp, int], float]:
        """``right_edge(tp, i)``: the right edge of glyph ``i``'s box. Read for a run
        followed by another on its line (a cell boundary) and for the last run of a line
        that a sub- or superscript rejoins: not for the last run of every line (90 k
        fewer calls on the corpus PDFs)."""
        char_box, right = self.char_box, self.right
        left_p, right_p, bottom_p, top_p = self.box

        def right_edge(tp: _Tp, i: int) -> float:
            char_box(tp, i, left_p, right_p, bottom_p, top_p)
            return right.value

        return right_edge


_API: _Api | None = None


def _api() -> _Api:
    global _API
    if _API is None:
        _API = _Api()
    return _API


class Fonts:
    """Per-document cache of font flags (font handles live as long as their document)."""

    __slots__ = ("flags", "symbols")

    def __init__(self, symbols: bool = False) -> None:
        self.flags: dict[int, tuple[bool, bool, bool]] = {}  # handle -> bold, mono, symbol
        self.symbols = symbols  # a math-symbol font has been seen: read runs per character


@dataclass(frozen=True, slots=True)
class RangeRead:
    """Pages read in order by one process: their lines (or why a page could not be read)
    and the first page from which runs were read per character (a
    math-symbol font seen on it or before it), ``None`` when none was."""

    pages: list[PageLines]
    symbols_from: int | None


def _font_flags(api: _Api, obj: int, fonts: Fonts) -> tuple[bool, bool, bool]:
    font = api.font(obj) or 0
    hit = fonts.flags.get(font)
    if hit is not None:
        return hit
    name = ""
    if font and api.font_name(font, api.name, 256):
        name = api.name.value.decode("latin-1", "replace")
    flags = (
        _BOLD_NAME.search(name) is not None,
        _MONO_NAME.search(name) is not None,
        _SYMBOL_NAME.search(name) is not None,
    )
    fonts.flags[font] = flags
    fonts.symbols = fonts.symbols or flags[2]
    return flags


def page_lines(page: int, fonts: Fonts) -> list[Line]:
    """Lines of a page (PDFium's ``FPDF_PAGE`` handle)."""
    api = _api()
    handle = api.load_page(page)
    if not handle:
        return []
    tp = _VP(handle)  # as the calls bound without ``argtypes`` take it
    try:
        had_symbols = fonts.symbols
        lines = _lines(api, tp, fonts, per_char=had_symbols)
        if fonts.symbols and not had_symbols:  # first seen on this page: read it again
            lines = _lines(api, tp, fonts, per_char=True)
        return lines
    finally:
        api.close_page(handle)


def _page_text(api: _Api, tp: _Tp) -> str:
    n = api.count_chars(tp)
    if n <= 0:
        return ""
    buf = api.text
    if len(buf) < (n + 1) * 4:  # one buffer per process, grown to the longest page
        buf = api.text = ctypes.create_string_buffer((n + 1) * 4)
    got = api.get_text(tp, 0, n, buf)
    text = ctypes.string_at(buf, max(got - 1, 0) * 2).decode("utf-16-le", "replace")
    if len(text) == n:
        return text
    return join_units([api.get_unicode(tp, i) for i in range(n)])


def join_units(units: list[int]) -> str:
    """PDFium's characters as text with one character per position: a character outside
    the BMP takes two positions (a surrogate pair), so it goes at the first and a NUL
    (dropped by ``clean_text``) at the second; a lone surrogate becomes U+FFFD."""
    out: list[str] = []
    i, n = 0, len(units)
    while i < n:
        u = units[i]
        if 0xD800 <= u < 0xDC00 and i + 1 < n and 0xDC00 <= units[i + 1] < 0xE000:
            out.append(chr(0x10000 + ((u - 0xD800) << 10) + (units[i + 1] - 0xDC00)) + "\0")
            i += 2
            continue
        out.append("\ufffd" if 0xD800 <= u < 0xE000 else chr(u))
        i += 1
    return "".join(out)


def _lines(api: _Api, tp: _Tp, fonts: Fonts, *, per_char: bool) -> list[Line]:
    text = _page_text(api, tp)
    if not text:
        return []
    # 1. PDFium's lines, as runs
    found: list[list[_Run]] = []
    # no right-to-left character below U+0590: most pages hold none from there on
    # (looked for from the first character from there on: none before it is one)
    high = None if text.isascii() else _HIGH.search(text)
    jump = high is None or _RTL.search(text, high.start()) is None
    read = _runs_per_char if per_char else _runs_per_word
    for runs in read(api, tp, text, _spans(text), fonts, jump):
        if len(runs) == 1:  # what _visual_lines makes of it
            found.append(runs)
        else:
            found.extend(_visual_lines(runs))
    # 2. sub/superscripts and fraction parts that PDFium puts on lines of their own go
    #    back on their line (pypdf breaks a line when the baseline moves > 0.8 x size)
    merged: list[list[_Run]] = []
    for runs in found:
        if merged:
            prev = merged[-1]
            r0, first, last = runs[0], prev[0], prev[-1]
            if r0.x > first.x + 1.0 and _near(r0, last, prev):
                end = api.right_edge(tp, last.last)
                if r0.x > end + 0.15 * r0.size and not last.text.endswith(" "):
                    runs[0] = r0._replace(text=" " + r0.text)
                prev.extend(runs)
                continue
        merged.append(runs)
    out: list[Line] = []
    right_edge = api.right_edge
    clean = _clean_plain if _UNCLEAN.search(text) is None else _clean
    for runs in merged:
        if len(runs) == 1:
            line = _one_run_line(runs[0], clean)
        else:
            line = _line(runs, tp, right_edge, clean)
        if line is not None:
            out.append(line)
    return out


def _spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each non-empty line of a page's text: lines end at a line break
    ("\r\n" or "\n", left out) and after a hyphen marker (kept: PDFium joined a
    hyphenated line there)."""
    if "\ufffe" in text or "\x02" in text:
        return _spans_marked(text)
    # no hyphen marker (most pages): the lines between line breaks, a 3rd of the time
    out: list[tuple[int, int]] = []
    a = 0
    for line in text.split("\n"):
        b = a + len(line)
        end = b - 1 if line[-1:] == "\r" else b
        if end > a:
            out.append((a, end))
        a = b + 1
    return out


def _spans_marked(text: str) -> list[tuple[int, int]]:
    """``_spans`` of a page's text that holds a hyphen marker."""
    out: list[tuple[int, int]] = []
    a = 0
    text += "\n"
    for m in _BREAK.finditer(text):
        nxt = m.end()
        if text[nxt - 1] == "\n":
            b = nxt - 1
            if b > 0 and text[b - 1] == "\r":
                b -= 1
        else:
            b = nxt
        if b > a:
            out.append((a, b))
        a = nxt
    return out


def _near(r0: _Run, last: _Run, prev: list[_Run]) -> bool:
    """Whether ``r0`` lies within 0.8 x size of the baseline of ``last`` or of the run of
    most characters in ``prev`` (the line's own baseline); that run is found only when
    needed (a NaN distance to ``last`` decides, as it does in ``min``)."""
    near = 0.8 * max(r0.size, last.size, 1.0)
    d = abs(r0.y - last.y)
    if d <= near:
        return True
    if d != d:
        return False
    main = max(prev, key=_CHARS)
    return abs(r0.y - main.y) <= near


def _visual_lines(runs: list[_Run]) -> list[list[_Run]]:
    """PDFium's line split where it joined lines set very close together (a 4.5 pt
    statement): a run that starts well left of the one before it on another baseline
    begins a new line."""
    out: list[list[_Run]] = []
    cur: list[_Run] = []
    last: _Run | None = None
    for r in runs:
        if last is not None:
            size = last.size if last.size > r.size else r.size  # max(r.size, last.size)
            if not (r.x < last.x - size and abs(r.y - last.y) > 0.6 * size):
                cur.append(r)
                last = r
                continue
        cur = [r]
        out.append(cur)
        last = r
    return out


_STEP = 6  # positions jumped after a change of object ...
_MAX_STEP = 16  # ... doubled while the object stays, up to this (fewest reads on the corpus PDFs)


def _object_starts(
    probe: Callable[[_T, int], int | None], tp: _T, at: Sequence[int], *, jump: bool = True
) -> list[tuple[int, int]]:
    """``(k, object)`` for each of the positions ``at[k]`` where a new text object begins
    (its first position with an object; a position without one continues the object before),
    as reading every position in order finds them, each position read once at most
    (``probe(tp, at[k])``). With ``jump``, positions are skipped while the object stays (6,
    then twice as many after each read of the same object, up to 16): PDFium puts a text
    object's characters together (it reorders whole objects only), so two positions holding
    the same object have only that object or none between them. On a different object the
    positions jumped over are read from the last one back, as far as the object before
    (``_jumped_over``). On the corpus PDFs: 0.85 M reads for 3.05 M positions (1.21 M
    reading the jumped-over positions in order after a fixed jump of 6; a bisection read
    0.67 M at a higher cost in Python). ``jump=False`` reads every position: for
    right-to-left text, whose characters PDFium reorders within a line."""
    n = len(at)
    out: list[tuple[int, int]] = []
    if not jump:
        for k in range(n):
            obj = probe(tp, at[k])
            if obj is not None and (not out or out[-1][1] != obj):
                out.append((k, obj))
        return out
    cur: int | None = None  # the object of the last start found
    done, landed = -1, 0  # positions between the two were jumped over, not read
    step = _STEP
    k = 0
    while k < n:
        obj = probe(tp, at[k])
        if obj is None:  # read on one by one: (k, next object) is not jumped over
            k += 1
            continue
        if obj == cur:
            step = step * 2 if step < _MAX_STEP else _MAX_STEP
        else:
            hi = landed if landed < k else k
            if done + 1 < hi:
                cur = _jumped_over(probe, tp, at, done + 1, hi, k, obj, cur, out)
            if obj != cur:  # nothing jumped over (the first read), or no start found there
                out.append((k, obj))
                cur = obj
            step = _STEP
        done = k
        k = landed = k + step
    # after the last object read, the positions jumped over to the end: the last one first
    # (most lines end in the object read last, and nothing else is then read)
    hi = landed if landed < n else n
    if done + 1 < hi:
        last = probe(tp, at[hi - 1])
        if last is None:
            _jumped_over(probe, tp, at, done + 1, hi - 1, n, None, cur, out)
        elif last != cur:
            _jumped_over(probe, tp, at, done + 1, hi - 1, hi - 1, last, cur, out)
    return out


def _jumped_over(
    probe: Callable[[_T, int], int | None],
    tp: _T,
    at: Sequence[int],
    lo: int,
    hi: int,
    k: int,
    obj: int | None,
    cur: int | None,
    out: list[tuple[int, int]],
) -> int | None:
    """The starts among the unread positions ``lo..hi-1``, which lie between a read of
    ``cur`` (or the first position) and ``obj`` read at ``k`` (``None``: the end), appended
    to ``out``; the object of the last start. They are read from ``hi - 1`` back while they
    hold ``obj`` or none, up to one holding ``cur`` (all before it hold ``cur`` or none); a
    third object there is one read at the end of the positions before it: they are read
    back from it the same way."""
    first = k  # the first position known to hold ``obj``
    g = hi - 1
    while g >= lo:
        o = probe(tp, at[g])
        if o is None:
            pass
        elif obj is None and o != cur:  # the end: the last object read back
            obj, first = o, g
        elif o == obj:
            first = g
        elif o == cur:
            break
        else:  # a third object: the positions before it, read back from it the same way
            cur = _jumped_over(probe, tp, at, lo, g, g, o, cur, out)
            break
        g -= 1
    if obj is not None and obj != cur:
        out.append((first, obj))
        cur = obj
    return cur


def _word_starts(text: str, a: int, b: int, spaced: bool) -> list[int]:
    """Where the words (``_WORD``) of ``text[a:b]`` begin. ``spaced``: the text holds no
    blank but spaces and line breaks (``_ODD_SPACE``), so words one space apart, as most
    lines' are, are found from their lengths (two thirds of the pattern's time)."""
    parts = text[a:b].split(" ")
    if spaced and "" not in parts:
        return list(map(add, accumulate(map(len, parts), initial=a), range(len(parts))))
    return [m.start() for m in _WORD.finditer(text, a, b)]


def _runs_per_word(
    api: _Api, tp: _Tp, text: str, spans: list[tuple[int, int]], fonts: Fonts, jump: bool
) -> list[list[_Run]]:
    """Each line's runs (a line without a text object left out), from the text object of
    each word's first character (a font change inside a word is not seen; that is the
    price of reading words rather than characters). A page's lines in one call: what
    each line's reading needs is looked up once."""
    probe, run, font_of, flags_of = api.text_object, api.run, api.font, fonts.flags.get
    spaced = _ODD_SPACE.search(text) is None
    lines: list[list[_Run]] = []
    for a, b in spans:
        at = _word_starts(text, a, b, spaced)
        starts = _object_starts(probe, tp, at, jump=jump)
        if not starts:
            continue
        out = []
        n, s = len(at), a
        for j, (k, obj) in enumerate(starts):
            nxt = starts[j + 1][0] if j + 1 < len(starts) else n
            e = at[nxt] if nxt < n else b
            piece = text[s:e]  # its last non-blank ends the last word before ``e``
            flags = flags_of(font_of(obj) or 0) or _font_flags(api, obj, fonts)
            out.append(run(tp, piece, at[k], s + len(piece.rstrip()) - 1, flags[0], flags[1]))
            s = e
        lines.append(out)
    return lines


def _runs_per_char(
    api: _Api, tp: _Tp, text: str, spans: list[tuple[int, int]], fonts: Fonts, jump: bool
) -> list[list[_Run]]:
    """Each line's runs (a line without a text object left out), from the text object of
    every character; a page's lines in one call."""
    probe, run, font_of, flags_of = api.text_object, api.run, api.font, fonts.flags.get
    lines: list[list[_Run]] = []
    for a, b in spans:
        starts = _object_starts(probe, tp, range(a, b), jump=jump)
        if not starts:
            continue
        out: list[_Run] = []
        pending = ""  # a blank run joins the next one
        n = len(starts)
        s = a  # leading characters with no object: the first run's
        for j in range(n):
            e = a + starts[j + 1][0] if j + 1 < n else b
            raw = text[s:e]
            stripped = raw.strip()
            if not stripped:
                pending += raw
                s = e
                continue
            first = s + raw.find(stripped)  # its first non-blank: no earlier place holds it
            obj = starts[j][1]
            bold, mono, symbol = flags_of(font_of(obj) or 0) or _font_flags(api, obj, fonts)
            if symbol:
                raw = raw.translate(_OMS)
            if pending:
                raw = pending + raw
                pending = ""
            out.append(run(tp, raw, first, first + len(stripped) - 1, bold, mono))
            s = e
        if pending and out:
            out[-1] = out[-1]._replace(text=out[-1].text + pending)
        if out:
            lines.append(out)
    return lines


def _clean(raw: str) -> str:
    if "\ufffe" in raw or "\x02" in raw:
        raw = raw.translate(_HYPHEN)
    return clean_text(raw.replace("\r", ""))


DROP_CAP_RATIO = 1.8  # a drop cap is set at least this much larger than the text after it


def _join_drop_cap(runs: list[_Run]) -> list[_Run]:
    """A large initial letter opening a line belongs to the word after it ("T HERE" is
    "THERE"): PDFium puts a space in the gap the cap leaves."""
    if len(runs) < 2:
        return runs
    cap, rest = runs[0], runs[1]
    letter = cap.text.strip()
    after = rest.text.lstrip()
    if not (len(letter) == 1 and letter.isupper() and after[:1].isalpha()):
        return runs
    if cap.size < DROP_CAP_RATIO * rest.size:
        return runs
    word = rest._replace(text=letter + after, chars=rest.chars + 1, x=cap.x)
    return [word, *runs[2:]]


def _clean_plain(raw: str) -> str:
    """``_clean(raw)`` for the text of a page without a character of ``_UNCLEAN``: hyphen
    markers made hyphens, "\r" dropped, runs of spaces folded, the ends stripped."""
    if "\ufffe" in raw or "\x02" in raw:
        raw = raw.translate(_HYPHEN)
    raw = raw.replace("\r", "")
    if "  " in raw:
        raw = _SPACES.sub(" ", raw)
    return raw.strip()


def _one_run_line(r: _Run, clean: Callable[[str], str]) -> Line | None:
    """A line of one run (``_line`` for it: no cells, no right edge read)."""
    text = clean(r.text)
    if not text:
        return None
    many = max(r.chars, 1)
    rounded = _ROUNDED.get  # ``_round1`` where the value was rounded before (most)
    x, y, size = rounded(r.x), rounded(r.y), rounded(r.size)
    return _new(
        Line,
        (
            text,
            _round1(r.x) if x is None else x,
            _round1(r.y) if y is None else y,
            _round1(r.size) if size is None else size,
            (r.chars if r.bold else 0) / many >= 0.8,
            (r.chars if r.mono else 0) / many >= 0.8,
            (),
        ),
    )


def _line(
    runs: list[_Run],
    tp: _Tp,
    right_edge: Callable[[_Tp, int], float],
    clean: Callable[[str], str],
) -> Line | None:
    """One line of two runs or more as ``LineCollector`` makes it: most common size by
    characters, bold or mono when 80% of the characters are, cells where a run starts well
    right of the previous one's end (here the real glyph end, ``right_edge(tp,
    run.last)``, rather than an estimate)."""
    if not runs[0].size < DROP_CAP_RATIO * runs[1].size:  # else no drop cap: not called
        runs = _join_drop_cap(runs)
    text = clean("".join([r.text for r in runs]))
    if not text:
        return None
    rounded = _ROUNDED.get
    r = runs[0]
    # the first run: the first stretch's left edge and right-most glyph end
    left, right = r.x, right_edge(tp, r.last)
    chars = r.chars
    bold = chars if r.bold else 0
    mono = chars if r.mono else 0
    key = rounded(r.size)
    sizes: dict[float, int] = {_round1(r.size) if key is None else key: chars}
    cuts = [0]  # the first run of each horizontally separate stretch (a cell)
    final = len(runs) - 1  # the last run's end is never compared: not read
    for i in range(1, final + 1):
        _raw, n, x, _y, rsize, glyph, rbold, rmono = runs[i]
        reach = rsize * 1.5
        if reach < 4.0:  # max(size * 1.5, 4.0), NaN kept as max keeps it
            reach = 4.0
        if left - 1.0 <= x <= right + reach:
            if i < final:
                end = right_edge(tp, glyph)
                if end > right:
                    right = end
        else:
            cuts.append(i)
            left = x
            if i < final:
                right = right_edge(tp, glyph)
        key = rounded(rsize)
        if key is None:
            key = _round1(rsize)
        sizes[key] = sizes.get(key, 0) + n
        chars += n
        if rbold:
            bold += n
        if rmono:
            mono += n
    cells = _cells(runs, cuts, clean) if len(cuts) >= 2 else ()
    chars = max(chars, 1)
    # the first size of the most characters (as ``Counter.most_common(1)`` picks it)
    size = next(iter(sizes)) if len(sizes) == 1 else max(sizes.items(), key=_COUNT)[0]
    rx, ry = rounded(r.x), rounded(r.y)
    if rx is None:
        rx = _round1(r.x)
    if ry is None:
        ry = _round1(r.y)
    return _new(Line, (text, rx, ry, size, bold / chars >= 0.8, mono / chars >= 0.8, cells))


def _cells(
    runs: list[_Run], cuts: list[int], clean: Callable[[str], str]
) -> tuple[tuple[float, str], ...]:
    """``(x, text)`` of the stretches that begin at ``cuts``, when two or more hold text."""
    cuts.append(len(runs))
    cells = tuple(
        (_round1(runs[c].x), t)
        for c, d in pairwise(cuts)
        if (t := clean("".join([r.text for r in runs[c:d]])))
    )
    return cells if len(cells) >= 2 else ()


# ``round(v, 1)`` of the values seen: sizes repeat on every line, positions (a margin, a
# baseline) on most; a look-up costs a sixth of ``round`` (650 k of them on the bench PDFs)
_ROUNDED: dict[float, float] = {}
_ROUNDED_MOST = 1 << 16


def _round1(v: float) -> float:
    """``round(v, 1)``, remembered; 0.0 and -0.0 (one key, two results) and NaN (never
    found) are not."""
    r = _ROUNDED.get(v)
    if r is None:
        r = round(v, 1)
        if v and v == v:
            if len(_ROUNDED) >= _ROUNDED_MOST:
                _ROUNDED.clear()
            _ROUNDED[v] = r
    return r


_COUNT = itemgetter(1)
_CHARS = attrgetter("chars")
_new = tuple.__new__  # a Line without the Python frame of its ``__new__``


def open_document(path: Path, password: str | None = None) -> Any:
    import pypdfium2

    return pypdfium2.PdfDocument(str(path), password=password)


def pages_lines(doc: Any, start: int, stop: int, *, symbols: bool = False) -> RangeRead:
    """Lines of pages ``start..stop`` of an open ``PdfDocument``, a ``PageFailure`` in
    place of a page that cannot be read. ``symbols``: read as after a page that showed a
    math-symbol font."""
    fonts = Fonts(symbols)
    out: list[PageLines] = []
    first = start if symbols else None
    for i in range(start, stop):
        try:
            out.append(_read_page(doc, i, fonts))
        except Exception as exc:
            out.append(PageFailure.of(exc))
        if first is None and fonts.symbols:
            first = i
    return RangeRead(out, first)


def _read_page(doc: Any, i: int, fonts: Fonts) -> list[Line]:
    """Page ``i`` loaded and closed through PDFium's own calls (what ``doc[i]`` and
    ``page.close()`` do without a form environment, less their Python wrapping), through
    pypdfium2 when the document has forms initialised."""
    if doc.formenv:
        page = doc[i]
        try:
            return page_lines(ctypes.cast(page.raw, _VP).value or 0, fonts)
        finally:
            page.close()
    api = _api()
    raw = api.load_pdf_page(ctypes.cast(doc.raw, _VP).value, i)
    if not raw:
        from pypdfium2 import PdfiumError

        raise PdfiumError("Failed to load page.")  # what ``doc[i]`` raises
    try:
        return page_lines(raw, fonts)
    finally:
        api.close_pdf_page(raw)
