"""The span metrics of ``scripts/eval_retrieval.py`` on tiny hand-made spans (no server)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "eval_retrieval.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_retrieval", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


ev = _load()


def test_merge_sorts_joins_and_drops_empty() -> None:
    assert ev.merge([(5, 8), (0, 2), (2, 3), (7, 10), (4, 4)]) == [(0, 3), (5, 10)]
    assert ev.length([(0, 10), (5, 15)]) == 15
    assert ev.intersection([(0, 10), (20, 30)], [(5, 25)]) == 10
    assert ev.intersection([], [(0, 5)]) == 0


def test_scores_of_one_chunk_around_one_reference() -> None:
    s = ev.span_scores([(0, 100)], [(10, 30)])
    assert s.recall == 1.0
    assert s.precision == pytest.approx(0.2)
    assert s.iou == pytest.approx(0.2)


def test_scores_partial_overlap_and_miss() -> None:
    s = ev.span_scores([(20, 40)], [(10, 30)])
    assert s.recall == pytest.approx(0.5)
    assert s.precision == pytest.approx(0.5)
    assert s.iou == pytest.approx(10 / 30)
    miss = ev.span_scores([(50, 60)], [(10, 30)])
    assert (miss.recall, miss.precision, miss.iou) == (0.0, 0.0, 0.0)
    empty = ev.span_scores([], [(10, 30)])
    assert (empty.recall, empty.precision, empty.iou) == (0.0, 0.0, 0.0)


def test_overlapping_chunks_count_once_but_not_in_the_paper_variant() -> None:
    # two overlapping chunks: the union is 0..30; the paper's code sums 20 + 20 = 40
    s = ev.span_scores([(0, 20), (10, 30)], [(5, 15), (25, 28)])
    assert s.recall == 1.0
    assert s.precision == pytest.approx(13 / 30)
    assert s.iou == pytest.approx(13 / 30)
    assert s.precision_paper == pytest.approx(13 / 40)
    assert s.iou_paper == pytest.approx(13 / 40)


def test_two_references_one_found() -> None:
    s = ev.span_scores([(0, 10)], [(0, 10), (100, 130)])
    assert s.recall == pytest.approx(10 / 40)
    assert s.precision == 1.0
    assert s.iou == pytest.approx(10 / 40)
    assert s.iou_paper == pytest.approx(10 / 40)


def test_fully_covered_needs_every_reference_inside_the_union() -> None:
    assert ev.fully_covered([(10, 20)], [(0, 15), (15, 30)])  # adjacent items join
    assert not ev.fully_covered([(10, 20)], [(0, 15), (16, 30)])  # one char missing
    assert not ev.fully_covered([(10, 20), (50, 60)], [(0, 30)])
    assert ev.fully_covered([(10, 20), (50, 60)], [(0, 30), (40, 70)])
    assert not ev.fully_covered([(10, 20)], [])


def test_ranks() -> None:
    ranked = [(100, 200), (0, 15), (15, 40)]
    refs = [(10, 30)]
    assert ev.first_hit_rank(ranked, refs) == 2
    assert ev.full_cover_rank(ranked, refs) == 3
    assert ev.first_hit_rank([(100, 200)], refs) is None
    assert ev.full_cover_rank([(0, 15)], refs) is None


def test_percentile_and_mean_sd() -> None:
    xs = [float(x) for x in range(1, 101)]
    assert ev.percentile(xs, 50) == pytest.approx(50.5)
    assert ev.percentile(xs, 95) == pytest.approx(95.05)
    assert ev.percentile([7.0], 95) == 7.0
    assert math.isnan(ev.percentile([], 50))
    m, sd = ev.mean_sd([1.0, 3.0])
    assert (m, sd) == (2.0, 1.0)


def test_spread_samples_the_whole_set_and_alignment_check() -> None:
    qs = [ev.Question(i, f"q{i}", "a" if i < 5 else "b", ((0, 3),), ("abc",)) for i in range(10)]
    picked = ev.spread(qs, 4)
    assert [q.index for q in picked] == [0, 2, 5, 7]
    assert ev.spread(qs, None) == qs
    assert ev.check_alignment(qs, {"a": "abcdef", "b": "abcdef"}) == []
    bad = ev.check_alignment(qs, {"a": "abcdef", "b": "xbcdef"})
    assert [b["question"] for b in bad] == [5, 6, 7, 8, 9]
