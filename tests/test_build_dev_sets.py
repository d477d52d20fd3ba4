"""``scripts/devsets/build_dev_sets.py``: the parts that need no mirror: the truth rules on tiny
generated sources, the sha256 check naming the file and both hashes, and mirror reads
from a git repository made here."""

from __future__ import annotations

import gzip
import importlib
import subprocess
import zipfile
from pathlib import Path

import pytest

from .helpers import load_script

BUILD = load_script("build_dev_sets")
# the modules build_dev_sets imported from scripts/ (one DevSetError class, not a copy)
PG = importlib.import_module("devset_gutenberg")
SRC = importlib.import_module("devset_sources")
TRUTH = importlib.import_module("devset_truth")

BOOK = b"""<html><body>
<p><a href="#pref">Preface</a> <a href="#c1">I</a> <a href="#c2">II</a>
<a href="#p2">Part II</a></p>
<h1>KATRINE</h1>
<h2 id="pref">PREFACE</h2><p>Words.</p>
<h2><a name="c1"></a>CHAPTER I.</h2>
<p>&#160;</p>
<h3>The Widow</h3><h3>and her Child</h3>
<p>Text.</p>
<a name="c2"></a><h2>CHAPTER II.</h2>
<p>A sentence before the next heading.</p>
<h3>Not a title</h3>
<h2 id="p1">Part I</h2><h3 id="p2">Part II</h3>
</body></html>"""


def test_gutenberg_labels_join_the_title_headings_printed_right_after_them() -> None:
    assert PG.joined_labels(BOOK) == [
        {"title": "PREFACE", "level": 1},
        # the book title h1 is no contents target: chapters are not nested under it
        {"label": "CHAPTER I.", "title": "CHAPTER I. The Widow and her Child", "level": 1},
        # text between the label and the next heading: a bare label
        {"label": "CHAPTER II.", "title": "CHAPTER II.", "level": 1},
        # "Part I" is not linked, so "Part II" under it stays on level 1; a bare label
        {"label": "Part II", "title": "Part II", "level": 1},
    ]


def test_gutenberg_series_are_siblings_and_contents_targets_level_by_tag() -> None:
    html = BOOK.replace(b'<p><a href="#pref">', b'<p><a href="#p1">P1</a><a href="#pref">')
    joined = PG.joined_labels(html)
    assert [(e["title"], e["level"]) for e in joined[-2:]] == [("Part I", 1), ("Part II", 2)]
    levelled = PG.gutenberg_truth(html, "joined-labels")
    assert [(e["title"], e["level"]) for e in levelled[-2:]] == [("Part I", 1), ("Part II", 1)]
    assert PG.contents_targets(BOOK) == [
        {"level": 1, "title": "PREFACE"},
        {"level": 1, "title": "CHAPTER I."},  # the anchor inside the heading
        {"level": 1, "title": "CHAPTER II."},  # the empty anchor right before it
        {"level": 2, "title": "Part II"},
    ]


def test_texinfo_truth_reads_includes_values_and_conditionals_as_makeinfo() -> None:
    files = {
        "m.texi": "@include config.texi\n@node Top\n@top Manual\n@chapter Using @value{PROG}\n"
        "@section The @code{-x} option\n@iftex\n@section TeX only\n@end iftex\n"
        "@ifset EXTRA\n@section Extra\n@end ifset\n@ifclear EXTRA\n@subsection Plain\n"
        "@end ifclear\n@appendix Licence\n@bye\n@chapter After bye\n",
        "config.texi": "@set PROG GNU @command{sed}\n",
    }
    assert TRUTH.texinfo_truth("m.texi", files.__getitem__) == [
        {"level": 1, "title": "Using GNU sed"},
        {"level": 2, "title": "The -x option"},
        {"level": 3, "title": "Plain"},
        {"level": 1, "title": "Licence"},
    ]


def test_rfc_truth_nests_sections_and_adds_what_xml2rfc_prints() -> None:
    xml = b"""<rfc><front><author/><author/></front><middle>
    <section><name>Intro  duction</name><section title="Terms"/></section></middle>
    <back><references/><section><name>Acks</name><iref item="x"/></section></back></rfc>"""
    assert TRUTH.rfc_truth(xml) == [
        {"level": 1, "title": "Intro duction"},
        {"level": 2, "title": "Terms"},
        {"level": 1, "title": "References"},
        {"level": 1, "title": "Acks"},
        {"level": 1, "title": "Index"},
        {"level": 1, "title": "Authors' Addresses"},
    ]


def test_epub_nav_truth_is_the_toc_list_nested(tmp_path: Path) -> None:
    nav = """<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
    <body><nav epub:type="landmarks"><ol><li><a href="x.xhtml">Skip</a></li></ol></nav>
    <nav epub:type="toc"><ol><li><a href="a.xhtml">One</a><ol><li><span>Two</span></li></ol>
    </li></ol></nav></body></html>"""
    path = tmp_path / "b.epub"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("META-INF/container.xml", '<container><r full-path="OPS/p.opf"/></container>')
        z.writestr(
            "OPS/p.opf",
            '<package xmlns="http://www.idpf.org/2007/opf"><manifest>'
            '<item href="nav.xhtml" properties="nav"/></manifest></package>',
        )
        z.writestr("OPS/nav.xhtml", nav)
    with zipfile.ZipFile(path) as z:
        assert TRUTH.nav_truth(z) == [
            {"level": 1, "title": "One", "href": "a.xhtml"},
            {"level": 2, "title": "Two", "href": ""},
        ]


def test_a_differing_file_is_named_with_both_hashes_and_not_written(tmp_path: Path) -> None:
    good = BUILD.gzip_text("text\n", None)
    exp = BUILD.Expected("flat-text/docs/a.txt.gz", BUILD.sha256(good), BUILD.sha256(b"text\n"))
    renamed = BUILD.gzip_text("text\n", "a.txt")  # same text, another gzip header
    other = BUILD.gzip_text("other\n", None)
    job = BUILD.Job("a", (exp,), lambda: [(exp, renamed)])
    [problem] = BUILD.build_job(job, tmp_path)
    assert problem.path == exp.path and not (tmp_path / exp.path).exists()
    assert BUILD.sha256(renamed) in problem.reason and exp.sha256 in problem.reason
    assert "the text is the same" in problem.reason
    assert "the text differs" in str(exp.mismatch(other))
    assert gzip.decompress(renamed) == b"text\n" and b"a.txt\x00" in renamed[:20]
    assert BUILD.build_job(BUILD.Job("a", (exp,), lambda: [(exp, good)]), tmp_path) == []
    assert (tmp_path / exp.path).read_bytes() == good
    assert BUILD.check_file(tmp_path, exp) is None
    (tmp_path / exp.path).write_bytes(other)
    assert "the text differs" in str(BUILD.check_file(tmp_path, exp))
    missing = BUILD.Expected("pdf-outline/x.pdf", "0" * 64)
    assert str(BUILD.check_file(tmp_path, missing)) == "pdf-outline/x.pdf: missing"


def _git(repo: Path, *args: str) -> str:
    out = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def test_mirror_reads_a_pinned_commit_and_names_what_to_fetch(tmp_path: Path) -> None:
    repo = tmp_path / "mirrors" / "owner+book" / "repo"
    (repo / "doc").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "doc" / "a.txt").write_text("first\n")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    commit = _git(repo, "rev-parse", "HEAD")
    (repo / "doc" / "a.txt").write_text("second\n")  # the work tree is never read
    mirrors = SRC.Mirrors(tmp_path / "mirrors")
    src = SRC.Source.parse(f"owner/book@{commit}:doc/a.txt (prose after the path)")
    assert mirrors.read(src) == b"first\n"
    assert mirrors.files(src.at("doc/")) == ["doc/a.txt"]
    with pytest.raises(SRC.DevSetError, match=r"doc/b\.txt: not in the mirror.*github:owner/book"):
        mirrors.read(src.at("doc/b.txt"))
    gone = SRC.Source("owner/other", commit, "x.pdf")
    with pytest.raises(SRC.DevSetError, match=r"x\.pdf: no mirror of owner/other.*github:owner/"):
        mirrors.read(gone)
    with pytest.raises(SRC.DevSetError, match="not an owner/name@commit:path"):
        SRC.Source.parse("owner/book@HEAD:doc/a.txt")


TEXLIVE = importlib.import_module("devset_texlive")


def _manual_pdf() -> bytes:
    """Three pages of text with a two-level outline, as a package manual has."""
    fpdf = pytest.importorskip("fpdf")
    pdf = fpdf.FPDF(format="A4")
    pdf.set_font("Helvetica", "", 12)
    for level, title in [(0, "1 Introduction"), (1, "1.1 Options"), (0, "2 Usage")]:
        pdf.add_page()
        pdf.start_section(title, level=level)
        pdf.multi_cell(0, 6, f"{title}\n\nThe package is loaded as usual.")
    return bytes(pdf.output())


def _deb(tmp_path: Path, files: dict[str, bytes]) -> Path:
    """A Debian package ``texlive-demo-doc`` 1.0-1 holding ``files``, built by dpkg-deb."""
    tree = tmp_path / "tree"
    (tree / "DEBIAN").mkdir(parents=True)
    (tree / "DEBIAN" / "control").write_text(
        "Package: texlive-demo-doc\nVersion: 1.0-1\nArchitecture: all\n"
        "Maintainer: t <t@t>\nDescription: demo\n"
    )
    for path, data in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_bytes(data)
    debs = tmp_path / "debs"
    debs.mkdir()
    deb = debs / "texlive-demo-doc_1.0-1_all.deb"
    out = subprocess.run(["dpkg-deb", "--build", str(tree), str(deb)], capture_output=True)
    assert out.returncode == 0, out.stderr
    return deb


def test_texlive_pdf_is_read_from_its_deb_checked_and_written_as_the_pdf_kinds(
    tmp_path: Path,
) -> None:
    if subprocess.run(["which", "dpkg-deb", "pdftotext"], capture_output=True).returncode:
        pytest.skip("needs dpkg-deb and pdftotext (poppler-utils)")
    pdf = _manual_pdf()
    path = "usr/share/doc/texlive-doc/latex/demo/demo.pdf"
    deb = _deb(tmp_path, {path: pdf, "usr/share/doc/texlive-doc/latex/demo/other.pdf": b"x"})
    entry = {
        "name": "pdftotext-tl-demo",
        "kind": "pdftotext",
        "source": f"texlive-demo-doc@1.0-1:{path} (written as text by pdftotext -enc UTF-8)",
        "sha256_deb": BUILD.sha256(deb.read_bytes()),
        "sha256_pdf": BUILD.sha256(pdf),
    }
    mirrors = SRC.Mirrors(tmp_path / "no-mirrors")
    text, truth = BUILD.text_and_truth(entry, mirrors, tmp_path, deb.parent)
    assert truth == [
        {"level": 1, "title": "1 Introduction"},
        {"level": 2, "title": "1.1 Options"},
        {"level": 1, "title": "2 Usage"},
    ]
    assert "1.1 Options" in text and text.count("\f") == 3  # a form feed after each page
    layout, _ = BUILD.text_and_truth(
        entry | {"kind": "pdftotext-layout"}, mirrors, tmp_path, deb.parent
    )
    assert "2 Usage" in layout
    with pytest.raises(SRC.DevSetError, match="give --texlive-debs"):
        BUILD.text_and_truth(entry, mirrors, tmp_path, None)
    with pytest.raises(SRC.DevSetError, match=r"demo\.pdf: sha256 [0-9a-f]{64}, manifest 0{64}"):
        BUILD.text_and_truth(entry | {"sha256_pdf": "0" * 64}, mirrors, tmp_path, deb.parent)
    with pytest.raises(SRC.DevSetError, match=r"texlive-demo-doc_1\.0-1_all\.deb: sha256 .*"):
        BUILD.text_and_truth(entry | {"sha256_deb": "1" * 64}, mirrors, tmp_path, deb.parent)
    gone = entry | {"source": "texlive-demo-doc@1.0-2:" + path}
    with pytest.raises(SRC.DevSetError, match=r"missing \(apt-get download texlive-demo-doc"):
        BUILD.text_and_truth(gone, mirrors, tmp_path, deb.parent)
    with pytest.raises(SRC.DevSetError, match=r"no regular file .*nothere\.pdf"):
        TEXLIVE.deb_members(deb, (path, "usr/share/doc/texlive-doc/latex/demo/nothere.pdf"))


def test_texlive_licence_is_the_catalogue_entry_holding_the_doc_folder() -> None:
    table = TEXLIVE.licence_table(
        gzip.compress(
            b"Licenses for source package texlive-base\n\nae: lppl\ntexmf-dist/doc/fonts/ae/*\n"
            b"demo: gpl3+ fdl\ntexmf-dist/doc/latex/demo/*\ntexmf-dist/tex/latex/demo/*\n"
        )
    )
    assert TEXLIVE.licence_of(table, "usr/share/doc/texlive-doc/latex/demo/demo.pdf") == (
        "demo",
        "gpl3+ fdl",
    )
    # a file of a subfolder has the licence of the nearest folder the table lists
    sub = "usr/share/doc/texlive-doc/latex/demo/examples/x.pdf"
    assert TEXLIVE.licence_of(table, sub) == ("demo", "gpl3+ fdl")
    assert TEXLIVE.licence_of(table, "usr/share/doc/texlive-doc/latex/other/x.pdf") is None


def test_texlive_selection_takes_packages_in_turn_least_taken_class_one_per_family() -> None:
    select = load_script("select_texlive_docs")
    measures = select.Measures(20, 10, 2, 900, 0.3)

    def pdf(package: str, family: str, cls: str, name: str) -> object:
        path = f"usr/share/doc/texlive-doc/latex/{family}/{name}.pdf"
        return select.Candidate(package, "1", "d", path, "s", family, "lppl", cls, measures)

    pool = [
        pdf("a-doc", "one", "ltxdoc", "x"),
        pdf("a-doc", "one", "ltxdoc", "y"),  # same family as x: never both
        pdf("a-doc", "two", "ltxdoc", "z"),
        pdf("b-doc", "three", "ltxdoc", "w"),
        pdf("b-doc", "four", "memoir", "v"),
    ]
    chosen = select.select(pool, 3)
    assert [c.package for c in chosen] == ["a-doc", "b-doc", "a-doc"]
    assert len({c.family for c in chosen}) == 3
    # a-doc took an ltxdoc manual: b-doc takes the class not taken yet
    assert chosen[1].doc_class == "memoir"
    assert select.english_share("The use of the package is as follows") > 0.15
    assert select.english_share("Die Verwendung des Pakets ist wie folgt") < 0.15


def test_manual_ceiling_places_each_page_heading_in_the_flat_text() -> None:
    ceiling = load_script("manual_ceiling")
    md = (
        "# Getting started\n\nSome `code` here.\n\n"
        "```sh\n# not a heading\n```\n\n## The *next* step\n"
    )
    plain = ceiling.md_plain(md)
    heads = ceiling.page_headings(md, plain, 100, 2)
    assert [(h.md_level, h.title, h.opens_page, h.summary_level) for h in heads] == [
        (1, "Getting started", True, 2),
        (2, "The next step", False, 2),
    ]
    assert all(plain[h.start - 100 : h.start - 100 + len(h.title)] == h.title for h in heads)
    found = ceiling.readers(heads)
    assert [f.level for f in found["every heading, Markdown levels"]] == [1, 2]
    assert [f.title for f in found["page titles, SUMMARY levels"]] == ["Getting started"]
