"""Hostile input files, built on the fly (no checked-in blobs).

Every builder takes a directory and returns the path it wrote. ``CASES`` maps a case
name to ``(builder, slow)``; the default variants are small enough for CI and the
``slow`` ones are the full-size versions of the issue's list.
"""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

FORMATS = (".pdf", ".epub", ".md", ".mdx", ".markdown", ".txt")
WORDS = [
    "river",
    "stone",
    "lantern",
    "harbor",
    "maple",
    "copper",
    "violet",
    "meadow",
    "signal",
    "orbit",
    "quiet",
    "ember",
    "falcon",
    "granite",
    "willow",
    "thunder",
    "pepper",
    "velvet",
    "canyon",
    "marble",
]


def _sentence(i: int, n: int = 9) -> str:
    return " ".join(WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(n)).capitalize() + "."


# --- PDF -------------------------------------------------------------------------------------


def raw_pdf(objects: Sequence[bytes], *, root: int = 1, extra_trailer: bytes = b"") -> bytes:
    """A PDF from object bodies (object i+1 is ``objects[i]``) with a correct xref."""
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % i + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for off in offsets:
        out.write(b"%010d 00000 n \n" % off)
    out.write(
        b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n"
        % (len(objects) + 1, root, extra_trailer, xref)
    )
    return out.getvalue()


def _stream(data: bytes, compress: bool = True) -> bytes:
    if compress:
        data = zlib.compress(data)
        return (
            b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + (b"\nendstream")
        )
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def _pdf_text(s: str) -> bytes:
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)").encode("latin-1")


def text_pdf_bytes(
    pages: Sequence[Sequence[str]], *, outline: bytes | None = None, outline_objs: int = 0
) -> bytes:
    """A PDF with Helvetica text lines per page. Objects: 1 catalog, 2 pages, 3 font,
    then (page, content) pairs; ``outline`` (a callable result) is appended last."""
    n = len(pages)
    first_page = 4
    kids = b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(n))
    outline_ref = b" /Outlines %d 0 R" % (first_page + 2 * n) if outline is not None else b""
    objs: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R" + outline_ref + b" >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % n,
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for i, lines in enumerate(pages):
        ops = [b"BT /F1 11 Tf 14 TL 72 760 Td"]
        for ln in lines:
            ops.append(b"(" + _pdf_text(ln) + b") Tj T*")
        ops.append(b"ET")
        objs.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (first_page + 2 * i + 1)
        )
        objs.append(_stream(b"\n".join(ops)))
    if outline is not None:
        objs.append(outline)
    del outline_objs
    return raw_pdf(objs)


def _book_pages(n: int, lines: int = 12) -> list[list[str]]:
    return [[_sentence(p * lines + k) for k in range(lines)] for p in range(n)]


def good_pdf_bytes(n_pages: int = 3) -> bytes:
    return text_pdf_bytes(_book_pages(n_pages))


def pdf_truncated(d: Path, fraction: float) -> Path:
    data = good_pdf_bytes(4)
    p = d / f"truncated-{int(fraction * 100):02d}.pdf"
    p.write_bytes(data[: max(1, int(len(data) * fraction))])
    return p


def pdf_broken_xref(d: Path) -> Path:
    data = good_pdf_bytes(3)
    at = data.rindex(b"\nxref\n") + 1
    table_end = data.index(b"trailer", at)
    table = data[at:table_end]
    broken = table.translate(bytes.maketrans(b"0123456789", b"9876543210"))
    tail = data[table_end:]
    tail = tail.replace(b"startxref\n%d" % at, b"startxref\n%d" % (at + 4321))
    p = d / "broken-xref.pdf"
    p.write_bytes(data[:at] + b"xref\n" + broken[5:] + tail)
    return p


def pdf_cyclic_outline(d: Path) -> Path:
    """Outline items whose /Next chain loops, a child whose /First points back at its
    parent, and entries pointing at a missing object and at page 999."""
    pages = _book_pages(3)
    n = len(pages)
    base = 4 + 2 * n  # the outline root's object number
    a, b, c, e = base + 1, base + 2, base + 3, base + 4
    root = b"<< /Type /Outlines /First %d 0 R /Last %d 0 R /Count 4 >>" % (a, c)
    items = [
        # a -> b -> c -> a (cycle on /Next); b's child e has /First back to a
        b"<< /Title (Chapter One) /Parent %d 0 R /Next %d 0 R /Dest [4 0 R /Fit] >>" % (base, b),
        b"<< /Title (Chapter Two) /Parent %d 0 R /Prev %d 0 R /Next %d 0 R /First %d 0 R "
        b"/Last %d 0 R /Count 1 /Dest [6 0 R /Fit] >>" % (base, a, c, e, e),
        b"<< /Title (Missing Object) /Parent %d 0 R /Prev %d 0 R /Next %d 0 R "
        b"/Dest [777 0 R /Fit] >>" % (base, b, a),
        b"<< /Title (Page 999) /Parent %d 0 R /First %d 0 R /Next %d 0 R /Dest [999 /Fit] >>"
        % (b, a, e),
    ]
    data = text_pdf_bytes(pages, outline=root)
    # re-emit with the items appended (rebuild the object list through raw_pdf)
    objs = _objects_of(data) + items
    p = d / "cyclic-outline.pdf"
    p.write_bytes(raw_pdf(objs))
    return p


def _objects_of(data: bytes) -> list[bytes]:
    out: list[bytes] = []
    i = 1
    while True:
        head = b"\n%d 0 obj\n" % i
        at = data.find(head)
        if at < 0:
            return out
        end = data.index(b"\nendobj\n", at)
        out.append(data[at + len(head) : end])
        i += 1


def pdf_many_pages(d: Path, n: int) -> Path:
    p = d / f"pages-{n}.pdf"
    p.write_bytes(text_pdf_bytes([[_sentence(i, 6)] for i in range(n)]))
    return p


_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"


def _text_page(parent: int, content: int) -> bytes:
    return (
        b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % (parent, content)
    )


def _text_content(i: int) -> bytes:
    return _stream(b"BT /F1 11 Tf 72 700 Td (" + _pdf_text(_sentence(i, 12)) + b") Tj ET")


def pdf_lying_count(d: Path, count: int) -> Path:
    """Three pages under a /Pages node whose /Count says ``count``."""
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R 6 0 R 8 0 R] /Count %d >>" % count,
        _FONT,
    ]
    for i in range(3):
        objs += [_text_page(2, 5 + 2 * i), _text_content(i)]
    p = d / f"lying-count-{count}.pdf"
    p.write_bytes(raw_pdf(objs))
    return p


def pdf_page_tree_bomb(d: Path, levels: int, fan: int) -> Path:
    """A page tree of ``levels`` /Pages nodes below the root, each naming the next one
    ``fan`` times: ``fan ** (levels + 1)`` pages from one page object, in a few KB."""
    first = 4
    leaf = first + levels

    def node(kid: int, pages: int, parent: bytes) -> bytes:
        kids = b" ".join([b"%d 0 R" % kid] * fan)
        return b"<< /Type /Pages" + parent + b" /Kids [" + kids + b"] /Count %d >>" % pages

    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", node(first, fan ** (levels + 1), b""), _FONT]
    for k in range(levels):
        objs.append(node(first + k + 1, fan ** (levels - k), b" /Parent 2 0 R"))
    objs += [_text_page(2, leaf + 1), _text_content(0)]
    p = d / f"page-tree-bomb-{fan}x{levels + 1}.pdf"
    p.write_bytes(raw_pdf(objs))
    return p


def pdf_huge_kids(d: Path, n: int) -> Path:
    """One /Kids array naming the same page ``n`` times (past pypdf's 100,000 limit)."""
    kids = b" ".join([b"4 0 R"] * n)
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [" + kids + b"] /Count %d >>" % n,
        _FONT,
        _text_page(2, 5),
        _text_content(0),
    ]
    p = d / f"huge-kids-{n}.pdf"
    p.write_bytes(raw_pdf(objs))
    return p


def pdf_huge_array(d: Path, n: int) -> Path:
    """A page whose /Annots array holds ``n`` elements: harmless, though pypdf's array
    limit refused the whole file."""
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        _FONT,
        _text_page(2, 5)[:-2] + b"/Annots [" + b" ".join([b"0"] * n) + b"] >>",
        _text_content(0),
    ]
    p = d / f"huge-array-{n}.pdf"
    p.write_bytes(raw_pdf(objs))
    return p


def pdf_deep_page_tree(d: Path, depth: int) -> Path:
    """The one page ``depth`` /Pages nodes down."""
    objs = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>"]
    objs.append(_FONT)
    for k in range(depth):
        parent = 2 if k == 0 else 3 + k
        objs.append(b"<< /Type /Pages /Parent %d 0 R /Kids [%d 0 R] /Count 1 >>" % (parent, 5 + k))
    objs += [_text_page(3 + depth, 5 + depth), _text_content(0)]
    p = d / f"deep-page-tree-{depth}.pdf"
    p.write_bytes(raw_pdf(objs))
    return p


def pdf_cyclic_page_tree(d: Path) -> Path:
    """A /Pages node that names the root (its own parent) and itself among its kids."""
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>",
        _FONT,
        _text_page(2, 5),
        _text_content(0),
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R 6 0 R 7 0 R] /Count 5 >>",
        _text_page(6, 8),
        _text_content(1),
    ]
    p = d / "cyclic-page-tree.pdf"
    p.write_bytes(raw_pdf(objs))
    return p


def pdf_no_text(d: Path) -> Path:
    p = d / "no-text.pdf"
    p.write_bytes(text_pdf_bytes([[], [], []]))
    return p


def pdf_encrypted(d: Path, algorithm: str, user_password: str) -> Path:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(good_pdf_bytes(3))))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm=algorithm)
    tag = "empty" if not user_password else "pw"
    p = d / f"encrypted-{algorithm.lower()}-{tag}.pdf"
    with p.open("wb") as fh:
        writer.write(fh)
    return p


# --- EPUB ------------------------------------------------------------------------------------

CONTAINER = (
    b'<?xml version="1.0"?><container version="1.0" '
    b'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
    b'<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>'
    b"</rootfiles></container>"
)


def chapter_xhtml(
    title: str, paragraphs: Sequence[str], head: str = "", body_extra: str = ""
) -> bytes:
    ps = "".join(f"<p>{t}</p>" for t in paragraphs)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml">'
        f"<head><title>{title}</title>{head}</head><body><h1>{title}</h1>{ps}{body_extra}"
        "</body></html>"
    ).encode()


def opf(manifest: Sequence[tuple[str, str, str]], spine: Sequence[str]) -> bytes:
    items = "".join(
        f'<item id="{i}" href="{h}" media-type="{m}"'
        + (' properties="nav"' if i == "nav" else "")
        + "/>"
        for i, h, m in manifest
    )
    refs = "".join(f'<itemref idref="{i}"/>' for i in spine)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<package xmlns="http://www.idpf.org/2007/opf" '
        'version="3.0" unique-identifier="id"><metadata '
        'xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="id">urn:x:hostile'
        "</dc:identifier><dc:title>Hostile Book</dc:title><dc:language>en</dc:language>"
        f"</metadata><manifest>{items}</manifest><spine>{refs}</spine></package>"
    ).encode()


NAV = (
    b'<?xml version="1.0" encoding="utf-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml" '
    b'xmlns:epub="http://www.idpf.org/2007/ops"><head><title>Nav</title></head><body>'
    b'<nav epub:type="toc"><ol><li><a href="ch1.xhtml">One</a></li>'
    b'<li><a href="ch2.xhtml">Two</a></li></ol></nav></body></html>'
)


def epub_bytes(
    chapters: dict[str, bytes] | None = None,
    *,
    extra: Sequence[tuple[str, bytes]] = (),
    opf_bytes: bytes | None = None,
    container: bytes = CONTAINER,
) -> bytes:
    if chapters is None:
        chapters = {
            "ch1.xhtml": chapter_xhtml("One", [_sentence(i, 14) for i in range(12)]),
            "ch2.xhtml": chapter_xhtml("Two", [_sentence(i + 40, 14) for i in range(12)]),
        }
    manifest = [("nav", "nav.xhtml", "application/xhtml+xml")] + [
        (name.split(".")[0], name, "application/xhtml+xml") for name in chapters
    ]
    spine = [name.split(".")[0] for name in chapters]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), b"application/epub+zip")
        zf.writestr("META-INF/container.xml", container, zipfile.ZIP_DEFLATED)
        zf.writestr("OEBPS/content.opf", opf_bytes or opf(manifest, spine), zipfile.ZIP_DEFLATED)
        zf.writestr("OEBPS/nav.xhtml", NAV, zipfile.ZIP_DEFLATED)
        for name, data in chapters.items():
            zf.writestr("OEBPS/" + name, data, zipfile.ZIP_DEFLATED)
        for name, data in extra:
            zf.writestr(zipfile.ZipInfo(name), data)
    return buf.getvalue()


def epub_truncated(d: Path, fraction: float) -> Path:
    data = epub_bytes()
    p = d / f"truncated-{int(fraction * 100):02d}.epub"
    p.write_bytes(data[: max(1, int(len(data) * fraction))])
    return p


def epub_declared_bomb(d: Path) -> Path:
    """A tiny EPUB whose chapter's headers claim ~4 GB uncompressed."""
    data = bytearray(epub_bytes())
    # patch the uncompressed size of ch1.xhtml in the local header and central directory
    name = b"OEBPS/ch1.xhtml"
    for sig, size_at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        pos = 0
        while True:
            pos = data.find(sig, pos)
            if pos < 0:
                break
            name_at = pos + (30 if sig == b"PK\x03\x04" else 46)
            if data[name_at : name_at + len(name)] == name:
                data[pos + size_at : pos + size_at + 4] = struct.pack("<I", 0xFFFFFFF0)
            pos += 4
    p = d / "bomb-declared.epub"
    p.write_bytes(bytes(data))
    return p


def epub_deflate_bomb(d: Path, megabytes: int) -> Path:
    """A chapter that really inflates to ``megabytes`` MB of whitespace (~1000:1)."""
    blob = b"<p>" + b" " * (megabytes << 20) + b"</p>"
    chapter = chapter_xhtml("Bomb", ["x"], body_extra="").replace(b"<p>x</p>", blob)
    del blob
    p = d / f"bomb-{megabytes}mb.epub"
    p.write_bytes(epub_bytes({"ch1.xhtml": chapter, "ch2.xhtml": chapter_xhtml("Two", ["ok"])}))
    return p


def epub_path_traversal(d: Path) -> Path:
    marker = "folio-hostile-traversal"
    chapters = {
        "ch1.xhtml": chapter_xhtml("One", [_sentence(i, 14) for i in range(8)]),
        "ch2.xhtml": chapter_xhtml("Two", [_sentence(i + 9, 14) for i in range(8)]),
    }
    extra = [
        (f"../../{marker}.txt", b"escaped!"),
        (f"/tmp/{marker}-abs.txt", b"absolute!"),
        (f"OEBPS/../../../{marker}-2.xhtml", b"<html/>"),
    ]
    p = d / "traversal.epub"
    p.write_bytes(epub_bytes(chapters, extra=extra))
    return p


def epub_missing_opf(d: Path) -> Path:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), b"application/epub+zip")
        zf.writestr("META-INF/container.xml", CONTAINER)
        zf.writestr("OEBPS/ch1.xhtml", chapter_xhtml("One", ["text"]))
    p = d / "missing-opf.epub"
    p.write_bytes(buf.getvalue())
    return p


def epub_missing_spine_files(d: Path, *, all_missing: bool) -> Path:
    manifest = [
        ("nav", "nav.xhtml", "application/xhtml+xml"),
        ("ch1", "ch1.xhtml", "application/xhtml+xml"),
        ("gone1", "gone1.xhtml", "application/xhtml+xml"),
        ("gone2", "gone2.xhtml", "application/xhtml+xml"),
    ]
    spine = ["gone1", "gone2"] if all_missing else ["gone1", "ch1", "gone2", "nothere"]
    chapters = {} if all_missing else {"ch1.xhtml": chapter_xhtml("One", [_sentence(3, 20)])}
    data = epub_bytes(chapters, opf_bytes=opf(manifest, spine))
    p = d / ("spine-all-missing.epub" if all_missing else "spine-some-missing.epub")
    p.write_bytes(data)
    return p


def epub_invalid_xhtml(d: Path) -> Path:
    bad = (
        b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Bad'
        b"</title><body><h1>Broken &nbsp; &bogus; Chapter<p>Unclosed paragraph <b>bold <i>"
        b"italic</b></i> text with \x01 control and \xff\xfe bad bytes<div><table><tr><td>cell"
        b"<p>More text that continues without closing tags & stray ampersands < and >"
        b"<h2>Subheading<ul><li>one<li>two</ul>" + b"<div>" * 5000 + b"deep" + b"\n"
    )
    chapters = {"ch1.xhtml": bad, "ch2.xhtml": b"\x00\x01\x02 not xml at all \xff"}
    p = d / "invalid-xhtml.epub"
    p.write_bytes(epub_bytes(chapters))
    return p


def epub_no_text(d: Path) -> Path:
    chapters = {"ch1.xhtml": b'<html xmlns="http://www.w3.org/1999/xhtml"><body></body></html>'}
    p = d / "no-text.epub"
    p.write_bytes(epub_bytes(chapters))
    return p


def epub_external_resources(d: Path, url: str) -> Path:
    """XHTML that would fetch ``url`` (images, CSS, scripts, DTD, XXE, iframes) and run
    scripts if it were rendered or parsed carelessly."""
    head = (
        f'<link rel="stylesheet" href="{url}/style.css"/>'
        f'<script src="{url}/script.js"></script>'
        "<script>document.write('SCRIPT-RAN')</script>"
    )
    body = (
        f'<img src="{url}/img.png" alt="remote picture"/>'
        f'<iframe src="{url}/frame.html"></iframe><object data="{url}/obj"></object>'
        f'<p style="background: url({url}/bg.png)">styled <a href="{url}/link">link</a></p>'
        "<p>&xxe; &remote;</p>"
    )
    doctype = (
        f'<!DOCTYPE html SYSTEM "{url}/x.dtd" [<!ENTITY xxe SYSTEM "file:///etc/passwd">'
        f'<!ENTITY remote SYSTEM "{url}/entity">]>'
    )
    chapter = (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        + doctype
        + '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Ext</title>'
        + head
        + "</head><body><h1>External</h1>"
        + "".join(f"<p>{_sentence(i, 14)}</p>" for i in range(6))
        + body
        + "</body></html>"
    ).encode()
    p = d / "external.epub"
    p.write_bytes(epub_bytes({"ch1.xhtml": chapter, "ch2.xhtml": chapter_xhtml("Two", ["ok"])}))
    return p


# --- Markdown / text -------------------------------------------------------------------------


def md_long_line(d: Path, megabytes: int) -> Path:
    p = d / f"long-line-{megabytes}mb.md"
    unit = ("lorem ipsum dolor sit amet " * 40).encode()
    n = (megabytes << 20) // len(unit)
    with p.open("wb") as fh:
        fh.write(b"# Long\n\n")
        for _ in range(n):
            fh.write(unit)
        fh.write(b"\n")
    return p


def md_nested_lists(d: Path, depth: int) -> Path:
    p = d / f"nested-lists-{depth}.md"
    p.write_text("# Lists\n\n" + "".join("  " * i + f"- item {i}\n" for i in range(depth)))
    return p


def md_nested_lists_compact(d: Path, depth: int) -> Path:
    """``- - - - x``: nesting without indentation growth."""
    p = d / f"nested-lists-compact-{depth}.md"
    p.write_text("# Lists\n\n" + "- " * depth + "deep\n")
    return p


def md_nested_quotes(d: Path, depth: int) -> Path:
    p = d / f"nested-quotes-{depth}.md"
    p.write_text("# Quotes\n\n" + ">" * depth + " deep\n\nafter\n")
    return p


def md_many_headings(d: Path, n: int) -> Path:
    p = d / f"headings-{n}.md"
    p.write_text("".join(f"{'#' * (1 + i % 6)} Heading {i}\n\nText {i}.\n\n" for i in range(n)))
    return p


def md_headings_only(d: Path, n: int) -> Path:
    p = d / f"headings-only-{n}.md"
    p.write_text("".join(f"## H{i}\n" for i in range(n)))
    return p


def md_nul_bytes(d: Path) -> Path:
    p = d / "nul-bytes.md"
    p.write_bytes(b"# Title\n\nSome text\x00 with a NUL.\n\n## Two\n\nMore\x00\x00 text.\n")
    return p


def md_invalid_utf8(d: Path) -> Path:
    p = d / "invalid-utf8.md"
    p.write_bytes(b"# Title\n\nCaf\xe9 au lait \xff\xfe and \xc3\x28 broken.\n")
    return p


def md_mixed_newlines(d: Path) -> Path:
    p = d / "mixed-newlines.md"
    p.write_bytes(
        b"# One\r\n\r\nCRLF para.\r\n\r\n## Two\r\rCR para.\r\r## Three\n\nLF para.\r\n"
        b"| a | b |\r|---|---|\n| 1 | 2 |\r\n\r\n```py\rcode()\r\n```\r"
    )
    return p


def md_rtl_cjk_emoji(d: Path) -> Path:
    p = d / "rtl-cjk-emoji.md"
    text = (
        "# שלום עולם\n\nזהו טקסט בעברית עם \u202eRTL override\u202c ו-123 מספרים.\n\n"
        "## مرحبا بالعالم\n\nهذا نص عربي طويل نسبيا "
        * 3
        + "\n\n## 中文标题\n\n"
        + "这是一个很长的中文段落，没有空格。" * 200
        + "\n\n## 日本語\n\n"
        + "これは日本語の文章です。" * 100
        + "\n\n## Emoji\n\n"
        + "👨‍👩‍👧‍👦 family 🏳️‍🌈 flag 👩🏽‍💻 coder 🧑‍🤝‍🧑 " * 300
        + "\n\nCombining: e\u0301\u0301\u0301 Z\u0351\u0352\u0353\u0354 ok\n"
    )
    p.write_text(text, encoding="utf-8")
    return p


def md_zalgo_no_spaces(d: Path, kb: int) -> Path:
    """One huge word with no spaces nor sentence breaks (character-level splitting)."""
    p = d / f"no-spaces-{kb}kb.md"
    p.write_text("# Word\n\n" + "x" * (kb << 10) + "\n")
    return p


def md_whitespace_only(d: Path) -> Path:
    p = d / "whitespace-only.md"
    p.write_text("   \n\t\n\n  \n")
    return p


def one_byte(d: Path, suffix: str) -> Path:
    p = d / f"one-byte{suffix}"
    p.write_bytes(b"x")
    return p


def zero_byte(d: Path, suffix: str) -> Path:
    p = d / f"zero-byte{suffix}"
    p.write_bytes(b"")
    return p


def odd_names(d: Path) -> list[Path]:
    out = []
    for name in ("with spaces in name.md", "ünïcödé—名前 🚀.md", "new\nline.md", "tab\tname.txt"):
        p = d / name
        p.write_text(f"# {name!r}\n\nA document with an odd file name.\n")
        out.append(p)
    return out


Builder = Callable[[Path], Path]

# lying page counts, page-tree bombs and huge arrays (what pypdf's limits refused)
PAGE_TREE_CASES: dict[str, Builder] = {
    "pdf-lying-count-1000000": lambda d: pdf_lying_count(d, 1_000_000),
    "pdf-lying-count-10": lambda d: pdf_lying_count(d, 10),
    "pdf-page-tree-bomb-1m": lambda d: pdf_page_tree_bomb(d, 5, 10),
    "pdf-page-tree-bomb-10g": lambda d: pdf_page_tree_bomb(d, 9, 10),
    "pdf-huge-kids-200000": lambda d: pdf_huge_kids(d, 200_000),
    "pdf-huge-array-2000000": lambda d: pdf_huge_array(d, 2_000_000),
    "pdf-deep-page-tree-2000": lambda d: pdf_deep_page_tree(d, 2000),
    "pdf-cyclic-page-tree": pdf_cyclic_page_tree,
}


def cases(*, slow: bool = False) -> dict[str, Builder]:
    """Case name → builder for one file: the default, fast variants, or the full-size
    ones of the issue (``slow``; only the cases that have a bigger variant)."""
    out: dict[str, Builder] = {}
    if slow:
        out["pdf-5000-pages"] = lambda d: pdf_many_pages(d, 5000)
        out["pdf-huge-kids-2000000"] = lambda d: pdf_huge_kids(d, 2_000_000)
        out["pdf-deep-page-tree-100000"] = lambda d: pdf_deep_page_tree(d, 100_000)
        out["epub-bomb-deflate-600mb"] = lambda d: epub_deflate_bomb(d, 600)
        out["md-long-line-50mb"] = lambda d: md_long_line(d, 50)
        out["md-nested-lists-indented-3000"] = lambda d: md_nested_lists(d, 3000)
        out["md-nested-lists-compact-100000"] = lambda d: md_nested_lists_compact(d, 100_000)
        out["md-nested-quotes-100000"] = lambda d: md_nested_quotes(d, 100_000)
        out["md-headings-100000"] = lambda d: md_many_headings(d, 100_000)
        out["md-headings-only-100000"] = lambda d: md_headings_only(d, 100_000)
        out["md-no-spaces-2mb"] = lambda d: md_zalgo_no_spaces(d, 2048)
        return out
    for suf in FORMATS:
        out[f"zero-byte{suf}"] = lambda d, s=suf: zero_byte(d, s)  # type: ignore[misc]
        out[f"one-byte{suf}"] = lambda d, s=suf: one_byte(d, s)  # type: ignore[misc]
    for frac in (0.02, 0.3, 0.6, 0.95):
        out[f"pdf-truncated-{frac}"] = lambda d, f=frac: pdf_truncated(d, f)  # type: ignore[misc]
        out[f"epub-truncated-{frac}"] = lambda d, f=frac: epub_truncated(d, f)  # type: ignore[misc]
    out["pdf-broken-xref"] = pdf_broken_xref
    out["pdf-cyclic-outline"] = pdf_cyclic_outline
    out["pdf-1000-pages"] = lambda d: pdf_many_pages(d, 1000)
    out["pdf-no-text"] = pdf_no_text
    out.update(PAGE_TREE_CASES)
    for algo in ("RC4-128", "AES-128", "AES-256"):
        for pw in ("", "secret"):
            out[f"pdf-encrypted-{algo}-{pw or 'empty'}"] = (
                lambda d, a=algo, w=pw: pdf_encrypted(d, a, w)  # type: ignore[misc]
            )
    out["epub-bomb-declared"] = epub_declared_bomb
    out["epub-bomb-deflate-80mb"] = lambda d: epub_deflate_bomb(d, 80)
    out["epub-path-traversal"] = epub_path_traversal
    out["epub-missing-opf"] = epub_missing_opf
    out["epub-spine-some-missing"] = lambda d: epub_missing_spine_files(d, all_missing=False)
    out["epub-spine-all-missing"] = lambda d: epub_missing_spine_files(d, all_missing=True)
    out["epub-invalid-xhtml"] = epub_invalid_xhtml
    out["epub-no-text"] = epub_no_text
    out["md-long-line-8mb"] = lambda d: md_long_line(d, 8)
    out["md-nested-lists-indented-1000"] = lambda d: md_nested_lists(d, 1000)
    out["md-nested-lists-compact-20000"] = lambda d: md_nested_lists_compact(d, 20_000)
    out["md-nested-quotes-20000"] = lambda d: md_nested_quotes(d, 20_000)
    out["md-headings-10000"] = lambda d: md_many_headings(d, 10_000)
    out["md-headings-only-2000"] = lambda d: md_headings_only(d, 2000)
    out["md-nul-bytes"] = md_nul_bytes
    out["md-invalid-utf8"] = md_invalid_utf8
    out["md-mixed-newlines"] = md_mixed_newlines
    out["md-rtl-cjk-emoji"] = md_rtl_cjk_emoji
    out["md-no-spaces-16kb"] = lambda d: md_zalgo_no_spaces(d, 16)
    out["md-whitespace-only"] = md_whitespace_only
    return out


def make_symlink_loops(lib: Path) -> None:
    os.symlink(lib, lib / "loop")
    os.symlink(lib / "self-loop.md", lib / "self-loop.md")
    os.symlink(lib / "loop-b.md", lib / "loop-a.md")
    os.symlink(lib / "loop-a.md", lib / "loop-b.md")
    os.symlink(lib / "no-such-target.md", lib / "dangling.md")
