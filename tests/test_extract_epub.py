"""EPUB extraction: a nested-nav book built in the test, DRM, and one real file."""

from __future__ import annotations

import itertools
import re
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("ebooklib")

from pipeline.errors import CorruptFileError, DrmProtectedError
from pipeline.extract.epub.reader import read_epub
from pipeline.model import boilerplate_counts

FIXTURES = Path(__file__).parent / "fixtures" / "extract"

CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
  </rootfiles></container>"""

OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:0000-test</dc:identifier>
    <dc:title>The Test Book</dc:title>
    <dc:creator>Ann Author</dc:creator>
    <dc:creator>Bob Builder</dc:creator>
    <dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c1" href="text/ch1.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
    <item id="c3" href="text/ch3.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="nav"/><itemref idref="c1"/><itemref idref="c2"/><itemref idref="c3"/>
  </spine>
</package>"""

NAV = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>Contents</title></head><body>
<nav epub:type="toc"><h1>Contents</h1><ol>
  <li><a href="text/ch1.xhtml">Part One</a>
    <ol>
      <li><a href="text/ch1.xhtml#s1">First Section</a>
        <ol><li><a href="text/ch1.xhtml#s1a">A Deep Point</a></li></ol></li>
      <li><a href="text/ch1.xhtml#s2">Second Section</a></li>
    </ol></li>
  <li><a href="text/ch2.xhtml">Chapter Without Heading</a></li>
  <li><span>Grouping Only</span>
    <ol><li><a href="text/ch3.xhtml#tables">Tables and Code</a></li></ol></li>
</ol></nav></body></html>"""

CH1 = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Ch 1</title>
<link rel="stylesheet" href="http://example.invalid/style.css"/></head><body>
<h1>Part One</h1>
<p>An opening paragraph with <em>emphasis</em>, <strong>strength</strong> and <code>code</code>.</p>
<section id="s1"><h2>First Section</h2>
<p>Text of the first section.<br/>A second line.</p>
<h3 id="s1a">A Deep Point</h3>
<ul><li>apples</li><li>pears<ul><li>green pears</li></ul></li></ul>
<ol><li>one</li><li>two</li></ol>
</section>
<h2 id="s2">Second Section</h2>
<blockquote><p>A quoted line.</p><p>And another.</p></blockquote>
<p># not a heading, 1. not a list</p>
<img src="http://example.invalid/pic.png" alt="A picture of a cat"/>
<aside epub:type="footnote" xmlns:epub="http://www.idpf.org/2007/ops"><p>1. A footnote.</p></aside>
</body></html>"""

CH2 = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Ch 2</title></head><body>
<div class="page">12</div>
<p>This chapter has no heading element of its own, so the nav gives its title.</p>
</body></html>"""

CH3 = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Ch 3</title></head><body>
<h1 id="tables">Tables and Code</h1>
<table><thead><tr><th>Name</th><th>Pipe | char</th></tr></thead>
<tbody><tr><td>ctfp</td><td>199</td></tr><tr><td colspan="2">spans both</td></tr></tbody></table>
<pre><code class="language-python">def f(x):
    return x * 2
</code></pre>
<h4>Below the chapter</h4><p>Small print.</p>
</body></html>"""


def make_epub(path: Path, *, extra: dict[str, bytes] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        zf.writestr("META-INF/container.xml", CONTAINER)
        zf.writestr("OEBPS/content.opf", OPF)
        zf.writestr("OEBPS/nav.xhtml", NAV)
        zf.writestr("OEBPS/text/ch1.xhtml", CH1)
        zf.writestr("OEBPS/text/ch2.xhtml", CH2)
        zf.writestr("OEBPS/text/ch3.xhtml", CH3)
        for name, data in (extra or {}).items():
            zf.writestr(name, data)
    return path


def _heads(text: str) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(2)) for m in re.finditer(r"^(#+) (.+)$", text, re.M)]


def test_nested_nav_drives_levels_and_chapters(tmp_path: Path) -> None:
    doc = read_epub(make_epub(tmp_path / "book.epub"))
    assert doc.markup == "markdown" and doc.format == "epub"
    assert doc.heading_mode == "outline"
    assert _heads(doc.text) == [
        (1, "Part One"),
        (2, "First Section"),
        (3, "A Deep Point"),
        (2, "Second Section"),
        (1, "Chapter Without Heading"),
        (1, "Grouping Only"),
        (2, "Tables and Code"),
        (5, "Below the chapter"),  # h4 under an h1 that the nav puts at level 2
    ]
    assert [e.title for e in doc.outline][:2] == ["Part One", "First Section"]
    assert all(doc.text[e.char_start or 0 :].startswith("#") for e in doc.outline)
    assert doc.pages == ()
    assert doc.title == "The Test Book"
    assert doc.info.author == "Ann Author, Bob Builder"
    assert doc.info.extra["language"] == "en"
    assert doc.info.backend == "epub"
    assert boilerplate_counts(doc.info.boilerplate)["toc"] == 1  # the nav document in the spine
    assert "Contents" not in doc.text


def test_xhtml_to_markdown_blocks(tmp_path: Path) -> None:
    text = read_epub(make_epub(tmp_path / "book.epub")).text
    assert "An opening paragraph with *emphasis*, **strength** and `code`." in text
    assert "Text of the first section.\nA second line." in text
    assert "- apples\n- pears\n  - green pears" in text
    assert "1. one\n2. two" in text
    assert "> A quoted line.\n\n> And another." in text
    assert "\\# not a heading, 1. not a list" in text
    assert "(image: A picture of a cat)" in text
    assert "\\1. A footnote." in text
    assert "| Name | Pipe \\| char |\n|---|---|\n| ctfp | 199 |\n| spans both |  |" in text
    assert "```python\ndef f(x):\n    return x * 2\n```" in text
    assert text.endswith("\n") and "\n\n\n" not in text


def test_without_nav_keeps_markup_levels(tmp_path: Path) -> None:
    doc = read_epub(make_epub(tmp_path / "book.epub"), use_nav=False)
    assert doc.heading_mode == "markdown"
    heads = _heads(doc.text)
    assert (1, "Part One") in heads and (3, "A Deep Point") in heads
    assert (1, "Ch 2") in heads  # chapter without a heading: titled from <title>
    assert (1, "Tables and Code") in heads


def test_drm_rights_file_is_refused(tmp_path: Path) -> None:
    path = make_epub(tmp_path / "drm.epub", extra={"META-INF/rights.xml": b"<rights/>"})
    with pytest.raises(DrmProtectedError) as err:
        read_epub(path)
    assert err.value.path == str(path)


def test_drm_encrypted_content_is_refused(tmp_path: Path) -> None:
    enc = b"""<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
      xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>
      <enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
      <enc:CipherData><enc:CipherReference URI="OEBPS/text/ch1.xhtml"/></enc:CipherData>
      </enc:EncryptedData></encryption>"""
    path = make_epub(tmp_path / "drm2.epub", extra={"META-INF/encryption.xml": enc})
    with pytest.raises(DrmProtectedError):
        read_epub(path)


def test_font_obfuscation_is_not_drm(tmp_path: Path) -> None:
    enc = b"""<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container"
      xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData>
      <enc:EncryptionMethod Algorithm="http://www.idpf.org/2008/embedding"/>
      <enc:CipherData><enc:CipherReference URI="OEBPS/fonts/f.otf"/></enc:CipherData>
      </enc:EncryptedData></encryption>"""
    path = make_epub(tmp_path / "fonts.epub", extra={"META-INF/encryption.xml": enc})
    assert "Part One" in read_epub(path).text


def test_damaged_epub_is_corrupt(tmp_path: Path) -> None:
    good = make_epub(tmp_path / "good.epub").read_bytes()
    path = tmp_path / "cut.epub"
    path.write_bytes(good[: len(good) // 2])
    with pytest.raises(CorruptFileError):
        read_epub(path)


def test_real_epub_nested_nav() -> None:
    doc = read_epub(FIXTURES / "childrens-literature.epub")
    assert doc.info.extra["nav_entries"] == 31
    heads = _heads(doc.text)
    titles = {t for _, t in heads}
    assert "I. The Rabbi and the Diadem" in titles or "1. The Rabbi and The Diadem" in titles
    assert (1, "SECTION IV FAIRY STORIES—MODERN FANTASTIC TALES") in heads
    assert doc.info.author.startswith("Charles Madison Curry")


# --- page-list: EPUB 3 nav and NCX pageList --------------------------------------------------

PAGED_OPF3 = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:0000-paged</dc:identifier>
    <dc:title>Paged Book</dc:title><dc:language>en</dc:language>
    <meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest>
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
    <item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""

PAGED_NAV = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>Nav</title></head><body>
<nav epub:type="toc"><ol>
  <li><a href="c1.xhtml">One</a></li><li><a href="c2.xhtml#two">Two</a></li>
</ol></nav>
<nav epub:type="page-list" hidden="hidden"><ol>
  <li><a href="c1.xhtml#p1">i</a></li>
  <li><a href="c1.xhtml#p2">2</a></li>
  <li><a href="c1.xhtml#p3">3</a></li>
  <li><a href="c2.xhtml">4</a></li>
  <li><a href="c2.xhtml#p5">5</a></li>
</ol></nav></body></html>"""

PAGED_C1 = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>c1</title></head><body>
<span epub:type="pagebreak" id="p1" title="i"/>
<h1>One</h1>
<p>Alpha text on the first page. It goes on <span epub:type="pagebreak" id="p2">2</span> \
and Beta text starts page two in the middle of a paragraph.</p>
<div epub:type="pagebreak" id="p3" title="3"></div>
<p>Gamma text is on page three.</p>
</body></html>"""

PAGED_C2 = """<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>c2</title></head><body>
<h1 id="two">Two</h1>
<p>Delta text opens page four.</p>
<p><a id="p5"/>Epsilon text is on page five.</p>
</body></html>"""

PAGED_OPF2 = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="2.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:0000-ncx</dc:identifier>
    <dc:title>Paged NCX Book</dc:title><dc:language>en</dc:language>
  </metadata>
  <manifest>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml"/>
    <item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/>
    <item id="c2" href="c2.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine toc="ncx"><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""

PAGED_NCX = """<?xml version="1.0" encoding="utf-8"?>
<ncx xmlns="http://www.daisy.org/z3986/2005/ncx/" version="2005-1">
<head><meta name="dtb:uid" content="urn:uuid:0000-ncx"/></head>
<docTitle><text>Paged NCX Book</text></docTitle>
<navMap>
  <navPoint id="n1" playOrder="1"><navLabel><text>One</text></navLabel>
    <content src="c1.xhtml"/></navPoint>
  <navPoint id="n2" playOrder="2"><navLabel><text>Two</text></navLabel>
    <content src="c2.xhtml#two"/></navPoint>
</navMap>
<pageList>
  <pageTarget id="pt1" type="front" value="1" playOrder="3"><navLabel><text>i</text></navLabel>
    <content src="c1.xhtml#p1"/></pageTarget>
  <pageTarget id="pt2" type="normal" value="2" playOrder="4"><navLabel><text>2</text></navLabel>
    <content src="c1.xhtml#p2"/></pageTarget>
  <pageTarget id="pt3" type="normal" value="3" playOrder="5"><navLabel><text>3</text></navLabel>
    <content src="c1.xhtml#p3"/></pageTarget>
  <pageTarget id="pt4" type="normal" value="4" playOrder="6"><navLabel><text>4</text></navLabel>
    <content src="c2.xhtml"/></pageTarget>
  <pageTarget id="pt5" type="normal" value="5" playOrder="7"><navLabel><text>5</text></navLabel>
    <content src="c2.xhtml#p5"/></pageTarget>
</pageList>
</ncx>"""


def make_paged_epub(path: Path, *, ncx: bool = False) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        zf.writestr("META-INF/container.xml", CONTAINER)
        zf.writestr("OEBPS/content.opf", PAGED_OPF2 if ncx else PAGED_OPF3)
        if ncx:
            zf.writestr("OEBPS/toc.ncx", PAGED_NCX)
        else:
            zf.writestr("OEBPS/nav.xhtml", PAGED_NAV)
        zf.writestr("OEBPS/c1.xhtml", PAGED_C1)
        zf.writestr("OEBPS/c2.xhtml", PAGED_C2)
    return path


@pytest.mark.parametrize("ncx", [False, True], ids=["nav-page-list", "ncx-pageList"])
def test_page_list_fills_pages(tmp_path: Path, ncx: bool) -> None:
    doc = read_epub(make_paged_epub(tmp_path / "paged.epub", ncx=ncx))
    text = doc.text
    assert [(p.number, p.label) for p in doc.pages] == [
        (1, "i"),
        (2, "2"),
        (3, "3"),
        (4, "4"),
        (5, "5"),
    ]
    # the pages tile the text, in order
    assert doc.pages[0].char_start == 0 and doc.pages[-1].char_end == len(text)
    for a, b in itertools.pairwise(doc.pages):
        assert a.char_end == b.char_start and a.char_start <= b.char_start
    body = {p.label: text[p.char_start : p.char_end] for p in doc.pages}
    assert body["i"].startswith("# One") and "Alpha text" in body["i"]
    assert body["2"].startswith("and Beta text") and "Gamma" not in body["2"]
    assert body["3"].startswith("Gamma text")
    assert body["4"].startswith("# Two") and "Delta text" in body["4"]
    assert body["5"].startswith("Epsilon text")
    # the printed page number is page boilerplate: gone from the text, counted
    assert "It goes on and Beta" in text and " 2 and" not in text
    assert boilerplate_counts(doc.info.boilerplate)["page_number"] == 1
    assert not re.search("[\U000f0000-\U000ffffd]", text)
    assert doc.info.page_count == 5 and doc.info.extra["page_anchors_missing"] == 0
    assert [(e.title, e.page) for e in doc.outline] == [("One", 1), ("Two", 4)]


def test_page_list_gives_chunk_pages(tmp_path: Path) -> None:
    from pipeline import chunk_document

    doc = read_epub(make_paged_epub(tmp_path / "paged.epub"))
    chunks = chunk_document(doc)
    assert chunks and all(c.page_start is not None for c in chunks)
    assert min(c.page_start or 0 for c in chunks) == 1
    assert max(c.page_end or 0 for c in chunks) == 5
    for c in chunks:  # a chunk's pages are those its first and last characters lie on
        first = next(p for p in doc.pages if p.char_start <= c.char_start < p.char_end)
        assert c.page_start == first.number


def test_real_epub_page_list() -> None:
    doc = read_epub(FIXTURES / "childrens-literature.epub")
    assert len(doc.pages) == 92 and doc.pages[0].label == "169"
    assert doc.info.extra["page_anchors_missing"] == 0
    assert boilerplate_counts(doc.info.boilerplate)["page_number"] > 50
    p = next(pg for pg in doc.pages if pg.label == "219")
    assert doc.text[p.char_start :].startswith("played with my companions")


# --- book structure: the nav is the backbone ---------------------------------------------------


def make_book(path: Path, *, title: str, nav: str, files: list[tuple[str, str, str]]) -> Path:
    """An EPUB 3 titled ``title`` whose nav ``<ol>`` holds ``nav``; ``files`` are (name, the
    ``<title>`` of the file, its body), in spine order."""
    items = "".join(
        f'<item id="f{i}" href="{n}" media-type="application/xhtml+xml"/>'
        for i, (n, _, _) in enumerate(files)
    )
    spine = "".join(f'<itemref idref="f{i}"/>' for i in range(len(files)))
    opf = f"""<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:identifier id="uid">urn:uuid:0000-book</dc:identifier><dc:title>{title}</dc:title>
    <dc:language>en</dc:language><meta property="dcterms:modified">2024-01-01T00:00:00Z</meta>
  </metadata>
  <manifest><item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
  {items}</manifest>
  <spine>{spine}</spine>
</package>"""
    nav_doc = f"""<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>Nav</title></head><body><nav epub:type="toc"><ol>{nav}</ol></nav></body></html>"""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        zf.writestr("META-INF/container.xml", CONTAINER)
        zf.writestr("OEBPS/content.opf", opf)
        zf.writestr("OEBPS/nav.xhtml", nav_doc)
        for name, head, body in files:
            zf.writestr(
                f"OEBPS/{name}",
                '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
                f"<head><title>{head}</title></head><body>{body}</body></html>",
            )
    return path


EPIGRAPH = "<p>An epigraph of some length that the author put above the chapter title.</p>"
LONG = " ".join(["Readers look things up in an index and expect to find them."] * 250)


def test_headings_nest_below_their_nav_entry_and_merge_with_it(tmp_path: Path) -> None:
    """The chapter's own heading equal to its nav entry is merged with it, even after an
    epigraph; every other heading of the file nests below the entry, whatever its tag."""
    book = make_book(
        tmp_path / "index.epub",
        title="Indexing for Editors and Authors",
        nav='<li><a href="ch1.xhtml">Chapter 1: What Is an Index?</a></li>'
        '<li><a href="ch2.xhtml">2. Subheadings</a></li>',
        files=[
            (
                "ch1.xhtml",
                "Chapter 1",
                f"{EPIGRAPH}<h1><b>What Is an Index?</b></h1><p>Indexes are old.</p>"
                f"<h1>Index Users</h1><p>Who reads them. {LONG}</p>"
                f"<h2><i>Browsers</i> and Searchers</h2><p>Two kinds. {LONG}</p>",
            ),
            (
                "ch2.xhtml",
                "Chapter 2",
                '<h2 class="chapter"><strong>Subheadings</strong></h2><p>Below main headings.</p>'
                "<h3><strong>A BRIEF HISTORY</strong></h3><p>Once upon a time.</p>",
            ),
        ],
    )
    doc = read_epub(book)
    assert _heads(doc.text) == [
        (1, "Chapter 1: What Is an Index?"),
        (2, "Index Users"),
        (3, "Browsers and Searchers"),
        (1, "2. Subheadings"),
        (2, "A BRIEF HISTORY"),
    ]
    assert doc.text.index("An epigraph") < doc.text.index("Indexes are old.")
    from pipeline import chunk_document

    crumbs = {c.breadcrumb for c in chunk_document(doc)}
    assert (
        "Indexing for Editors and Authors",
        "Chapter 1: What Is an Index?",
        "Index Users",
    ) in crumbs


def test_titles_and_breadcrumbs_are_plain_text(tmp_path: Path) -> None:
    book = make_book(
        tmp_path / "plain.epub",
        title="Plain",
        nav='<li><a href="c1.xhtml">Questions &amp;amp; <em>Answers</em></a></li>',
        files=[
            (
                "c1.xhtml",
                "c1",
                "<p>Opening words of the chapter, long enough to be real content here.</p>"
                '<h2 id="s"><a class="permalink" href="#s">\u203a</a> The <code>guide</code>'
                " Element <em>[deprecated]</em> &amp; <span>friends</span></h2><p>Body.</p>"
                "<h3>*Stars* and _lines_ stay as typed</h3><p>More.</p>",
            )
        ],
    )
    doc = read_epub(book)
    heads = _heads(doc.text)
    assert heads == [
        (1, "Questions & Answers"),
        (2, "The guide Element [deprecated] & friends"),
        (3, "*Stars* and _lines_ stay as typed"),
    ]
    assert [e.title for e in doc.outline] == [t for _, t in heads]


def test_admonition_labels_are_not_headings(tmp_path: Path) -> None:
    note = '<div class="note" title="note"><h3 class="title">note</h3><p>{}</p></div>'
    book = make_book(
        tmp_path / "spec.epub",
        title="Spec",
        nav='<li><a href="c1.xhtml">Overview</a></li>',
        files=[
            (
                "c1.xhtml",
                "c1",
                "<h1>Overview</h1><p>Words.</p>"
                + note.format("First remark.")
                + "<p>More words.</p>"
                + note.format("Second remark."),
            )
        ],
    )
    doc = read_epub(book)
    assert _heads(doc.text) == [(1, "Overview")]
    assert "First remark." in doc.text and "Second remark." in doc.text


GUTENBERG_HEAD = "The Project Gutenberg eBook of Alice's Adventures in Wonderland, by Lewis Carroll"
ALICE = [
    ("CHAPTER I", "<i>Down the Rabbit-Hole</i>"),
    ("CHAPTER II", "<i>The Pool of Tears</i>"),
    ("CHAPTER III", "<i>A Caucus-Race and a Long Tale</i>"),
]


def _alice_chapter(k: int) -> str:
    label, sub = ALICE[k]
    words = " ".join(["Alice was beginning to get very tired of sitting by her sister."] * 150)
    return (
        f'<div class="chapter">{label}</div><div class="sidenote">{sub}</div>'
        f"<p>{words}</p><p>{words}</p>"
    )


def test_gutenberg_chapter_divs_give_one_section_path_per_chapter(tmp_path: Path) -> None:
    """Chapters marked by ``div.chapter`` (no ``<h*>``), in files the nav does not list and
    whose ``<title>`` repeats the book title: each chapter is found, the title tag is not."""
    files = [("title.xhtml", GUTENBERG_HEAD, "<p>Alice's Adventures in Wonderland</p>")]
    files += [(f"ch{k}.xhtml", GUTENBERG_HEAD, _alice_chapter(k)) for k in range(3)]
    book = make_book(
        tmp_path / "alice.epub",
        title="Alice's Adventures in Wonderland",
        nav='<li><a href="title.xhtml">Title Page</a></li>',
        files=files,
    )
    doc = read_epub(book)
    heads = _heads(doc.text)
    assert [t for _, t in heads] == [
        "Title Page",
        "CHAPTER I: Down the Rabbit-Hole",
        "CHAPTER II: The Pool of Tears",
        "CHAPTER III: A Caucus-Race and a Long Tale",
    ]
    assert {lvl for lvl, _ in heads} == {1}
    from pipeline import chunk_document

    paths: dict[tuple[str, ...], int] = {}
    for c in chunk_document(doc):
        if c.tier == "section" and "CHAPTER" in c.breadcrumb[-1]:
            paths[c.breadcrumb] = paths.get(c.breadcrumb, 0) + 1
    assert sorted(p[-1] for p in paths) == [t for _, t in heads[1:]]
    assert all(p[:-1] == ("Alice's Adventures in Wonderland",) for p in paths)


@pytest.mark.parametrize(
    ("line", "title"),
    [
        (
            "<p>CHAPTER IV.</p><p>The Rabbit Sends in a Little Bill</p>",
            "CHAPTER IV. The Rabbit Sends in a Little Bill",
        ),
        ('<p class="center">Chapter 3</p>', "Chapter 3"),
        ("<p>BOOK II</p>", "BOOK II"),
        ('<p class="chapter-title">The Mock Turtle’s Story</p>', "The Mock Turtle’s Story"),
        ("<div><p>Chapter 12: Alice’s Evidence</p></div>", "Chapter 12: Alice’s Evidence"),
    ],
)
def test_chapter_markers_without_heading_tags(tmp_path: Path, line: str, title: str) -> None:
    body = f"{line}<p>{'The story goes on for a while, sentence after sentence. ' * 5}</p>"
    book = make_book(
        tmp_path / "m.epub",
        title="Marked",
        nav='<li><a href="a.xhtml">Front</a></li>',
        files=[("a.xhtml", "a", "<p>Front matter words.</p>"), ("b.xhtml", "b", body)],
    )
    assert [t for _, t in _heads(read_epub(book).text)] == ["Front", title]


def test_chapter_sentences_are_not_markers(tmp_path: Path) -> None:
    body = (
        "<p>Chapter 3 of the report describes the method in detail.</p>"
        '<div class="chapter"><p>A wrapper div with a class of chapter holds paragraphs.</p>'
        "<p>Another one.</p></div>"
    )
    book = make_book(
        tmp_path / "s.epub",
        title="Sentences",
        nav='<li><a href="a.xhtml">Only</a></li>',
        files=[("a.xhtml", "a", body)],
    )
    assert _heads(read_epub(book).text) == [(1, "Only")]


def test_title_tag_names_a_file_only_when_nothing_better_does(tmp_path: Path) -> None:
    files = [
        ("a.xhtml", "The Book", "<p>Words of a file titled like the book.</p>"),
        ("b.xhtml", "Notes on the Text", "<p>Words of a file with its own title.</p>"),
        ("c.xhtml", "Notes on the Text", "<p>Words of a file titled like the one before.</p>"),
    ]
    book = make_book(tmp_path / "t.epub", title="The Book", nav="", files=files)
    doc = read_epub(book, use_nav=False)
    assert _heads(doc.text) == [(1, "Notes on the Text")]
