"""The question sets the retrieval evaluation reads, and their fixed tuning/report split.

Each loader returns the set's documents and its questions. Every question carries its
type (``qtype``: the set's own label, or the document for a set without labels), the kind
of document or evidence it rests on (``kind``) and the group it is split by (``group``:
the company for filings, the corpus file otherwise), so that every report can be given
per question type, per kind and per half.

The split (``eval/splits.json``, committed once and never re-drawn) puts whole groups into
a tuning half and a report half: rules are changed looking at the tuning half only, and a
change is kept only when the report half agrees. Grouping filings by company keeps one
company's wording out of both halves.
"""

from __future__ import annotations

import csv
import fnmatch
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SPLIT_FILE = ROOT / "eval" / "splits.json"
HALVES = ("tuning", "report")
HOLDOUT = "holdout"  # a set's groups kept unread until the end (eval_retrieval --holdout)
# groups held out, for the sets drawn with a holdout (covid-qa: the fewest groups, in the
# split's order, that hold 15% of its questions: 19 of 92 articles, 206 of 1,235 questions)
HELD_OUT = {"fairytaleqa": 2, "covid-qa": 19}
COVID_QA = "covid-qa"
EVAL_DATA = "FOLIO_EVAL_DATA"  # sets built here from public snapshots (build_qa_set.py)

Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Evidence:
    page: int  # 1-based
    text: str


@dataclass(frozen=True, slots=True)
class Question:
    index: int
    text: str
    doc: str  # the (first) document the answer is in
    refs: tuple[Span, ...] = ()
    contents: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    answer: str = ""  # a reviewed answer (docugami-10q)
    sources: tuple[str, ...] = ()  # every document the answer rests on (docugami-10q)
    qtype: str = ""
    kind: str = ""
    group: str = ""
    half: str = ""
    missing: int = 0  # evidence texts not found in the extracted text (eval_retrieval)

    @property
    def docs(self) -> tuple[str, ...]:
        return self.sources or (self.doc,)


Loader = Callable[[Path], tuple[list[Path], list[Question]]]


def load_chunking_eval(qa: Path) -> tuple[list[Path], list[Question]]:
    """Chroma's chunking-evaluation set: no question types, so the corpus file is both the
    type and the kind."""
    out: list[Question] = []
    with (qa / "questions_df.csv").open(encoding="utf-8", newline="") as fh:
        for n, row in enumerate(csv.DictReader(fh)):
            refs = json.loads(row["references"])
            corpus = row["corpus_id"]
            out.append(
                Question(
                    index=n,
                    text=row["question"],
                    doc=corpus,
                    refs=tuple((int(r["start_index"]), int(r["end_index"])) for r in refs),
                    contents=tuple(str(r["content"]) for r in refs),
                    qtype=corpus,
                    kind=corpus,
                    group=corpus,
                )
            )
    return sorted((qa / "corpora").glob("*.md")), out


def load_financebench(qa: Path) -> tuple[list[Path], list[Question]]:
    """FinanceBench: ``question_type`` as the type, the filing's form (10K, 10Q, 8K) as
    the kind, the company as the group."""
    out: list[Question] = []
    with (qa / "questions.jsonl").open(encoding="utf-8") as fh:
        for n, line in enumerate(x for x in fh if x.strip()):
            rec = json.loads(line)
            ev = tuple(
                Evidence(int(e["evidence_page_num"]) + 1, str(e["evidence_text"]))
                for e in rec["evidence"]
            )
            name = str(rec["doc_name"])
            out.append(
                Question(
                    index=n,
                    text=rec["question"],
                    doc=name,
                    evidence=ev,
                    qtype=str(rec.get("question_type") or "unlabelled"),
                    kind=_form(name),
                    group=name.split("_", 1)[0],
                )
            )
    return sorted((qa / "pdfs").glob("*.pdf")), out


def _form(doc_name: str) -> str:
    form = doc_name.rsplit("_", 1)[-1].upper()
    return form if re.fullmatch(r"10K|10Q|8K", form) else "other"


# "SOURCE(S): 2023 Q1 AAPL.pdf, 2023 Q2 AAPL.pdf" and "(SOURCE: 2022 Q3 AAPL.pdf)"
_SOURCE_LINE = re.compile(r"^\s*SOURCE\(?S?\)?\s*:.*$", re.I | re.M)
_SOURCE_NOTE = re.compile(r"\(\s*SOURCES?\s*:[^)]*\)", re.I)
_CITED = re.compile(r"(\d{4} Q\d [A-Z]+)\.pdf")


def load_docugami(qa: Path) -> tuple[list[Path], list[Question]]:
    """docugami-10q: the filings a question needs are those its answer cites (the
    ``SOURCE(S)`` names) among those its ``Source Docs`` glob matches; the glob alone when
    the answer cites none. Type: ``Question Type``; kind: ``Source Chunk Type``; group: the
    company."""
    paths = sorted((qa / "pdfs").glob("*.pdf"))
    stems = [p.stem for p in paths]
    out: list[Question] = []
    with (qa / "qna_data.csv").open(encoding="utf-8-sig", newline="") as fh:
        for n, row in enumerate(csv.DictReader(fh)):
            matched = [s for s in stems if fnmatch.fnmatch(f"{s}.pdf", row["Source Docs"])]
            if not matched:
                raise ValueError(f"qna_data.csv row {n + 2}: no PDF matches {row['Source Docs']}")
            cited = [s for s in dict.fromkeys(_CITED.findall(row["Answer"])) if s in matched]
            sources = tuple(cited or matched)
            out.append(
                Question(
                    index=n,
                    text=row["Question"],
                    doc=sources[0],
                    answer=row["Answer"],
                    sources=sources,
                    qtype=row["Question Type"].replace(" RAG", ""),
                    kind=row["Source Chunk Type"],
                    group=sources[0].rsplit(" ", 1)[-1],
                )
            )
    return paths, out


# FairytaleQA's collections as books, one per collection, in the formats a library holds:
# each story a chapter under its title, in file-name order, each section a run of
# paragraphs. The formats take turns by the collection's place in name order.
BOOK_FORMATS = ("md", "txt", "epub")
BOOKS_DIR = Path(tempfile.gettempdir()) / "folio-eval-books"


def load_fairytaleqa(qa: Path) -> tuple[list[Path], list[Question]]:
    """FairytaleQA: each collection a book (written under ``BOOKS_DIR``), each question
    asked of the whole library. The evidence is the text of its ``cor_section`` sections
    (``contents``; ``refs`` are found in the extracted text by the evaluation); type: its
    ``attribute1``; kind: ``local`` or ``summary`` and the book's format; group: the
    collection."""
    paths: list[Path] = []
    out: list[Question] = []
    for turn, folder in enumerate(sorted((qa / "section-stories").iterdir())):
        fmt = BOOK_FORMATS[turn % len(BOOK_FORMATS)]
        stories = _stories(folder)
        paths.append(_write_book(folder.name, stories, fmt))
        for story, sections in stories:
            for row in _rows(qa / "questions" / folder.name / f"{story}-questions.csv"):
                cited = [
                    section_text(sections[int(n) - 1], fmt)
                    for n in row["cor_section"].split(",")
                    if n
                ]
                out.append(
                    Question(
                        index=len(out),
                        text=row["question"],
                        doc=folder.name,
                        contents=tuple(cited),
                        qtype=row["attribute1"].strip() or "unlabelled",
                        kind=f"{row['local-or-sum']}/{fmt}",
                        group=folder.name,
                    )
                )
    return paths, out


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _stories(folder: Path) -> list[tuple[str, list[Section]]]:
    """(story name, its sections), in name order."""
    out = []
    for path in sorted(folder.glob("*-story.csv")):
        rows = sorted(_rows(path), key=lambda r: int(r["section"]))
        out.append((path.name.removesuffix("-story.csv"), [_paragraphs(r["text"]) for r in rows]))
    return out


Section = list[list[str]]  # paragraphs, each its lines


def _paragraphs(text: str) -> Section:
    """A section's paragraphs, each a list of lines. Most collections keep Project
    Gutenberg's lines, wrapped at ~70 characters, with a blank line between paragraphs;
    a section without a blank line has one paragraph a line."""
    blocks = text.split("\n\n") if "\n\n" in text else text.split("\n")
    lines = [[" ".join(line.split()) for line in b.split("\n") if line.strip()] for b in blocks]
    return [ls for ls in lines if ls]


def section_text(section: Section, fmt: str) -> str:
    """A section as the book of format ``fmt`` holds it: paragraphs apart by a blank line,
    their lines kept as wrapped (Markdown and plain text) or joined (an EPUB's ``<p>``)."""
    joint = " " if fmt == "epub" else "\n"
    return "\n\n".join(joint.join(lines) for lines in section)


def story_title(name: str) -> str:
    """ "brave-tin-soldier" -> "Brave Tin Soldier"."""
    return " ".join(w.capitalize() for w in name.split("-"))


def _write_book(collection: str, stories: list[tuple[str, list[Section]]], fmt: str) -> Path:
    """The collection as one book of format ``fmt``, rewritten only when its bytes change."""
    title = story_title(collection)
    if fmt == "epub":
        data = _epub(title, stories)
    elif fmt == "md":
        body = [f"# {title}"]
        for name, sections in stories:
            body += [f"## {story_title(name)}", *(section_text(x, fmt) for x in sections)]
        data = ("\n\n".join(body) + "\n").encode()
    else:  # plain text as a book is printed: the title and each story's title in capitals
        body = [title.upper()]
        for name, sections in stories:
            body += [story_title(name).upper(), *(section_text(x, fmt) for x in sections)]
        data = ("\n\n\n".join(body) + "\n").encode()
    path = BOOKS_DIR / f"{collection}.{fmt}"
    if not path.is_file() or path.read_bytes() != data:
        BOOKS_DIR.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return path


_CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>
<rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
</rootfiles></container>"""
_OPF = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:identifier id="id">folio-eval-{title}</dc:identifier><dc:title>{title}</dc:title>
<dc:language>en</dc:language><meta property="dcterms:modified">2026-01-01T00:00:00Z</meta>
</metadata><manifest>
<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
{manifest}</manifest><spine>{spine}</spine></package>"""
_NAV = """<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops">
<head><title>{title}</title></head>
<body><nav epub:type="toc"><ol>{items}</ol></nav></body></html>"""
_CHAPTER = """<html xmlns="http://www.w3.org/1999/xhtml"><head><title>{title}</title></head>
<body><h2>{title}</h2>{paragraphs}</body></html>"""


def _epub(title: str, stories: list[tuple[str, list[Section]]]) -> bytes:
    """An EPUB 3 of the stories (one chapter each, in the nav), with a fixed identifier
    and dates, so that the same stories give the same bytes."""
    import io
    import zipfile
    from html import escape

    chapters = []
    for n, (name, sections) in enumerate(stories, 1):
        paragraphs = "".join(
            f"<p>{escape(' '.join(lines))}</p>" for section in sections for lines in section
        )
        chapters.append(
            (
                f"c{n}.xhtml",
                story_title(name),
                _CHAPTER.format(title=escape(story_title(name)), paragraphs=paragraphs),
            )
        )
    nav = "".join(f'<li><a href="{f}">{escape(t)}</a></li>' for f, t, _ in chapters)
    manifest = "".join(
        f'<item id="c{n}" href="{f}" media-type="application/xhtml+xml"/>'
        for n, (f, _, _) in enumerate(chapters, 1)
    )
    spine = "".join(f'<itemref idref="c{n}"/>' for n in range(1, len(chapters) + 1))
    files = {
        "META-INF/container.xml": _CONTAINER,
        "OEBPS/content.opf": _OPF.format(title=escape(title), manifest=manifest, spine=spine),
        "OEBPS/nav.xhtml": _NAV.format(title=escape(title), items=nav),
        **{f"OEBPS/{f}": html for f, _, html in chapters},
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(zipfile.ZipInfo("mimetype", (2026, 1, 1, 0, 0, 0)), "application/epub+zip")
        for name, text in files.items():
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, text)
    return buf.getvalue()


def eval_data_dir() -> Path:
    """Where the sets built from public snapshots live: ``$FOLIO_EVAL_DATA``, defaulting
    to ``~/.cache/folio-eval`` (``$FOLIO_DATA`` is read-only and laid anew each session)."""
    return Path(os.environ.get(EVAL_DATA) or Path.home() / ".cache" / "folio-eval")


def load_covid_qa(qa: Path) -> tuple[list[Path], list[Question]]:
    """COVID-QA (eval/covid-qa): scientific articles as Markdown files, each question's
    evidence the exact span of its answer (``refs`` in the file, which Folio reads as it
    is; ``contents`` its text). Type: the question's wh-word; kind: where the answer
    stands (``front``, ``abstract``, ``body``); group: the article. Read from ``qa`` when
    the set is there, else from ``$FOLIO_EVAL_DATA/covid-qa``."""
    folder = qa if (qa / "questions.jsonl").is_file() else eval_data_dir() / COVID_QA
    if not (folder / "questions.jsonl").is_file():
        raise FileNotFoundError(
            f"covid-qa: no questions.jsonl under {qa} or {folder}; build the set with "
            "`python scripts/devsets/build_qa_set.py --mirrors DIR` (DIR holding the snapshot of "
            "github:deepset-ai/COVID-QA, from the session's fetch tool; eval/covid-qa/README.md)"
        )
    out: list[Question] = []
    with (folder / "questions.jsonl").open(encoding="utf-8") as fh:
        for n, line in enumerate(x for x in fh if x.strip()):
            rec = json.loads(line)
            out.append(
                Question(
                    index=n,
                    text=rec["question"],
                    doc=rec["doc"],
                    refs=((int(rec["start"]), int(rec["end"])),),
                    contents=(str(rec["answer"]),),
                    qtype=rec["qtype"],
                    kind=rec["kind"],
                    group=rec["doc"],
                )
            )
    return sorted((folder / "docs").glob("*.md")), out


LOADERS: dict[str, tuple[str, Loader]] = {
    "chunking-eval": ("chunking_evaluation", load_chunking_eval),
    "financebench-dev": ("financebench-dev", load_financebench),
    "docugami-10q": ("docugami-10q", load_docugami),
    "fairytaleqa": ("fairytaleqa", load_fairytaleqa),
    COVID_QA: (COVID_QA, load_covid_qa),
}


# --------------------------------------------------------------------------- answers


_FIGURE = re.compile(r"(?<![\w.,])\(?\$?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\)?%?(?![\w])")
_YEAR = re.compile(r"(?:19|20)\d\d")
_DATE = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2}\b", re.I
)


def answer_text(answer: str) -> str:
    """The answer without its source citations (file names hold years and quarters) and
    without dates ("June 25, 2022": the day is no figure the filing's table prints)."""
    return _DATE.sub(" ", _SOURCE_NOTE.sub(" ", _SOURCE_LINE.sub(" ", answer)))


def figures(answer: str) -> set[str]:
    """The amounts and ratios an answer rests on, as a filing prints them ("82,959",
    "43.3"): years and one-digit whole numbers (list numbering, "Q3", "3 months") left
    out."""
    out: set[str] = set()
    for whole, fraction in _FIGURE.findall(answer_text(answer)):
        if not fraction and (_YEAR.fullmatch(whole) or len(whole) == 1):
            continue
        out.add(whole + fraction)
    return out


def printed_figures(text: str) -> set[str]:
    """The figures of a context's text, as ``figures`` reads them."""
    return {w + f for w, f in _FIGURE.findall(text)}


# --------------------------------------------------------------------------- the split


def make_split(name: str, questions: Sequence[Question], holdout: int = 0) -> dict[str, list[str]]:
    """Whole groups into two halves of about equal question counts: groups in the order
    of a hash of their name (not chosen by anyone), each into the half that has fewer
    questions so far (the report half on a tie); the first ``holdout`` groups in that
    order are held out instead (read once, at the end)."""
    counts: dict[str, int] = {}
    for q in questions:
        counts[q.group] = counts.get(q.group, 0) + 1
    order = sorted(counts, key=lambda g: hashlib.sha256(f"{name}/{g}".encode()).hexdigest())
    halves: dict[str, list[str]] = {h: [] for h in HALVES}
    if holdout:
        halves[HOLDOUT], order = sorted(order[:holdout]), order[holdout:]
    size = dict.fromkeys(HALVES, 0)
    for g in order:
        half = "tuning" if size["tuning"] < size["report"] else "report"
        halves[half].append(g)
        size[half] += counts[g]
    return {h: sorted(gs) for h, gs in halves.items()}


def read_split(path: Path = SPLIT_FILE) -> dict[str, dict[str, list[str]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    sets: dict[str, dict[str, list[str]]] = data["sets"]
    return sets


def with_halves(
    name: str, questions: Iterable[Question], split: dict[str, dict[str, list[str]]]
) -> list[Question]:
    """The questions with their half; a group the split does not know is an error (the
    split is never re-drawn silently)."""
    where = {g: h for h, gs in split[name].items() for g in gs}
    out = []
    for q in questions:
        if q.group not in where:
            raise ValueError(f"{name}: group {q.group!r} is not in {SPLIT_FILE.name}")
        out.append(replace(q, half=where[q.group]))
    return out


def write_split(
    qa_root: Path, names: Sequence[str] = (), path: Path = SPLIT_FILE
) -> dict[str, dict[str, list[str]]]:
    """Draw the split once (run by hand; the file is committed): of every set, or with
    ``names`` of those sets only, the others kept as the file has them (a set's split is
    never re-drawn). Returns the sets as written."""
    old = read_split(path) if names and path.is_file() else {}
    sets = {}
    for name, (sub, loader) in LOADERS.items():
        if names and name not in names:
            if name in old:
                sets[name] = old[name]
            continue
        sets[name] = make_split(name, loader(qa_root / sub)[1], HELD_OUT.get(name, 0))
    held = ", ".join(f"{k}: the first {v}" for k, v in HELD_OUT.items())
    doc = {
        "method": (
            "scripts/eval/qa_sets.py make_split: whole groups (company for filings, corpus file "
            "or article otherwise) in sha256 order, each to the half with fewer questions so "
            f"far; groups held out, first in that order ({held})"
        ),
        "sets": sets,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    return sets


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="draw the split of the named sets once")
    ap.add_argument("sets", nargs="+", choices=list(LOADERS))
    ap.add_argument("--qa-root", type=Path, required=True, help="e.g. $FOLIO_DATA/corpus/qa")
    args = ap.parse_args()
    got = write_split(args.qa_root, args.sets)
    print(json.dumps({k: {h: len(g) for h, g in v.items()} for k, v in got.items()}))
