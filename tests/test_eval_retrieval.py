"""The metrics and baseline pieces of ``scripts/eval/eval_retrieval.py`` on tiny inline inputs
(no server, no shared corpus)."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from pipeline import extract_file

from .helpers import load_script

ev = load_script("eval_retrieval")
qa = load_script("qa_sets")


class WordCounter:
    """One token per whitespace-separated word: additive at whitespace, like WordPiece."""

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(t.split()) for t in texts]


# --------------------------------------------------------------------------- spans


def test_merge_sorts_joins_and_drops_empty() -> None:
    assert ev.merge([(5, 8), (0, 2), (2, 3), (7, 10), (4, 4)]) == [(0, 3), (5, 10)]
    assert ev.length([(0, 10), (5, 15)]) == 15
    assert ev.intersection([(0, 10), (20, 30)], [(5, 25)]) == 10
    assert ev.intersection([], [(0, 5)]) == 0


def test_scores_partial_overlap_miss_and_overlapping_chunks() -> None:
    s = ev.span_scores([(20, 40)], [(10, 30)])
    assert (s.recall, s.precision, s.iou) == pytest.approx((0.5, 0.5, 10 / 30))
    miss = ev.span_scores([(50, 60)], [(10, 30)])
    assert (miss.recall, miss.precision, miss.iou) == (0.0, 0.0, 0.0)
    # two overlapping chunks count once: the union is 0..30
    s = ev.span_scores([(0, 20), (10, 30)], [(5, 15), (25, 28)])
    assert s.recall == 1.0
    assert s.precision == pytest.approx(13 / 30)
    assert s.iou == pytest.approx(13 / 30)


def test_refs_in_context_needs_90_percent_of_every_reference() -> None:
    assert ev.refs_in_context([(10, 20)], [(0, 15), (15, 30)])  # adjacent items join
    assert ev.refs_in_context([(0, 100)], [(0, 90)])  # exactly 90%
    assert not ev.refs_in_context([(0, 100)], [(0, 89)])
    assert ev.refs_in_context([(0, 100)], [(0, 45), (46, 91)])  # 90 chars in two pieces
    assert not ev.refs_in_context([(10, 20), (50, 60)], [(0, 30)])  # second one missing
    assert not ev.refs_in_context([(10, 20)], [])
    assert ev.refs_in_context([(5, 5)], [])  # an empty reference asks for nothing


# --------------------------------------------------------------------------- text metrics


def test_ngram_coverage_lowercases_words_and_keeps_texts_apart() -> None:
    evidence = "Net cash: (1,577) for PP&E in 2018."
    # words: net cash 1 577 for pp e in 2018 -> 9 words, 5 distinct 5-grams
    assert ev.words(evidence) == ["net", "cash", "1", "577", "for", "pp", "e", "in", "2018"]
    assert ev.ngram_coverage(evidence, ["NET CASH 1,577 for pp-e in 2018"]) == 1.0
    assert ev.ngram_coverage(evidence, ["net cash 1 577 for pp"]) == pytest.approx(2 / 5)
    # split over two items: no 5-gram joins the end of one to the start of the next, so
    # only "for pp e in 2018" (wholly in the second) is found
    assert ev.ngram_coverage(evidence, ["net cash 1 577", "for pp e in 2018"]) == 0.2
    assert ev.ngram_coverage(evidence, []) == 0.0


def test_ngram_coverage_short_and_empty_evidence() -> None:
    assert ev.ngram_coverage("Total assets", ["the total assets were"]) == 1.0
    assert ev.ngram_coverage("Total assets", ["total", "assets"]) == 0.0
    assert ev.ngram_coverage("  --  ", ["anything"]) == 1.0


def test_evidence_in_context_needs_every_passage_of_the_right_document() -> None:
    a = "one two three four five six seven eight nine ten"
    b = "alpha beta gamma delta epsilon zeta"
    q = ev.Question(0, "q", "doc", evidence=(ev.Evidence(3, a), ev.Evidence(4, b)))
    both = [ev.Item("doc", 0, 1, a), ev.Item("doc", 5, 6, b)]
    assert ev.evidence_in_context(q, both)
    assert not ev.evidence_in_context(q, both[:1])
    assert not ev.evidence_in_context(q, [ev.Item("other", 0, 1, a + " " + b)])


def test_page_hit_uses_the_items_character_ranges() -> None:
    pages = ((1, 0, 100), (2, 100, 200), (3, 200, 300))
    doc = ev.Doc("doc", Path("doc.pdf"), "sha", "x" * 300, pages)
    q = ev.Question(0, "q", "doc", evidence=(ev.Evidence(2, "e"),))  # 1-based page 2
    assert ev.pages_of((90, 110), pages) == {1, 2}
    assert ev.pages_of((100, 200), pages) == {2}
    assert ev.pages_of((0, 100), pages) == {1}  # end is exclusive
    assert ev.page_hit(q, [ev.Item("doc", 150, 160, "")], doc)
    assert ev.page_hit(q, [ev.Item("doc", 0, 1, ""), ev.Item("doc", 199, 250, "")], doc)
    assert not ev.page_hit(q, [ev.Item("doc", 0, 100, ""), ev.Item("doc", 200, 300, "")], doc)
    assert not ev.page_hit(q, [ev.Item("other", 150, 160, "")], doc)
    assert doc.page_text(2) == "x" * 100
    assert doc.page_text(9) is None


def test_numbers_and_table_rows() -> None:
    assert ev.numbers("PP&E (1,577) (1,373) $ 5,363 12.5% in 2018.") == {
        "(1,577)",
        "(1,373)",
        "5,363",
        "12.5",
        "2018",
    }
    assert ev.is_table_row("| Inventories | (509) | (387) |")
    assert not ev.is_table_row("Inventories (509) (387)")
    text = "Cash flows\n| Capex | (1,577) | (1,373) |\nOther 262 49\n"
    doc = ev.Doc("d", Path("d.pdf"), "sha", text, ((1, 0, len(text)),))
    check = ev.number_check(doc, ev.Evidence(1, "Capex (1,577) (1,373) Other 262 999"))
    assert (check.numbers, check.found, check.lines, check.table_lines) == (4, 3, 2, 1)


# --------------------------------------------------------------------------- baselines


def test_recursive_splitter_offsets_cover_the_text_within_the_limit() -> None:
    text = (
        "Alpha beta gamma.\n\nDelta epsilon zeta eta. Theta iota kappa lambda mu nu xi.\n"
        "Omicron pi rho.\n\n\n\nSigma tau upsilon phi chi psi omega one two three four."
    )
    spans = ev.split_recursive(text, WordCounter(), limit=5)
    assert spans == sorted(spans)
    assert all(a < b and text[a:b] == text[a:b].strip() for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in itertools.pairwise(spans))  # no overlap
    assert all(len(text[a:b].split()) <= 5 for a, b in spans)
    # every word of the text is in exactly one chunk, in order
    assert [w for a, b in spans for w in text[a:b].split()] == text.split()
    assert text[spans[0][0] : spans[0][1]] == "Alpha beta gamma."
    # a paragraph of 11 words is cut at ". " first, then at " "
    assert "Delta epsilon zeta eta." in [text[a:b] for a, b in spans]


def test_recursive_splitter_merges_small_pieces_and_cuts_long_words() -> None:
    text = "a b\n\nc d\n\ne f"
    assert ev.split_recursive(text, WordCounter(), limit=10) == [(0, len(text))]
    assert [text[a:b] for a, b in ev.split_recursive(text, WordCounter(), limit=4)] == [
        "a b\n\nc d",
        "e f",
    ]

    class CharCounter:
        def count_many(self, texts: list[str]) -> list[int]:
            return [len(t.strip()) for t in texts]

    word = "x" * 12
    spans = ev.split_recursive(word, CharCounter(), limit=5)
    assert [b - a for a, b in spans] == [5, 5, 2]
    assert ev.split_recursive("", WordCounter()) == []
    assert ev.split_recursive(" \n\n ", WordCounter()) == []


def test_pack_skips_what_does_not_fit_and_keeps_going() -> None:
    costs = [500, 900, 300, 200, 100]
    assert ev.pack([1, 0, 2, 3, 4], costs, 1000) == [1, 4]  # 900, then only 100 fits
    assert ev.pack([0, 1, 2, 3, 4], costs, 1000) == [0, 2, 3]  # exactly full: stop
    assert ev.pack([0, 1], costs, 100) == []
    assert ev.pack([], costs, 1000) == []


def test_rrf_fuses_ranks() -> None:
    # 7: 1/61 + 1/62; 3: 1/62 + 1/61 (tie, by index); 5: 1/63; 9: 1/63
    assert ev.rrf([[7, 3, 5], [3, 7, 9]]) == [3, 7, 5, 9]
    assert ev.rrf([[1, 2, 3]], depth=2) == [1, 2]


def test_bm25_baseline_ranks_matching_chunks_only() -> None:
    texts = ["the cat sat on the mat", "capital expenditures rose", "dogs run in parks"]
    rank = ev.bm25_ranker(texts, stem=False)
    assert rank("capital expenditures in 2018") == [1]
    assert rank("the") == []  # a stop word only
    stemmed = ev.bm25_ranker(texts, stem=True)
    assert stemmed("capital expenditure") == [1]  # the stem joins singular and plural
    assert rank("capital expenditure") == [1]
    assert rank("expenditure") == []


def test_dense_baseline_ranks_by_cosine() -> None:
    np = pytest.importorskip("numpy")

    class Fake:
        def embed(self, texts: list[str], kind: str = "passage") -> object:
            vecs = [[1.0, 0.0] if "a" in t else [0.0, 1.0] for t in texts]
            return np.asarray(vecs, dtype=np.float32)

    fake = Fake()
    matrix = ev.embed_all(fake, ["b", "a", "b a"], batch=2)
    assert matrix.shape == (3, 2)
    assert ev.dense_ranker(fake, matrix)("a") == [1, 2, 0]


# --------------------------------------------------------------------------- statistics


def test_bootstrap_ci_is_seeded_and_brackets_the_mean() -> None:
    diffs = [0.0] * 50 + [100.0] * 50
    d, lo, hi = ev.bootstrap_ci(diffs, resamples=2000, seed=1)
    assert d == 50.0
    assert 35 < lo < 50 < hi < 65
    assert ev.bootstrap_ci(diffs, resamples=2000, seed=1) == (d, lo, hi)
    assert ev.bootstrap_ci([3.0] * 10, resamples=100) == (3.0, 3.0, 3.0)
    assert all(math.isnan(x) for x in ev.bootstrap_ci([]))


def test_percentile_and_mean() -> None:
    xs = [float(x) for x in range(1, 101)]
    assert ev.percentile(xs, 50) == pytest.approx(50.5)
    assert ev.percentile(xs, 95) == pytest.approx(95.05)
    assert math.isnan(ev.percentile([], 50))
    assert ev.mean([1.0, 3.0]) == 2.0
    assert math.isnan(ev.mean([]))


def test_spread_samples_the_whole_set_and_alignment_check() -> None:
    qs = [ev.Question(i, f"q{i}", "a" if i < 5 else "b", ((0, 3),), ("abc",)) for i in range(10)]
    assert [q.index for q in ev.spread(qs, 4)] == [0, 2, 5, 7]
    assert ev.spread(qs, None) == qs
    assert ev.check_alignment(qs, {"a": "abcdef", "b": "abcdef"}) == []
    bad = ev.check_alignment(qs, {"a": "abcdef", "b": "xbcdef"})
    assert [b["question"] for b in bad] == [5, 6, 7, 8, 9]


def test_score_picks_the_metrics_of_the_question() -> None:
    span_q = ev.Question(0, "q", "a", ((0, 10),), ("x",))
    got = ev.score(span_q, [ev.Item("a", 0, 10, ""), ev.Item("b", 0, 10, "")], {})
    assert got == {"ref_in_context": 1.0, "ref_recall": 1.0, "doc_hit": 1.0}
    assert ev.score(span_q, [ev.Item("b", 0, 10, "")], {})["ref_in_context"] == 0.0
    assert ev.score(span_q, [], {})["doc_hit"] == 0.0


def test_baseline_methods_pack_each_ranking_under_the_budget() -> None:
    np = pytest.importorskip("numpy")

    class Fake:
        def embed(self, texts: list[str], kind: str = "passage") -> object:
            vecs = [[1.0, 0.0] if "cat" in t else [0.0, 1.0] for t in texts]
            return np.asarray(vecs, dtype=np.float32)

    texts = ["the cat sat", "dogs bark loudly", "a cat and dogs"]
    chunks = ev.Chunks(tuple(ev.Item("d", i, i + 1, t) for i, t in enumerate(texts)), (3, 3, 4))
    methods = {m.name: m for m in ev.baseline_methods(chunks, Fake(), None, lambda _: None)}
    assert list(methods) == ["BM25", "BM25+stem", "dense", "RRF(BM25,dense)"]
    for m in methods.values():
        packed = m.run("cat dogs", [3, 7])
        assert packed[3].tokens <= 3 and packed[7].tokens <= 7
        assert [it.text for it in packed[3].items] == ["the cat sat"]
    assert ev.baseline_methods(chunks, None, None, lambda _: None)[-1].name == "BM25+stem"


def test_chunk_vectors_are_cached_per_model_and_texts(tmp_path: Path) -> None:
    np = pytest.importorskip("numpy")
    calls: list[int] = []

    class Fake:
        name = "fake/1"

        def embed(self, texts: list[str], kind: str = "passage") -> object:
            calls.append(len(texts))
            return np.ones((len(texts), 2), dtype=np.float32)

    first = ev.chunk_vectors(Fake(), ["a", "b"], tmp_path)
    again = ev.chunk_vectors(Fake(), ["a", "b"], tmp_path)
    assert calls == [2] and (first == again).all()
    ev.chunk_vectors(Fake(), ["a", "c"], tmp_path)  # other texts: embedded anew
    assert calls == [2, 2]


def test_evidence_text_is_located_in_the_extracted_text_even_under_a_heading_mark() -> None:
    text = "# Book\n\n## Tale\n\nOnce upon a time.\n\n# 'A song line,\n\nThe end."
    q = ev.Question(0, "q", "book", contents=("Once upon a time.\n\n'A song line,",))
    (got,) = ev.with_refs([q], {"book": text})
    assert got.refs == ((text.index("Once"), text.index(",\n\nThe") + 1),)
    assert got.contents == (text[got.refs[0][0] : got.refs[0][1]],) and got.missing == 0
    lost = ev.with_refs([ev.Question(1, "q", "book", contents=("Not there.",))], {"book": text})
    assert lost[0].refs == () and lost[0].missing == 1


def test_a_split_with_a_holdout_keeps_whole_groups_out_of_both_halves() -> None:
    qs = [ev.Question(n, "q", f"g{n % 6}", group=f"g{n % 6}") for n in range(60)]
    split = qa.make_split("set", qs, holdout=2)
    assert len(split["holdout"]) == 2
    groups = [g for gs in split.values() for g in gs]
    assert sorted(groups) == [f"g{n}" for n in range(6)]  # each group in one part only
    assert qa.make_split("set", qs, holdout=2) == split  # drawn, not chosen
    plain = qa.make_split("set", qs)
    assert "holdout" not in plain and sorted(plain["tuning"] + plain["report"]) == sorted(groups)


def test_fairytale_books_are_written_once_in_each_format(tmp_path: Path) -> None:
    # a section of Gutenberg's wrapped lines, a blank line between paragraphs; and one
    # without a blank line, a paragraph a line
    soldier = qa._paragraphs("One leg\nonly.\n\nA  boat.")
    assert soldier == [["One leg", "only."], ["A boat."]]
    flax = qa._paragraphs("Blue flowers.\nThe end.")
    assert flax == [["Blue flowers."], ["The end."]]
    stories = [("brave-tin-soldier", [soldier]), ("flax", [flax])]
    fmts = {}
    for fmt in qa.BOOK_FORMATS:
        path = qa._write_book("test-fairybook", stories, fmt)
        fmts[fmt] = path.read_bytes()
        if fmt == "epub":  # Folio reads it by its nav: a chapter per story
            text = extract_file(path).text
            want = (
                "# Brave Tin Soldier\n\nOne leg only.\n\nA boat.\n\n"
                "# Flax\n\nBlue flowers.\n\nThe end.\n"
            )
            assert text == want
        assert qa._write_book("test-fairybook", stories, fmt).read_bytes() == fmts[fmt]
        path.unlink()
    assert b"## Brave Tin Soldier\n\nOne leg\nonly.\n\nA boat." in fmts["md"]
    assert b"BRAVE TIN SOLDIER\n\n\nOne leg\nonly." in fmts["txt"]
    assert fmts["epub"].startswith(b"PK") and b"mimetypeapplication/epub+zip" in fmts["epub"]
