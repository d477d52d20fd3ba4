"""The agent ranking's lexical index: BM25 over the snippets of every complete document,
with library-wide statistics, kept on disk with ``tantivy`` (Lucene's design: immutable
segments, deletes, and a ``meta.json`` committed atomically).

Typesense stays the store; this index is derived from it and kept beside it
(``$FOLIO_HOME/lexical/<store>/``, see ``side_index``). Every row is a snippet: its
stemmed ``retrieval_text`` (``body``) and its lead (``lead``, the path and table caption,
scored as a field of its own; the caption alone as ``caption``, see ``LEAD_ONCE``), with
the fields filters use. The first snippet of each
document also carries the document's catalog entry (title, path, format, snippet count,
settings), so one commit changes a document's rows and its entry together, and BM25's
statistics count snippets only, as the ranking was measured. Beside tantivy's
``meta.json``, ``folio.json`` says which store generation (``index.generation``) the
index reflects; it names the commit it was written after, so a crash between the two
reads as "behind", never as "current".

Terms are Folio's own (``words``: stopwords out, Snowball stems), handed to tantivy
already split (its ``whitespace`` tokenizer only finds them again), so index and query
see the same terms.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import tantivy

from ..chunk.concepts import prefix_lead, prefix_without
from ..errors import FolioError
from ..shared.pathtext import stored
from .filters import Filters
from .records import DocumentRecord
from .words import words

FORMAT = 5  # of the saved index; another one is rebuilt
# The lead scored as a field of its own, added with this weight: measured with
# scripts/eval/eval_retrieval.py, a question naming a statement ("balance sheet") finds the
# statement's snippets instead of prose that repeats the words (financebench-dev, right
# filing: evidence page in the top 4 snippets 47 -> 79%; chunking-eval unchanged).
LEAD_WEIGHT = 1.0
# Whether a lead counts once: of the snippets that share one, only the best-scored among
# those found keeps the lead's score, the others are ranked by their body (and the title
# pull). A lead is the snippet's path, the same in each snippet of a story: a story titled
# "The Toad Woman" put every one of its snippets above any other story's best for "Where
# did the old woman live?", filling a context with one story that was not the answer.
# A snippet whose table caption holds one of the question's terms keeps its lead: a
# statement cut into several snippets is one table, and the part that answers is any of
# them (the caption is indexed as ``caption`` to know it; FORMAT 5).
LEAD_ONCE = True
# Where a snippet's document title is scored besides the ranking's title pull: 2, in
# its body (the retrieval text's ``[DOC: …]`` and a path that opens with the title) and
# its lead; 1, in its body only; 0, nowhere else (once per document, by the pull, weighted
# by how rare each word is in the rest of the library). Measured leave-one-set-out, see
# docs/design.md. It changes what the index holds: FORMAT goes up with it.
TITLE_TERMS = 1
# Whether a snippet's body carries its section's concepts (the retrieval text's
# ``[CONCEPTS: …]``, the section's most distinctive terms, the same in each of its
# snippets). Measured leave-one-set-out (no signal either way: it stays), see
# docs/design.md; FORMAT goes up with it.
CONCEPT_TERMS = True
META_FILE = "folio.json"
HEAP = 64_000_000  # the writer's indexing buffer (tantivy's minimum is 15 MB)
SNIPPET_FIELDS = (
    "id,doc_id,parent_id,chunk_index,retrieval_text,content_hints,contains_table,"
    "page_start,page_end"
)


class DamagedIndex(FolioError):
    """The index on disk cannot be read or disagrees with itself."""


class UnwritableIndex(FolioError):
    """The index's folder refuses a write (a full disk, a read-only or immutable folder):
    the index stays as last committed, and readers still read it."""


@contextlib.contextmanager
def _writes(path: Path) -> Iterator[None]:
    # tantivy says a failed write as ValueError; it is the folder's fault, not damage.
    try:
        yield
    except (ValueError, OSError) as exc:
        raise UnwritableIndex(f"lexical index at {path} cannot be written: {exc}") from exc


@dataclass(frozen=True, slots=True)
class DocInfo:
    """A complete document as the index knows it (from its ``folio_documents`` record)."""

    doc_id: str
    title: str
    path: str
    format: str
    snippets: int
    config: str

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> DocInfo:
        return cls(
            str(record["doc_id"]),
            str(record.get("title") or ""),
            str(record.get("path") or ""),
            str(record.get("format") or ""),
            int(record.get("snippets") or 0),
            str(record.get("config") or ""),
        )

    @classmethod
    def of_record(cls, record: DocumentRecord) -> DocInfo:
        """``of`` the record typed (its path as the store holds it)."""
        return cls(
            record.doc_id,
            record.title or "",
            stored(record.path) if record.path else "",
            record.format or "",
            record.snippets or 0,
            record.config or "",
        )

    def key(self) -> tuple[str, int, str, str, str]:
        """What a document's rows follow from besides its bytes (the doc_id names those):
        the settings and count its snippets were made with, and what the rows carry of
        the file (format for the filter; path and title for the title pull), which a
        rename or a copy made keeper changes without changing the content."""
        return (self.config, self.snippets, self.path, self.format, self.title)


@dataclass(frozen=True, slots=True)
class Meta:
    generation: int  # commits of this index
    store_generation: str  # the store's state (``generation.of``) the index reflects


@dataclass(frozen=True, slots=True)
class Match:
    """One scored snippet."""

    id: str
    doc_id: str
    parent: str
    order: int  # chunk_index
    score: float


def _schema() -> Any:
    sb = tantivy.SchemaBuilder()
    for name in ("head", "id", "doc_id", "hints", "format"):
        sb.add_text_field(name, stored=name in ("id", "doc_id"), tokenizer_name="raw")
    sb.add_bytes_field("parent", stored=True)
    sb.add_unsigned_field("order", stored=True)
    for name in ("body", "lead", "caption"):
        sb.add_text_field(name, tokenizer_name="whitespace", index_option="freq")
    sb.add_boolean_field("table", indexed=True)
    for name in ("page_start", "page_end"):
        sb.add_integer_field(name, indexed=True)
    sb.add_bytes_field("info", stored=True)
    return sb.build()


SCHEMA = _schema()
_Q = tantivy.Query


def _term(field: str, value: str | bool) -> Any:
    return _Q.term_query(SCHEMA, field, value)


def _any(queries: Sequence[Any]) -> Any:
    return _Q.boolean_query([(tantivy.Occur.Should, q) for q in queries])


class LexicalIndex:
    """A reader of the index at ``path``: ``refresh`` sees the last commit (cheap when
    nothing changed), ``search`` ranks snippets."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._index = tantivy.Index.open(str(path))
        except (ValueError, OSError) as exc:
            raise DamagedIndex(f"lexical index at {path} cannot be opened: {exc}") from exc
        self.meta = Meta(-1, "")
        self._commit = -1
        self.docs: tuple[DocInfo, ...] = ()
        self.refresh()

    def refresh(self) -> Meta:
        """Load the last commit; the catalog is read again only when it changed."""
        try:
            commit = _opstamp(self.path)
            self._index.reload()
            searcher = self._index.searcher()
            if commit != self._commit:
                self.docs = _read_docs(searcher)
                _check(searcher, self.docs)
                self._commit = commit
            self.meta = read_meta(self.path, commit)
        except (ValueError, OSError, KeyError, TypeError) as exc:
            raise DamagedIndex(f"lexical index at {self.path} cannot be read: {exc}") from exc
        self._searcher = searcher
        return self.meta

    def __len__(self) -> int:
        return sum(d.snippets for d in self.docs)

    def ids(self) -> list[str]:
        """Every snippet id in the index (for checks: it reads every row)."""
        n = self._searcher.num_docs
        hits = self._searcher.search(_Q.all_query(), n).hits if n else []
        return [self._searcher.doc(a).to_dict()["id"][0] for _, a in hits]

    def search(
        self,
        terms: Sequence[str],
        lead_terms: Sequence[str],
        boosts: Mapping[str, float],
        filters: Filters,
        k: int,
    ) -> list[Match]:
        """The ``k`` best snippets: BM25 of the body for ``terms`` plus the weighted BM25
        of the lead for ``lead_terms`` (a snippet must match one of them; a lead counts
        once, ``LEAD_ONCE``), plus its document's ``boosts`` entry; ties in document and
        chunk order."""
        if not terms or filters.tier not in (None, "snippet"):
            return []
        text = _any([_term("body", t) for t in terms])
        lead = [_term("lead", t) for t in lead_terms]
        matched = _any([text, _Q.boost_query(_any(lead), LEAD_WEIGHT)]) if lead else text
        clauses = [(tantivy.Occur.Must, matched)]
        clauses += [(tantivy.Occur.Must, q) for q in _filter_queries(filters)]
        clauses += [(tantivy.Occur.Should, q) for q in _boost_queries(boosts)]
        # Once a section's other snippets lose their lead's score, snippets below the
        # first k may pass them: read deeper.
        depth = 4 * k + 16 if LEAD_ONCE and lead else k + 16
        try:
            found = self._searcher.search(_Q.boolean_query(clauses), depth, count=False)
            out = [_match(self._searcher.doc(a).to_dict(), float(s)) for s, a in found.hits]
            if LEAD_ONCE and lead and out:
                # Rows are named by their address in the searcher, not loaded again.
                where = {_at(a): m.id for (_, a), m in zip(found.hits, out, strict=True)}
                alone = _Q.boost_query(_any(lead), LEAD_WEIGHT)
                scores = self._among(where, tantivy.Occur.Should, alone)
                caption = _any([_term("caption", t) for t in lead_terms])
                captioned = frozenset(self._among(where, tantivy.Occur.Must, caption))
                out = _lead_once(out, scores, captioned)
        except ValueError as exc:
            raise DamagedIndex(f"lexical index at {self.path} cannot be read: {exc}") from exc
        # Stable order: score, then position (document id, chunk index).
        out.sort(key=lambda m: (-m.score, m.doc_id, m.order))
        return out[:k]

    def _among(
        self, rows: Mapping[tuple[int, int], str], occur: Any, query: Any
    ) -> dict[str, float]:
        """``query``'s score for each of ``rows`` (address -> id) alone: every one of them
        with ``occur`` Should (0 where it does not match), only those it matches with Must."""
        only = _Q.const_score_query(_Q.term_set_query(SCHEMA, "id", list(rows.values())), 0.0)
        query = _Q.boolean_query([(tantivy.Occur.Must, only), (occur, query)])
        found = self._searcher.search(query, len(rows), count=False)
        return {rows[_at(addr)]: float(score) for score, addr in found.hits}

    def elsewhere(self, term: str, doc_ids: Sequence[str]) -> tuple[int, int]:
        """How many snippets outside ``doc_ids`` hold ``term`` in their text, and how
        many snippets lie outside them: how common a title's word is in the rest of
        the library (``rank.focus``)."""
        holders = set(doc_ids)
        outside = len(self) - sum(d.snippets for d in self.docs if d.doc_id in holders)
        query = _Q.boolean_query(
            [
                (tantivy.Occur.Must, _term("body", term)),
                (tantivy.Occur.MustNot, _Q.term_set_query(SCHEMA, "doc_id", list(doc_ids))),
            ]
        )
        try:
            # ``count`` is on the result, though tantivy's type stubs omit it.
            found = getattr(self._searcher.search(query, 1, count=True), "count", 0)
        except ValueError as exc:
            raise DamagedIndex(f"lexical index at {self.path} cannot be read: {exc}") from exc
        return int(found or 0), outside


def _lead_once(
    found: list[Match], lead: Mapping[str, float], captioned: frozenset[str] = frozenset()
) -> list[Match]:
    """``found`` with the lead's score taken off every snippet but the best of those
    that share it (``LEAD_ONCE``) and those whose table caption matched (``captioned``).
    Leads are not stored, so the snippets of a document whose leads score alike share
    one: the same path (a long story's sections all carry its title), or paths that
    match the question's words alike."""
    seen: set[tuple[str, float]] = set()
    out: list[Match] = []
    for m in sorted(found, key=lambda m: (-m.score, m.doc_id, m.order)):
        score = lead.get(m.id, 0.0)
        key = (m.doc_id, round(score, 4))
        if score > 0 and key in seen and m.id not in captioned:
            m = replace(m, score=m.score - score)
        seen.add(key)
        out.append(m)
    return out


def _at(address: Any) -> tuple[int, int]:
    """A row's address in a searcher, as a key."""
    return int(address.segment_ord), int(address.doc)


def _match(row: Mapping[str, list[Any]], score: float) -> Match:
    parent = bytes(row["parent"][0]).decode()
    return Match(row["id"][0], row["doc_id"][0], parent, int(row["order"][0]), score)


def _filter_queries(filters: Filters) -> list[Any]:
    # Filters match without adding to the score.
    out: list[Any] = []
    if filters.doc:
        out.append(_term("doc_id", filters.doc))
    if filters.format:
        out.append(_term("format", filters.format))
    out += [_term("hints", h) for h in filters.hints]
    if filters.has_table is not None:
        out.append(_term("table", filters.has_table))
    integer = tantivy.FieldType.Integer
    if filters.page_from is not None:
        out.append(_Q.range_query(SCHEMA, "page_end", integer, filters.page_from, None))
    if filters.page_to is not None:
        out.append(_Q.range_query(SCHEMA, "page_start", integer, 0, filters.page_to))
    return [_Q.const_score_query(q, 0.0) for q in out]


def _boost_queries(boosts: Mapping[str, float]) -> list[Any]:
    """One constant-score clause per distinct boost: the documents that share it."""
    by_value: dict[float, list[str]] = {}
    for doc_id, value in boosts.items():
        if value > 0:
            by_value.setdefault(value, []).append(doc_id)
    return [
        _Q.const_score_query(_Q.term_set_query(SCHEMA, "doc_id", sorted(ids)), value)
        for value, ids in by_value.items()
    ]


def _opstamp(path: Path) -> int:
    """The commit tantivy's ``meta.json`` names (-1: none yet)."""
    return int(json.loads((path / "meta.json").read_text(encoding="utf-8")).get("opstamp", -1))


def read_meta(path: Path, commit: int | None = None) -> Meta:
    """``folio.json``: the generations, when it was written after commit ``commit``;
    else (a crash between the two, or no such file) the index counts as behind."""
    commit = _opstamp(path) if commit is None else commit
    try:
        info = json.loads((path / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Meta(0, "")
    if info.get("format") != FORMAT:
        raise ValueError(f"format {info.get('format')!r}, not {FORMAT}")
    if info.get("commit") != commit:
        return Meta(int(info["generation"]), "")
    return Meta(int(info["generation"]), str(info["store_generation"]))


def _read_docs(searcher: Any) -> tuple[DocInfo, ...]:
    query = _term("head", "1")
    n = searcher.search(query, 1, count=True).count
    hits = searcher.search(query, n).hits if n else []
    docs = [DocInfo(**json.loads(bytes(searcher.doc(a).to_dict()["info"][0]))) for _, a in hits]
    return tuple(sorted(docs, key=lambda d: d.doc_id))


def _check(searcher: Any, docs: Sequence[DocInfo]) -> None:
    """The rows agree with the catalog: as many as its documents count, one entry each."""
    expected = sum(d.snippets for d in docs)
    if searcher.num_docs != expected or len({d.doc_id for d in docs}) != len(docs):
        raise ValueError(f"{searcher.num_docs} snippet rows for a catalog of {expected}")


class LexicalWriter:
    """Changes to the index, published together by ``commit``. One writer at a time
    (tantivy locks the folder; Folio's index lock orders its processes first)."""

    def __init__(self, path: Path, create: bool = False) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        try:
            if create:
                self._index = tantivy.Index(SCHEMA, path=str(path), reuse=False)
            else:
                self._index = tantivy.Index.open(str(path))
            self._writer = self._index.writer(HEAP, 1)
            self.meta = Meta(0, "") if create else read_meta(path)
        except (ValueError, OSError, KeyError, TypeError) as exc:
            raise DamagedIndex(f"lexical index at {path} cannot be written: {exc}") from exc

    def docs(self) -> tuple[DocInfo, ...]:
        """The catalog as last committed (checked against the rows)."""
        self._index.reload()
        searcher = self._index.searcher()
        docs = _read_docs(searcher)
        _check(searcher, docs)
        return docs

    def remove(self, doc_id: str) -> None:
        """The document's snippets and catalog entry (applied at commit)."""
        with _writes(self.path):
            self._writer.delete_documents_by_term("doc_id", doc_id)

    def add(self, doc: DocInfo, snippets: Sequence[Mapping[str, Any]]) -> None:
        """A document's snippets (stored chunk records, ``SNIPPET_FIELDS``), the first
        one carrying its catalog entry."""
        self.add_rows(doc, [SnippetRow.of(s, doc.title) for s in snippets])

    def add_rows(self, doc: DocInfo, rows: Sequence[SnippetRow]) -> None:
        """``add`` with the rows made already (by an ingest worker: ``index.terms``)."""
        for n, snippet in enumerate(rows):
            row = _row(snippet, doc.format)
            if n == 0:
                row.add_text("head", "1")
                row.add_bytes("info", json.dumps(asdict(doc)).encode())
            with _writes(self.path):
                self._writer.add_document(row)

    def commit(self, store_generation: str) -> Meta:
        """Publish the changes, then record the generations beside the commit."""
        with _writes(self.path):
            commit = int(self._writer.commit())
            meta = Meta(self.meta.generation + 1, store_generation)
            info = {"format": FORMAT, "commit": commit, **asdict(meta)}
            tmp = self.path / f".{META_FILE}.tmp"
            tmp.write_text(json.dumps(info), encoding="utf-8")
            os.replace(tmp, self.path / META_FILE)
        self.meta = meta
        return meta

    def close(self) -> None:
        with _writes(self.path):
            self._writer.wait_merging_threads()


@dataclass(frozen=True, slots=True)
class SnippetRow:
    """A snippet as its row holds it: what filters and the ranking read, and its terms
    (``snippet_terms``, space-joined)."""

    id: str
    doc_id: str
    parent: str  # "" for none
    order: int  # chunk_index
    hints: tuple[str, ...]
    table: bool
    page_start: int  # -1 for none
    page_end: int
    body: str
    lead: str
    caption: str  # the table caption's terms (``LEAD_ONCE``)

    @classmethod
    def of(cls, snippet: Mapping[str, Any], title: str) -> SnippetRow:
        """The row of a stored snippet (``SNIPPET_FIELDS``) of a document titled so."""
        body, lead, caption = snippet_terms(str(snippet.get("retrieval_text") or ""), title)
        return cls(
            str(snippet["id"]),
            str(snippet["doc_id"]),
            str(snippet.get("parent_id") or ""),
            int(snippet.get("chunk_index") or 0),
            tuple(str(h) for h in snippet.get("content_hints") or ()),
            bool(snippet.get("contains_table")),
            int(snippet.get("page_start", -1)),
            int(snippet.get("page_end", -1)),
            body,
            lead,
            caption,
        )


def _snippet_row(snippet: Mapping[str, Any], doc: DocInfo) -> Any:
    return _row(SnippetRow.of(snippet, doc.title), doc.format)


def _row(snippet: SnippetRow, fmt: str) -> Any:
    row = tantivy.Document()
    row.add_text("id", snippet.id)
    row.add_text("doc_id", snippet.doc_id)
    row.add_bytes("parent", snippet.parent.encode())
    row.add_text("format", fmt)
    row.add_unsigned("order", snippet.order)
    row.add_text("body", snippet.body)
    row.add_text("lead", snippet.lead)
    row.add_text("caption", snippet.caption)
    for hint in snippet.hints:
        row.add_text("hints", hint)
    row.add_boolean("table", snippet.table)
    row.add_integer("page_start", snippet.page_start)
    row.add_integer("page_end", snippet.page_end)
    return row


def terms_settings() -> tuple[int, bool]:
    """What a snippet's terms follow from besides its text and title: terms made under
    other settings (a test or an evaluation sets them) are not used."""
    return (TITLE_TERMS, CONCEPT_TERMS)


def snippet_terms(retrieval_text: str, title: str) -> tuple[str, str, str]:
    """A snippet's body, lead and caption terms as its row holds them (``words``,
    space-joined), from its stored retrieval text and its document's stored title. The
    one computation of them: the sync's, and an ingest worker's (``index.terms``), which
    does the stemming in parallel, beside chunking, instead of after the run."""
    drop = {"DOC"} if TITLE_TERMS < 1 else set()
    drop |= set() if CONCEPT_TERMS else {"CONCEPTS"}
    body = prefix_without(retrieval_text, drop, "" if TITLE_TERMS >= 1 else title)
    lead = prefix_lead(retrieval_text, "" if TITLE_TERMS >= 2 else title)
    caption = prefix_lead(retrieval_text, kinds=("TABLE",))
    return " ".join(words(body)), " ".join(words(lead)), " ".join(words(caption))
