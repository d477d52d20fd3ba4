"""Golden JSONL for real documents: any change in output is a reviewed change."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pipeline import chunk_file

from .helpers import assert_invariants

GOLDEN = Path(__file__).parent / "fixtures" / "golden"
ROOT = Path(__file__).parent.parent
DOCS = sorted(p for p in GOLDEN.glob("*.md") if p.name != "LICENSES.md")


@pytest.mark.parametrize("path", DOCS, ids=[p.stem for p in DOCS])
def test_golden(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)  # `source` is the path as given: keep it relative
    chunks = chunk_file(path.relative_to(ROOT))
    assert_invariants(path.read_text(encoding="utf-8"), chunks)
    lines = [json.dumps(c.to_dict(), ensure_ascii=False, sort_keys=True) for c in chunks]
    expected_file = path.with_suffix(".jsonl")
    if os.environ.get("FOLIO_UPDATE_GOLDEN") == "1":
        expected_file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = expected_file.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(expected)
    for got, want in zip(lines, expected, strict=True):
        assert json.loads(got) == json.loads(want)
