"""PDFium's text layer: its characters map one to one onto its char positions, and it
reads real corpus pages into the same structure as the pypdf layer."""

from __future__ import annotations

import ctypes
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.extract.pdf import pdfium
from pipeline.extract.pdf.layout import _BOLD_NAME, clean_text
from pipeline.extract.pdf.pdfium import (
    _HIGH,
    _ODD_SPACE,
    _RTL,
    _UNCLEAN,
    _clean,
    _clean_plain,
    _object_starts,
    _round1,
    _Run,
    _spans,
    _visual_lines,
    _word_starts,
    join_units,
)
from pipeline.extract.pdf.reader import read_pdf

FIXTURES = Path(__file__).parent / "fixtures" / "extract"


def utf16_units(text: str) -> list[int]:
    raw = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(raw[i : i + 2], "little") for i in range(0, len(raw), 2)]


@given(st.text())
def test_one_character_per_position_and_nothing_lost(text: str) -> None:
    units = utf16_units(text)
    joined = join_units(units)
    assert len(joined) == len(units)  # offsets stay PDFium's
    assert not any(0xD800 <= ord(c) < 0xE000 for c in joined)  # no lone surrogate survives
    if not any(0xD800 <= ord(c) < 0xE000 for c in text):
        assert joined.replace("\0", "") == text.replace("\0", "")


def test_pairs_and_lone_surrogates() -> None:
    units = [ord("a"), 0xD835, 0xDC65, ord("b"), 0xDC00, ord("c")]  # a 𝑥... b <lone> c
    joined = join_units(units)
    assert joined == "a\U0001d465\0b\ufffdc"
    assert clean_text(joined) == "a\U0001d465b\ufffdc"


@pytest.mark.parametrize("name", ["pdflatex-outline.pdf", "kaobook-minimal-report.pdf"])
def test_pdfium_and_pypdf_layers_agree_on_structure(name: str) -> None:
    path = FIXTURES / name
    a = read_pdf(path, workers=1, layer="pdfium")
    b = read_pdf(path, workers=1, layer="pypdf")
    assert a.info.backend == "pdfium" and b.info.backend == "pypdf"
    assert [(e.level, e.title, e.page) for e in a.outline] == [
        (e.level, e.title, e.page) for e in b.outline
    ]
    assert [p.number for p in a.pages] == [p.number for p in b.pages]
    words_a, words_b = set(a.text.split()), set(b.text.split())
    assert len(words_a & words_b) >= 0.9 * len(words_b)


def test_a_pdf_pdfium_cannot_open_falls_back_to_pypdf(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # pypdf finds a header after 1 KB of junk; PDFium gives up ("Data format error")
    path = tmp_path / "junk-first.pdf"
    path.write_bytes(b"x" * 1100 + (FIXTURES / "pdflatex-outline.pdf").read_bytes())
    with caplog.at_level("WARNING", logger="folio.extract"):
        doc = read_pdf(path, workers=1, layer="pdfium")
    assert doc.info.backend == "pypdf"
    assert "using pypdf's text layer" in caplog.text and str(path) in caplog.text
    reference = read_pdf(FIXTURES / "pdflatex-outline.pdf", workers=1, layer="pypdf")
    assert doc.text == reference.text


def test_lines_pdfium_joined_are_split_where_a_run_goes_back_left_and_down() -> None:
    def run(text: str, x: float, y: float) -> _Run:
        return _Run(text, len(text), x, y, 4.5, len(text) - 1, False, False)

    joined = [run("2022", 364, 718.5), run("2021", 394, 718.5), run("Net earnings", 175, 713.3),
              run("2,735.0", 367, 713.3), run("Depreciation", 178, 708.0),
              run("570.3", 370, 708.0)]  # fmt: skip
    assert [[r.text for r in line] for line in _visual_lines(joined)] == [
        ["2022", "2021"],
        ["Net earnings", "2,735.0"],
        ["Depreciation", "570.3"],
    ]
    # a subscript a little left and below its base (math) stays on its line
    formula = [run("U", 220.9, 739.2), run("2 =", 219.2, 734.0), run("R", 230, 739.2)]
    assert len(_visual_lines(formula)) == 1


@pytest.mark.parametrize(
    ("name", "bold"),
    [
        # the biblatex manual's section headings: Linux Biolinum's bold is "OB"
        ("ONHEEL+LinBiolinumOB", True),
        ("LinLibertineTB", True),
        ("LinLibertineOBI", True),
        ("UKWCNS+LinLibertineO", False),
        ("VXUFYE+LinLibertineOI", False),
    ],
)
def test_bold_font_names(name: str, bold: bool) -> None:
    assert (_BOLD_NAME.search(name) is not None) is bold


def _scan(objs: list[int | None]) -> list[tuple[int, int]]:
    """What reading every position in order finds: where each new object begins."""
    out: list[tuple[int, int]] = []
    for k, obj in enumerate(objs):
        if obj is not None and (not out or out[-1][1] != obj):
            out.append((k, obj))
    return out


@given(st.lists(st.tuples(st.integers(1, 40), st.lists(st.booleans(), max_size=40)), max_size=12))
@example([(6, [False, True, False, False]), (3, [False, True, True]), (6, [True, True])])
@example([(8, []), (1, []), (2, [True]), (30, []), (3, [False, True])])
def test_object_starts_match_a_full_scan(runs: list[tuple[int, list[bool]]]) -> None:
    """Text objects whose characters lie together, with characters of no object (PDFium's
    generated spaces) anywhere: jumping over positions finds the starts a full scan finds,
    each position read once at most. The first example is what a bisection got wrong
    (object 2 between positions it had read blank); in the second, objects 2 and 3 lie
    within one jump (read back from object 4, then in order)."""
    objs: list[int | None] = []
    for obj, (length, gaps) in enumerate(runs, start=1):
        for i in range(length):
            objs.append(None if i < len(gaps) and gaps[i] else obj)
    reads: list[int] = []

    def probe(_tp: object, k: int) -> int | None:
        reads.append(k)
        return objs[k]

    for jump in (True, False):
        reads.clear()
        assert _object_starts(probe, None, range(len(objs)), jump=jump) == _scan(objs)
        assert len(set(reads)) == len(reads)  # each position read once at most


def test_object_starts_read_fewer_positions_than_a_scan() -> None:
    objs: list[int | None] = [o for o in range(1, 11) for _ in range(20)]  # ten of 20 chars
    reads: list[int] = []

    def probe(_tp: object, k: int) -> int | None:
        reads.append(k)
        return objs[k]

    assert _object_starts(probe, None, range(len(objs))) == _scan(objs)
    assert len(reads) < len(objs) / 2


def test_right_to_left_characters_are_all_found() -> None:
    """Every code point of a right-to-left bidirectional class is one PDFium may reorder
    a line for: the pattern that makes ``_object_starts`` read every position finds it."""
    rtl = ("R", "AL", "AN", "RLE", "RLO", "RLI")
    missed = [
        c
        for c in range(0x110000)
        if unicodedata.bidirectional(chr(c)) in rtl and not _RTL.match(chr(c))
    ]
    assert missed == []
    assert _RTL.search("plain text, 12 € ∑ ⟨x⟩ ﬁ") is None


@pytest.mark.parametrize("name", ["biblatex-symbol-pages.pdf", "kaobook-minimal-report.pdf"])
def test_jumps_read_the_lines_a_full_read_does(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real pages (math-symbol fonts read per character, text per word): the same lines
    whether text objects are found jumping over positions or reading every one."""
    doc = pdfium.open_document(FIXTURES / name)
    try:
        fast = pdfium.pages_lines(doc, 0, len(doc))
        monkeypatch.setattr(pdfium, "_RTL", re.compile("(?s:.)"))  # as for right-to-left text
        full = pdfium.pages_lines(doc, 0, len(doc))
    finally:
        doc.close()
    assert fast == full
    assert fast.symbols_from is not None or name != "biblatex-symbol-pages.pdf"


def _spans_by_alternation(text: str) -> list[tuple[int, int]]:
    """The lines as the pattern ``\\r?\\n|[\\ufffe\\x02]`` found them before ``_spans``."""
    out: list[tuple[int, int]] = []
    a = 0
    for m in re.finditer("\r?\n|[\ufffe\x02]", text + "\n"):
        b, nxt = (m.end(), m.end()) if m.group() in ("\ufffe", "\x02") else m.span()
        if b > a:
            out.append((a, b))
        a = nxt
    return out


@given(st.text(alphabet="a \r\n\ufffe\x02", max_size=30) | st.text(alphabet="a \r\n", max_size=30))
def test_lines_split_as_the_alternation_did(text: str) -> None:
    assert _spans(text) == _spans_by_alternation(text)


@given(st.text(max_size=40))
def test_a_page_without_right_to_left_characters_is_told_by_its_largest(text: str) -> None:
    if text and max(text) < "\u0590":
        assert _RTL.search(text) is None


@given(st.text(max_size=40))
def test_a_character_from_u0590_on_is_found_as_the_largest_tells(text: str) -> None:
    """``_HIGH`` (what ``_lines`` asks before the right-to-left pattern) finds a character
    exactly when the text's largest is U+0590 or above."""
    assert (_HIGH.search(text) is not None) == (bool(text) and max(text) >= "\u0590")


@given(st.lists(st.floats(), max_size=8))
@example([0.0, -0.0, 0.04, -0.04, float("nan"), 0.05, 0.15, 2.675])
def test_rounding_remembered_is_round(values: list[float]) -> None:
    """``_round1`` gives what ``round(v, 1)`` gives, the sign of a zero included, when the
    value (or one equal to it) was rounded before too."""
    for v in [*values, *values]:
        assert repr(_round1(v)) == repr(round(v, 1))


@given(st.text(alphabet=" \r\x02\ufffe\t/ﬁ\u00a0\x01ab-", max_size=20) | st.text(max_size=30))
@example("  a\r\x02 b  ")
def test_a_plain_page_is_cleaned_as_every_page(text: str) -> None:
    """Text holding no character of ``_UNCLEAN`` (as on a page without one) is cleaned
    by ``_clean_plain`` as ``_clean`` cleans it."""
    if _UNCLEAN.search(text) is None:
        assert _clean_plain(text) == _clean(text)


@given(st.text(alphabet=" ab\t\r\n\u00a0\u2003\x1f", max_size=30), st.data())
@example("a b\r\nc  d", None)
@example("a\rb c", None)
def test_word_starts_are_the_pattern_s(text: str, data: st.DataObject | None) -> None:
    """Word starts from the words' lengths, on a page whose only blanks are spaces and line
    breaks, are where the pattern finds words, in every stretch of the page."""
    spaced = _ODD_SPACE.search(text) is None
    a, b = (
        (0, len(text))
        if data is None
        else sorted(data.draw(st.lists(st.integers(0, len(text)), min_size=2, max_size=2)))
    )
    if "\n" in text[a:b] or (spaced and "\r" in text[a:b]):
        return  # a stretch is one line: PDFium's line breaks are left out of it
    want = [m.start() for m in re.finditer(r"\S+", text[a:b])]
    assert _word_starts(text, a, b, spaced) == [a + w for w in want]


@pytest.mark.parametrize("name", ["biblatex-symbol-pages.pdf", "kaobook-minimal-report.pdf"])
def test_word_starts_on_real_pages(name: str) -> None:
    """Every line of real pages (a math-symbol font's too): the word starts found from the
    words' lengths are the pattern's."""
    api = pdfium._api()
    doc = pdfium.open_document(FIXTURES / name)
    try:
        spans = 0
        for i in range(len(doc)):
            page = doc[i]
            tp = api.load_page(ctypes.cast(page.raw, ctypes.c_void_p).value)
            try:
                text = pdfium._page_text(api, pdfium._VP(tp))
            finally:
                api.close_page(tp)
                page.close()
            spaced = _ODD_SPACE.search(text) is None
            for a, b in _spans(text):
                want = [m.start() for m in re.finditer(r"\S+", text[a:b])]
                assert _word_starts(text, a, b, spaced) == [a + w for w in want]
                spans += 1
    finally:
        doc.close()
    assert spans > 20
