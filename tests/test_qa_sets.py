"""The question sets of the retrieval evaluation (``scripts/eval/qa_sets.py``): the docugami
answers' figures and sources, the committed split, and the per-half scoring."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from .helpers import load_script

qa = load_script("qa_sets")
ev = load_script("eval_retrieval")

ANSWER = """Apple's total net sales:

- For the quarter ended June 25, 2022: $82,959 million. (SOURCE: 2022 Q3 AAPL.pdf)
- For the quarter ended July 1, 2023: $81,797 million, a 1.4% decrease. 1. Q3 2023.

SOURCE(S): 2022 Q3 AAPL.pdf, 2023 Q3 AAPL.pdf"""


def test_figures_leave_out_years_dates_numbering_and_sources() -> None:
    assert qa.figures(ANSWER) == {"82,959", "81,797", "1.4"}
    assert qa.figures("EPS of $(0.25) and 12 segments in FY2022") == {"0.25", "12"}
    assert qa.printed_figures("| Net sales | 82,959 | (1,577) | 43.3 % |") == {
        "82,959",
        "1,577",
        "43.3",
    }


def test_docugami_sources_are_the_cited_filings_among_the_glob(tmp_path: Path) -> None:
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for name in ("2022 Q3 AAPL", "2023 Q1 AAPL", "2023 Q3 AAPL", "2023 Q3 INTC"):
        (pdfs / f"{name}.pdf").write_bytes(b"%PDF-1.4")
    rows = [
        ("How did net sales change?", "*AAPL*", "Multi-Doc RAG", "Table", ANSWER),
        ("What was it?", "*2023 Q3 INTC*", "Single-Doc Single-Chunk RAG", "Text", "It was 5."),
    ]
    with (tmp_path / "qna_data.csv").open("w", encoding="utf-8-sig", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["Question", "Source Docs", "Question Type", "Source Chunk Type", "Answer"])
        w.writerows(rows)
    paths, qs = qa.load_docugami(tmp_path)
    assert len(paths) == 4
    assert qs[0].sources == ("2022 Q3 AAPL", "2023 Q3 AAPL")  # cited, not every AAPL filing
    assert (qs[0].qtype, qs[0].kind, qs[0].group) == ("Multi-Doc", "Table", "AAPL")
    assert qs[1].sources == ("2023 Q3 INTC",) and qs[1].group == "INTC"
    assert qs[1].docs == ("2023 Q3 INTC",)


def test_split_keeps_groups_whole_and_is_fixed() -> None:
    qs = [qa.Question(i, "q", "d", group=g) for i, g in enumerate("aaabbcdddde")]
    split = qa.make_split("set", qs)
    assert sorted(split["tuning"] + split["report"]) == ["a", "b", "c", "d", "e"]
    assert not set(split["tuning"]) & set(split["report"])
    assert qa.make_split("set", qs) == split  # nobody's choice: the same every time
    halves = qa.with_halves("set", qs, {"set": split})
    assert {q.half for q in halves if q.group == "d"} in ({"tuning"}, {"report"})
    with pytest.raises(ValueError, match="not in"):
        qa.with_halves("set", [qa.Question(0, "q", "d", group="z")], {"set": split})


def test_committed_split_covers_every_set() -> None:
    split = qa.read_split()
    assert set(split) == set(qa.LOADERS)
    for halves in split.values():
        assert halves["tuning"] and halves["report"]
        assert not set(halves["tuning"]) & set(halves["report"])


def test_answer_metrics_read_items_of_the_source_filings() -> None:
    q = qa.Question(0, "q", "A", answer=ANSWER, sources=("A", "B"))
    items = [ev.Item("A", 0, 1, "Net sales 82,959 total"), ev.Item("C", 0, 1, "81,797 1.4")]
    got = ev.score(q, items, {})
    assert got["figure_recall"] == pytest.approx(1 / 3)  # 81,797 is in another filing's item
    assert got["all_sources"] == 0.0 and got["doc_hit"] == 1.0
    both = [*items, ev.Item("B", 0, 1, "81,797 decrease")]
    assert ev.score(q, both, {})["all_sources"] == 1.0
    plain = qa.Question(0, "q", "A", answer="Nothing to count here.", sources=("A",))
    assert math.isnan(ev.score(plain, items, {})["figure_recall"])
    assert ev.mean([1.0, math.nan, 0.0]) == 0.5
