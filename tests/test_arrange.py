"""The order in which ranked snippets enter a context (``retrieve.arrange``)."""

from __future__ import annotations

import pytest

from pipeline.retrieve.arrange import arrange, by_document, spans_periods
from pipeline.retrieve.rank import Ranked


def ranked(*docs: str) -> list[Ranked]:
    return [Ranked(f"{d}{n}", float(100 - n), doc_id=d) for n, d in enumerate(docs)]


def test_by_document_takes_each_documents_best_first() -> None:
    got = by_document(ranked("a", "a", "a", "b", "a", "c", "b"), depth=6)
    assert [r.id for r in got] == ["a0", "b3", "c5", "a1", "a2", "a4", "b6"]
    assert [r.id for r in by_document(ranked("a", "a"))] == ["a0", "a1"]


@pytest.mark.parametrize(
    "question",
    [
        "How has Acme's revenue changed over time?",
        "What trends show in the segment's revenue over the reported periods?",
        "Are there changes in its debt across these quarters?",
        "What legal proceedings are disclosed in these 10-Qs?",
    ],
)
def test_questions_about_several_periods(question: str) -> None:
    assert spans_periods(question)


@pytest.mark.parametrize(
    "question",
    [
        "What was Acme's gross margin in the latest quarter?",
        "What is the FY2018 capital expenditure?",
        "Who wrote the report?",
    ],
)
def test_questions_about_one_period_keep_the_ranking(question: str) -> None:
    r = ranked("a", "a", "b")
    assert not spans_periods(question)
    assert arrange(r, question) == r
