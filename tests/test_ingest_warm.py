"""What an ingest's workers share: the estimator's model, the stemmer and the PDF reader
built once in the ingesting process before they fork (``ingest.warm``), with the same
results as a worker that builds them itself."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pipeline import make_config
from pipeline.ingest import Found, Job, Pool, process_file
from pipeline.ingest.files import file_sha256
from pipeline.ingest.warm import forks

ROOT = Path(__file__).resolve().parent.parent
PDF = ROOT / "tests" / "fixtures" / "extract" / "pdflatex-outline.pdf"

# Run in a fresh interpreter: this test process may have built or imported them already.
_PROBE = """
import sys
from pipeline import make_config
from pipeline.chunk import tokens
from pipeline.index import words
from pipeline.ingest import Found, Job
from pipeline.ingest.warm import warm
warm(Job(make_config(), "fp"), [Found(sys.argv[1], "0" * 64, 1)])
print(tokens._model.cache_info().currsize, words._stemmer.cache_info().currsize,
      "pipeline.extract.pdf.reader" in sys.modules)
"""


@pytest.mark.parametrize(("name", "reader"), [("a.pdf", "True"), ("notes.md", "False")])
def test_warm_builds_the_model_and_the_stemmer_and_imports_the_reader_for_pdfs(
    name: str, reader: str
) -> None:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, name], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.split() == ["1", "1", reader]


@pytest.mark.skipif(not forks(), reason="workers start from nothing: nothing is shared")
def test_workers_forked_warm_give_the_results_of_a_file_processed_in_line(tmp_path: Path) -> None:
    copies = []
    for i in range(3):  # three files for two workers: one takes a second file
        copy = tmp_path / f"copy{i}.pdf"
        copy.write_bytes(PDF.read_bytes() + b"\n" * i)  # distinct hashes, same text
        copies.append(Found(str(copy), file_sha256(copy), copy.stat().st_size))
    job = Job(make_config(), "fingerprint")
    pooled = {r.path: r for r in Pool(workers=2)(copies, job)}
    for work in copies:
        alone = process_file(work, job)
        got = pooled[work.path]
        assert got.failure is None and alone.failure is None
        assert got.chunks == alone.chunks  # the encoded lines, byte for byte
        assert got.terms == alone.terms
        assert got.record is not None and alone.record is not None
        assert got.record.to_store() | {"ingested_at": 0} == alone.record.to_store() | {
            "ingested_at": 0
        }
