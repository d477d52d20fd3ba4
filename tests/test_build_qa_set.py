"""The covid-qa set (``scripts/devsets/build_qa_set.py``, ``qa_sets.load_covid_qa``): answers
moved to where their text stands, articles not marked cc-by left out, offsets that select
the answer in the Markdown file Folio reads as it is, and the loader's message when the
set is not built."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .helpers import load_script

build = load_script("build_qa_set")
qa = load_script("qa_sets")

ARTICLE = (
    "A Study of Things\n\nhttps://example.org/a\n\nAuthors: X, Y\nLicense: cc-by\n\n"
    "Abstract: Things spread fast.\n\nText: The incubation period is 5 days. "
    "The incubation period is 5 days in children too."
)


def squad(context: str, answers: list[tuple[str, int]]) -> bytes:
    qas = [
        {"question": f"  What {n}?", "id": n, "answers": [{"text": t, "answer_start": s}]}
        for n, (t, s) in enumerate(answers)
    ]
    return json.dumps({"data": [{"paragraphs": [{"context": context, "qas": qas}]}]}).encode()


def test_answers_are_found_near_their_offset_and_select_their_text() -> None:
    exact = ARTICLE.index("Things spread")
    second = ARTICLE.rindex("The incubation")
    src = squad(
        ARTICLE,
        [
            ("Things spread fast.\n\n", exact),  # outer whitespace is left out
            ("The incubation period is 5 days", second - 7),  # off: the nearest one
            ("not in the article", 0),
        ],
    )
    docs, questions, counts = build.build(src)
    (name,) = docs
    text = docs[name].decode()
    assert name == "001-a-study-of-things.md" and text.startswith("# A Study of Things\n")
    assert [q["answer"] for q in questions] == [
        "Things spread fast.",
        "The incubation period is 5 days",
    ]
    for q in questions:
        assert text[q["start"] : q["end"]] == q["answer"]
    assert questions[1]["start"] == second + 2  # the nearer of two occurrences
    assert [q["kind"] for q in questions] == ["abstract", "body"]
    assert questions[0]["question"] == "What 0?" and questions[0]["qtype"] == "what"
    assert counts["answer_not_found"] == 1 and counts["offset_moved"] == 1


def test_articles_not_marked_cc_by_are_left_out() -> None:
    docs, questions, counts = build.build(squad(ARTICLE.replace("cc-by", "none"), [("X", 0)]))
    assert not docs and not questions
    assert counts["not_cc_by"] == 1 and counts["questions_in"] == 1


def test_loader_reads_the_built_set_and_names_the_builder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(qa.EVAL_DATA, str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"build_qa_set\.py"):
        qa.load_covid_qa(tmp_path / "absent")
    docs, questions, _ = build.build(squad(ARTICLE, [("Things spread fast.", 81)]))
    folder = tmp_path / qa.COVID_QA
    (folder / "docs").mkdir(parents=True)
    for name, data in docs.items():
        (folder / "docs" / name).write_bytes(data)
    (folder / "questions.jsonl").write_bytes(build.questions_bytes(questions))
    paths, qs = qa.load_covid_qa(tmp_path / "absent")
    text = paths[0].read_text(encoding="utf-8")
    (q,) = qs
    assert text[q.refs[0][0] : q.refs[0][1]] == q.contents[0] == "Things spread fast."
    assert (q.doc, q.group, q.kind) == (paths[0].stem, paths[0].stem, "abstract")
