"""``folio reindex`` copies every stored document to the next collection version exactly:
text outside ASCII included (Typesense 0.24 drops the bytes of a character that a raw
import body splits across two of its reads)."""

from __future__ import annotations

from pathlib import Path

from pipeline import Library, make_config
from pipeline.index.schema import CHUNKS, DOCUMENTS
from pipeline.index.store import Store
from pipeline.ingest import IngestOptions, ingest

from .test_ingest import assert_stored, stored

CONFIG = make_config()
# every character two or three bytes in UTF-8, so a read boundary falls inside one; and
# characters str.splitlines() would split an exported line at
WORDS = ["naïve", "café’s", "Größe", "déjà—vu", "日本語", "œuvre", "Ærø", "ſtraße", "a\u2028b\x85c"]


def library(root: Path, files: int = 40) -> Path:
    root.mkdir()
    for n in range(files):
        paras = [" ".join(WORDS[(n + i + k) % len(WORDS)] for k in range(60)) for i in range(40)]
        body = "\n\n".join(f"## Teil {i} {n}\n\n{p}" for i, p in enumerate(paras))
        (root / f"doc{n:02}.md").write_text(f"# Buch {n} — ü\n\n{body}\n", encoding="utf-8")
    return root


def test_reindex_keeps_every_character(store: Store, tmp_path: Path) -> None:
    lib = library(tmp_path / "lib")
    report = ingest([str(lib)], CONFIG, store, IngestOptions(workers=1))
    assert len(report.ingested) == 40 and not report.failed
    before, docs_before = stored(store), store.export(DOCUMENTS)
    assert len(before) > 400
    for _ in range(3):  # each copy is another chance for a split character
        swapped = Library(store).reindex()
        assert {alias for alias, _, _ in swapped} == {CHUNKS, DOCUMENTS}
        assert_stored(store, before)
    assert sorted(store.export(DOCUMENTS), key=str) == sorted(docs_before, key=str)
