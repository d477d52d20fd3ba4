"""The order in which ranked snippets enter a context (``retrieve.arrange``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pipeline.chunk.concepts import retrieval_prefix
from pipeline.index import lexical
from pipeline.index.filters import Filters
from pipeline.index.lexical import DocInfo, LexicalIndex, LexicalWriter
from pipeline.index.words import words
from pipeline.retrieve.arrange import arrange, by_document, covered, series, spans_periods
from pipeline.retrieve.rank import Ranked, focus, named

# the module (``pipeline.retrieve.rank`` is also the name of a function of the package)
RANK = sys.modules[focus.__module__]


def ranked(*docs: str) -> list[Ranked]:
    return [Ranked(f"{d}{n}", float(100 - n), doc_id=d) for n, d in enumerate(docs)]


def test_by_document_takes_each_documents_best_first() -> None:
    got = by_document(ranked("a", "a", "a", "b", "a", "c", "b"), depth=6)
    assert [r.id for r in got] == ["a0", "b3", "c5", "a1", "a2", "a4", "b6"]
    assert [r.id for r in by_document(ranked("a", "a"))] == ["a0", "a1"]


def test_by_document_reads_cover_depth_when_called(monkeypatch: pytest.MonkeyPatch) -> None:
    # eval_loso.py varies the constant with setattr: a default bound when the function
    # was defined would keep the old value
    monkeypatch.setattr(sys.modules[by_document.__module__], "COVER_DEPTH", 2)
    got = by_document(ranked("a", "a", "b", "c"))
    assert [r.id for r in got] == ["a0", "a1", "b2", "c3"]
    monkeypatch.setattr(sys.modules[by_document.__module__], "COVER_DEPTH", 4)
    assert [r.id for r in by_document(ranked("a", "a", "b", "c"))] == ["a0", "b2", "c3", "a1"]


def test_by_document_spreads_only_the_documents_among() -> None:
    got = by_document(ranked("a", "x", "a", "b", "x", "b"), depth=6, among={"a", "b"})
    assert [r.id for r in got] == ["a0", "b3", "a2", "b5", "x1", "x4"]


def test_a_question_about_several_periods_covers_each_named_document() -> None:
    r = ranked("a", "a", "x", "b", "a", "b")
    question = "How has Acme's revenue changed over the reported quarters?"
    assert [x.id for x in arrange(r, question, {"a", "b"})] == ["a0", "b3", "a1", "b5", "a4", "x2"]


@pytest.mark.parametrize("names", [(), ("a",)])
def test_periods_of_what_no_document_or_one_names_keep_the_ranking(names: tuple[str, ...]) -> None:
    # "the first three years mentioned in the address" is about one document: spreading
    # it over the other documents of the top 20 pushed the address's next snippet out.
    r = ranked("a", "x", "y", "a", "z")
    question = "How many new jobs were created in the first three years of the address?"
    assert spans_periods(question)
    assert arrange(r, question, names) == r


def doc(doc_id: str, title: str, path: str) -> DocInfo:
    return DocInfo(doc_id, title, path, "pdf", 10, "")


def test_named_documents_are_those_named_at_least_half_as_strongly_as_the_most() -> None:
    docs = [
        doc("apple1", "Form 10-Q quarter ended July 1, 2023", "2023 Q3 AAPL.pdf"),
        doc("apple2", "Form 10-Q quarter ended April 1, 2023", "2023 Q2 AAPL.pdf"),
        doc("intel", "10-Q Intel Corporation", "2023 Q3 INTC.pdf"),
        doc("amzn", "Form 10-Q quarter ended June 30, 2023", "2023 Q2 AMZN.pdf"),
        doc("book", "A History of the Apple Orchard", "orchard.epub"),
    ]
    assert named(docs, "How has AAPL's revenue changed over the quarters?") == {"apple1", "apple2"}
    assert named(docs, "What trends show in revenue over the reported periods?") == frozenset()


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


REPORTS = [
    doc("q1", "Acme quarterly report Q1", "acme-q1.md"),
    doc("q2", "Acme quarterly report Q2", "acme-q2.md"),
    doc("q3", "Acme quarterly report Q3", "acme-q3.md"),
    doc("hockey", "2010 hockey season", "hockey.md"),
    doc("speech", "State of the Union address", "state_of_the_union.md"),
]


def test_a_series_is_the_documents_titled_alike_numbers_aside() -> None:
    assert series(REPORTS, "q2") == {"q1", "q2", "q3"}
    assert series(REPORTS, "speech") == {"speech"}


def test_periods_cover_what_the_question_names_else_the_best_documents_series() -> None:
    # Names none: the series of the best-ranked document.
    assert covered(REPORTS, "How have net sales changed over the quarters?", "q1") == {
        "q1",
        "q2",
        "q3",
    }
    assert covered(REPORTS, "How many jobs were created in the first three years?", "speech") == {
        "speech"
    }
    # Names some: those, whatever ranked first.
    assert covered(REPORTS, "How did hockey seasons change over the years?", "q1") == {"hockey"}


def test_a_period_alone_pulls_with_its_share(monkeypatch: pytest.MonkeyPatch) -> None:
    """A question that names its company by a form its filing's title lacks ("AMD") and a
    period other titles carry ("FY2022") pulled every 2022 filing but the one it is about:
    ``PERIOD_ALONE`` is the share of that pull a document keeps."""
    monkeypatch.setattr(RANK, "PERIOD_ALONE", 0.0)
    docs = [
        doc("amd", "Advanced Micro Devices, Inc. — Form 10-K", "ADVANCEDMICRO_2022_10K.pdf"),
        doc("pep", "PepsiCo, Inc. — Form 10-K fiscal year 2022", "PEPSICO_2022_10K.pdf"),
        doc("nke", "NIKE, Inc. — Form 10-K", "NIKE_2022_10K.pdf"),
        doc("mmm", "3M Company — Form 10-K", "3M_2018_10K.pdf"),
        doc("mmm2", "3M Company — Form 10-K", "3M_2019_10K.pdf"),
    ]
    assert focus(docs, words("What was AMD's FY2022 revenue growth?")) == {}
    assert named(docs, "What was AMD's revenue in Q4 of FY2022?") == frozenset()
    # with its subject named, the period still chooses among the subject's documents
    pulls = focus(docs, words("What was 3M's capital expenditure in FY2018?"))
    assert set(pulls) == {"mmm", "mmm2"} and pulls["mmm"] > pulls["mmm2"]
    assert named(docs, "PepsiCo's FY2022 revenue") == {"pep"}
    monkeypatch.setattr(RANK, "PERIOD_ALONE", 0.5)
    half = focus(docs, words("What was AMD's FY2022 revenue growth?"))
    monkeypatch.setattr(RANK, "PERIOD_ALONE", 1.0)
    whole = focus(docs, words("What was AMD's FY2022 revenue growth?"))
    assert set(half) == set(whole) == {"amd", "pep", "nke"}
    assert all(half[d] == pytest.approx(whole[d] / 2) for d in half)


def small_index(path: Path, texts: dict[str, tuple[str, list[str]]]) -> LexicalIndex:
    """A real lexical index of documents (id -> title, snippet texts)."""
    writer = LexicalWriter(path, create=True)
    for doc_id, (title, bodies) in texts.items():
        snippets = [
            {"id": f"{doc_id}-{n}", "doc_id": doc_id, "chunk_index": n, "retrieval_text": t}
            for n, t in enumerate(bodies)
        ]
        writer.add(DocInfo(doc_id, title, f"{doc_id}.md", "markdown", len(bodies), ""), snippets)
    writer.commit("g")
    writer.close()
    return LexicalIndex(path)


def test_a_title_word_the_whole_library_uses_pulls_little(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Papers on one subject share its words: a question using one ("How were the
    clusters selected?") was pulled to the paper with "cluster" in its title, away from
    the one that answers. A title word pulls by how rare it is in the other documents'
    text; a word only its document uses (a name) keeps nearly all its pull."""
    monkeypatch.setattr(RANK, "NAME_SHARE", 0.0)  # ``rarity`` alone (``as_name``: below)
    common = "Patients in each cluster were tested for the virus."
    texts = {
        "img": ("Imaging of an unusual cluster of pneumonia", [common] * 3),
        "tb": ("Tuberculosis prevalence survey", [common, "Clusters were selected at random."]),
        "flu": ("Influenza in birds", [common, "Birds carry the virus."]),
        "sig": ("Variants in DC-SIGNR and HIV transmission", ["DC-SIGNR binds the virus."] * 2),
    }
    index = small_index(tmp_path / "lex", texts)
    question = words("How were the clusters selected for DC-SIGNR?")
    before = focus(index.docs, question)
    after = focus(index.docs, question, index.elsewhere)
    assert set(before) == set(after) == {"img", "sig"}
    assert after["img"] < 0.3 * before["img"]  # "cluster": every paper's text has it
    assert after["sig"] > 0.8 * before["sig"]  # "dc-signr": only its paper's text
    assert RANK.rarity(0, 10) == 1.0 and RANK.rarity(10, 10) < 0.1


def test_a_subject_the_other_documents_write_about_names_none_of_them(tmp_path: Path) -> None:
    """covid-qa: "How does cell entry differ between SARS-CoV and MERS-CoV?" was pulled
    to the paper titled "...lessons from SARS and MERS", away from the paper that
    answers, whose title names neither: the question writes the viruses as names, and
    the other papers write about them too. A document's name (a company in its
    filings, "DC-SIGNR") is all but absent from the rest of the library; past
    ``NAME_SHARE`` of the other documents' snippets a subject word pulls nothing. A
    period keeps its pull: "2019" chooses among a named subject's documents."""
    filler = {f"f{n}": (f"Survey {n}", [f"Cases counted in ward {n}."] * 5) for n in range(6)}
    texts = {
        "preg": ("Pregnancy: lessons from SARS and MERS in 2019", ["Outcomes were poor."] * 2),
        "host": ("Host resilience", ["SARS-CoV and MERS-CoV enter cells by receptors."] * 2),
        "sig": ("Variants in DC-SIGNR, 2019", ["The receptor binds the virus in 2019."] * 2),
        **filler,
    }
    index = small_index(tmp_path / "lex", texts)
    asked = "How does cell entry differ between SARS-CoV and MERS-CoV?"
    assert set(focus(index.docs, RANK.name_words(asked))) == {"preg"}  # by the titles alone
    assert focus(index.docs, RANK.name_words(asked), index.elsewhere) == {}
    assert RANK.lexical(index, asked, Filters())[0].doc_id == "host"
    asked = "Which DC-SIGNR variants were found in 2019?"
    named = focus(index.docs, RANK.name_words(asked), index.elsewhere)
    assert named["sig"] > named.get("preg", 0.0) > 0  # the name, and the period alone
    assert RANK.as_name(0, 100) == 1.0 and RANK.as_name(1, 100) == 0.0


@pytest.mark.parametrize(
    ("level", "body", "lead"), [(0, [], []), (1, ["flu"], []), (2, ["flu"], ["flu"])]
)
def test_where_a_documents_title_is_scored_besides_its_pull(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, level: int, body: list[str], lead: list[str]
) -> None:
    """Every snippet's retrieval text opens with ``[DOC: title]``, and its path with the
    title when that is the first heading: ``TITLE_TERMS`` says where a title word is
    scored besides the title pull (2: body and lead; 1: body; 0: the pull alone)."""
    monkeypatch.setattr(lexical, "TITLE_TERMS", level)
    monkeypatch.setattr(RANK, "NAME_SHARE", 0.0)  # "obs" writes of influenza too
    title = "Influenza in birds"
    texts = {
        "flu": (title, [retrieval_prefix(title, [title, "Methods"], []) + "We sampled ducks."]),
        "obs": ("Records", [retrieval_prefix("Records", ["Cases"], []) + "Influenza rose."]),
    }
    index = small_index(tmp_path / "lex", texts)
    flu = words("influenza")
    assert {m.doc_id for m in index.search(flu, [], {}, Filters(), 10)} == {"obs", *body}
    assert [m.doc_id for m in index.search(["zzz"], flu, {}, Filters(), 10)] == lead
    method = words("methods")
    assert [m.doc_id for m in index.search(method, method, {}, Filters(), 10)] == ["flu"]
    assert set(focus(index.docs, flu, index.elsewhere)) == {"flu"}


PAPERS = {
    "flu": (
        "It is unlikely that influenza will cause a pandemic again like what happened in 1918",
        ["Influenza pandemics recur, as happened in 1918."] * 3,
    ),
    "who": (
        "A global champion for health: WHO's next fifty years",
        ["An organization is necessary to coordinate outbreak reporting between countries."],
    ),
    "sig": ("Variants in DC-SIGNR and HIV transmission", ["The receptor binds the virus."] * 2),
}


def test_only_a_word_written_as_a_name_pulls_towards_a_title(tmp_path: Path) -> None:
    """A question names a document by a name, written with a capital or a digit; an
    everyday word it shares with a title ("like", "happen") named no paper, yet pulled
    the paper titled "...like what happened in 1918" above the one that answers
    (covid-qa). A question in lower case alone has no case to read: every word pulls."""
    index = small_index(tmp_path / "lex", PAPERS)
    question = "Why might an organization like the WHO be necessary? What happened?"
    assert RANK.lexical(index, question, Filters())[0].doc_id == "who"
    assert RANK.name_words(question) == []  # "WHO" is a stopword; the rest lower case
    # the name still pulls its paper, above the words others repeat
    assert (
        RANK.lexical(index, "What does DC-SIGNR bind, like the virus?", Filters())[0].doc_id
        == "sig"
    )
    assert RANK.name_words("What is 3M's FY2018 capital expenditure in the third quarter?") == [
        *words("3M's FY2018"),
        "quarter",
    ]
    assert RANK.name_words("apple revenue 2022") == words("apple revenue 2022")


def test_every_word_pulls_when_names_only_is_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``NAMES_ONLY`` changes: with it off, the title's everyday words pull."""
    monkeypatch.setattr(RANK, "NAMES_ONLY", False)
    index = small_index(tmp_path / "lex", PAPERS)
    question = "Why might an organization like the WHO be necessary? What happened?"
    assert RANK.lexical(index, question, Filters())[0].doc_id == "flu"


@pytest.mark.parametrize("once", [True, False])
def test_a_path_that_matches_the_question_lifts_one_snippet_of_its_story(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, once: bool
) -> None:
    """Every snippet of a story carries the story's title in its path (the lead): a title
    holding the question's words ("The Toad Woman") put all its snippets above another
    story's passage that answers. With ``LEAD_ONCE`` the lead counts for the story's best
    snippet only."""
    monkeypatch.setattr(lexical, "LEAD_ONCE", once)
    toad = retrieval_prefix("Tales", ["Tales", "The Toad Woman"], [])
    hut = retrieval_prefix("Tales", ["Tales", "The Fisher"], [])
    others = [
        retrieval_prefix("Tales", ["Tales", f"The {name}"], []) + f"The {name} went to town."
        for name in ("king", "miller", "tailor", "goose", "soldier", "giant", "dwarf", "fox")
    ]
    texts = {
        "tales": (
            "Tales",
            [toad + f"The old toad sat by pond {n} and sang all day long." for n in range(4)]
            + [hut + "There she lived, in a hut by the sea, for many long years."]
            + others,
        ),
    }
    index = small_index(tmp_path / "lex", texts)
    question = words("Where did the old woman live?")
    order = [m.id for m in index.search(question, question, {}, Filters(), 10)]
    assert order.index("tales-4") == (1 if once else 4)


def test_each_part_of_a_table_keeps_the_lead_its_caption_earns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A statement cut into snippets carries its caption in each: the part that answers
    may be any of them, so a caption that matches keeps the lead for every part, where
    parts of one path without a caption keep it once."""
    sheet = retrieval_prefix("10-K", ["10-K", "Item 8"], [], "Consolidated Balance Sheets")
    prose = retrieval_prefix("10-K", ["10-K", "Balance sheet review"], [])
    texts = {
        "k": (
            "10-K",
            [
                sheet + "Cash 5,794. Receivables 848.",
                sheet + "Accounts payable 292.",
                prose + "Payables rose.",
                prose + "Accounts payable fell.",
            ],
        ),
    }
    index = small_index(tmp_path / "lex", texts)
    question = words("accounts payable on the balance sheet")

    def scores(once: bool) -> dict[str, float]:
        monkeypatch.setattr(lexical, "LEAD_ONCE", once)
        return {m.id: m.score for m in index.search(question, question, {}, Filters(), 10)}

    every, once = scores(False), scores(True)
    assert [once[i] for i in ("k-0", "k-1", "k-3")] == pytest.approx(
        [every[i] for i in ("k-0", "k-1", "k-3")]
    )
    assert once["k-2"] < every["k-2"]
