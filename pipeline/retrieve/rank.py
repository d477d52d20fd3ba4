"""The agent ranking: BM25 over the whole library, a pull towards the documents a
question names, and (with the dense extra) vector search fused by reciprocal rank."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from ..index.filters import Filters
from ..index.lexical import DocInfo, LexicalIndex
from ..index.words import query_words, runs, words

Mode = Literal["lexical", "dense", "hybrid"]
MODES: tuple[Mode, ...] = ("lexical", "dense", "hybrid")
POOL = 50  # candidates taken from each ranking before fusion
# BM25 points per unit of title match (see ``focus``). A question that names a company or
# a book should be answered from it: at 1.0 another filing that repeats the question's
# words outranked the named one. Measured (scripts/eval/eval_retrieval.py, 2,000 tokens), tuning
# half for the choice, report half to keep it: docugami-10q figure recall, lexical/hybrid,
# weight 1 -> 2 -> 4 -> 8 -> 16: tuning 26.9/43.9 -> 32.2/43.4 -> 38.1/49.9 -> 40.2/50.9 ->
# 39.6/52.1 (a plateau from 8), report 16.3/31.1 -> 35.0/48.2 at 8; financebench-dev
# page-hit at 8: tuning 68.2/77.3 -> 77.3/77.3, report 60.0/68.0 -> 76.0/80.0;
# chunking-eval unchanged (its questions name no document).
FOCUS_WEIGHT = 8.0


@dataclass(frozen=True, slots=True)
class Ranked:
    """One ranked snippet and the signals that put it there."""

    id: str
    score: float
    lexical: float | None = None  # BM25 + title pull
    lexical_rank: int | None = None
    dense: float | None = None  # cosine similarity
    dense_rank: int | None = None
    parent: str = ""  # the snippet's section id
    doc_id: str = ""


# How a title word's pull falls with how common the word is in the text of the rest of
# the library (``focus``): 0 leaves every title word its idf over titles, 1 scales it by
# the word's idf over the other documents' snippets (as a share of the largest possible).
SPREAD = 1.0
# The share of the other documents' snippets that may use a subject word of a title before
# it names no document (``as_name``). covid-qa's questions write the viruses they ask
# about as names ("How does cell entry differ between SARS-CoV and MERS-CoV?") and were
# pulled to the paper whose title says "lessons from SARS, MERS", away from the one that
# answers, whose title names neither: 5-9 % of the other papers' snippets use those
# words, against 0.0-0.25 % for the companies filings are titled by ("Apple", "3M",
# "Microsoft", "Block"). A period is left alone: "2023" is in every filing of the year
# and still chooses among a named company's filings. Left one set out
# (scripts/eval/eval_loso.py, docs/design.md), 0 / 0.01 / 0.03, tuning / report: covid-qa
# lexical 76.5/75.5, 80.5/78.5, 80.0/78.0, hybrid 77.0/74.0, 80.5/76.0, 80.0/74.5; the
# four other sets within a question of 0 on both halves.
NAME_SHARE = 0.01

Elsewhere = Callable[[str, Sequence[str]], tuple[int, int]]


def focus(
    docs: Sequence[DocInfo], terms: Sequence[str], elsewhere: Elsewhere | None = None
) -> dict[str, float]:
    """Per document: how strongly the question names it, as the idf (over documents) of
    the question's terms (``terms``: in question order) found in its title or file
    name. "3M's 2018 capital expenditure" pulls towards the document titled "3M 2018
    10K". A period ("2022", "FY2022", "Q3", "June") names no subject: it chooses among the
    periods of a document whose subject the question also names, and pulls a document
    the question names no subject of with only ``PERIOD_ALONE`` of its weight ("AMD's
    FY2022 revenue" pulled every 2022 filing but AMD's, titled "Advanced Micro Devices").
    With ``elsewhere``, a title word pulls by how rare it is in the other documents'
    text (``rarity``), and a subject word that many of their snippets use names none
    (``as_name``)."""
    n = len(docs)
    names = _names(tuple(docs))
    subject: dict[str, float] = {}
    period: dict[str, float] = {}
    # File names run words together (BESTBUY_2019_10K): joined neighbours match them.
    joined = ["".join(terms[i : i + k]) for k in (2, 3) for i in range(len(terms) - k + 1)]
    for term in dict.fromkeys([*terms, *joined]):
        holders = names.get(term, ())
        if holders and len(holders) < n:
            weight = math.log(1 + (n - len(holders) + 0.5) / (len(holders) + 0.5))
            if elsewhere is not None and (SPREAD or NAME_SHARE):
                found, rows = elsewhere(term, holders)
                weight *= 1 - SPREAD + SPREAD * rarity(found, rows)
                if not is_period(term):
                    weight *= as_name(found, rows)
            if weight <= 0:
                continue
            into = period if is_period(term) else subject
            for doc_id in holders:
                into[doc_id] = into.get(doc_id, 0.0) + weight
    alone = {d: PERIOD_ALONE * w for d, w in period.items() if PERIOD_ALONE and d not in subject}
    return {d: w + period.get(d, 0.0) for d, w in subject.items()} | alone


def as_name(found: int, rows: int) -> float:
    """How far a subject word of a title still names its documents when ``found`` of
    the other documents' ``rows`` snippets use it: 1 when none does (a company in its
    own filings), falling to 0 at ``NAME_SHARE`` of them (a virus every paper of a
    virology library discusses); 1 always when ``NAME_SHARE`` is 0."""
    if not NAME_SHARE or rows <= 0:
        return 1.0
    return max(0.0, 1 - found / rows / NAME_SHARE)


def rarity(found: int, rows: int) -> float:
    """A word's idf over ``rows`` snippets of which ``found`` hold it, as a share of the
    idf of a word none holds: 1 for a word only its titled documents use ("3M", a
    character's name), near 0 for one the whole library uses ("respiratory" in a library
    of virology papers, "2022" among filings of that year)."""
    if rows <= 0:
        return 1.0
    top = math.log(1 + (rows + 0.5) / 0.5)
    return math.log(1 + (rows - found + 0.5) / (found + 0.5)) / top


# The share of a period's pull that a document keeps when the question names no subject of
# its title. 1.0: every title word pulls alike, as before this constant. Left one set out
# over the four dev sets (scripts/eval/eval_loso.py, docs/design.md) no tuning half moved
# between 0, 0.5 and 1, so the value in force stays: the dev questions name their filings
# by title words; the held-out ones that did not are what 0 would be for.
PERIOD_ALONE = 1.0

# The words that name a time rather than a subject, as ``words`` stems them.
_PERIOD_WORDS = frozenset(
    words(
        "january february march april may june july august september october november "
        "december jan feb mar apr jun jul aug sep sept oct nov dec quarter quarterly "
        "annual annually fiscal year years month months ended ending fy q1 q2 q3 q4 h1 h2"
    )
)


def is_period(term: str) -> bool:
    """Whether a term names a time: a number, a month, a period word, or runs of those
    ("fy2022", "2023q2"; "3m" is a name)."""
    return all(r.isdigit() or r in _PERIOD_WORDS or r in ("q", "h") for r in runs(term))


NAMED_SHARE = 0.5  # of the strongest focus, for a document to count as named


def named(docs: Sequence[DocInfo], query: str) -> frozenset[str]:
    """The documents a question names: those it names at least half as strongly as the
    one it names most ("Intel's operating expenses over the quarters": Intel's four
    filings, not every filing whose title shares the word "quarter")."""
    pulls = focus(docs, words(query))
    top = max(pulls.values(), default=0.0)
    return frozenset(d for d, w in pulls.items() if w >= NAMED_SHARE * top > 0)


@lru_cache(maxsize=4)
def _names(docs: tuple[DocInfo, ...]) -> dict[str, tuple[str, ...]]:
    """Each title or file-name term, and the documents it names (built once per
    catalog, not per question)."""
    holders: dict[str, list[str]] = {}
    for d in docs:
        for term in set(words(f"{d.title} {file_stem(d.path)}")):
            holders.setdefault(term, []).append(d.doc_id)
    return {t: tuple(ids) for t, ids in holders.items()}


def file_stem(path: str) -> str:
    """A file's name without folders and extension, ``_`` and ``-`` as spaces."""
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0].replace("_", " ").replace("-", " ")


# Whether only the words a question writes as names (``name_words``) pull towards the
# documents whose titles hold them. covid-qa's papers share everyday title words with the
# questions ("How were the clusters selected?", "...like the WHO...", "happened"): they
# pulled 39 of the 42 questions Folio lexical lost to BM25 to another paper
# (scripts/eval/diag_doc_rank.py). Off -> on, tuning / report halves (eval_loso.py, 2,000
# tokens): covid-qa lexical 63.0/59.5 -> 76.5/75.0, hybrid 66.5/63.5 -> 77.0/73.5; the
# four other sets unchanged on both halves (docs/design.md).
NAMES_ONLY = True
_TOKEN = re.compile(r"\S+")


def name_words(query: str) -> list[str]:
    """The terms of a question that may name a document: those of the words it writes
    with a capital letter or a digit ("3M", "Apple", "DC-SIGNR", "FY2022") and every
    period ("quarter"); all of them when the question has no capital letter at all
    (no case to read: "apple revenue 2022")."""
    if query == query.lower():
        return words(query)
    out: list[str] = []
    for token in _TOKEN.findall(query):
        name = token != token.lower() or any(c.isdigit() for c in token)
        out += [t for t in words(token) if name or is_period(t)]
    return out


def lexical(index: LexicalIndex, query: str, filters: Filters, k: int = POOL) -> list[Ranked]:
    """The ``k`` best snippets by BM25 plus the title pull, best first."""
    terms = query_words(query)
    if not len(index) or not terms:
        return []
    asked = name_words(query) if NAMES_ONLY else words(query)
    pulls = focus(index.docs, asked, index.elsewhere)
    boosts = {d: FOCUS_WEIGHT * w for d, w in pulls.items()}
    found = index.search(terms, lead_terms(query, terms), boosts, filters, k)
    return [
        Ranked(m.id, m.score, m.score, n, parent=m.parent, doc_id=m.doc_id)
        for n, m in enumerate(found, 1)
    ]


# Financial statements are titled in the filing's words, asked for in the reader's: a
# question naming one also looks for the titles filings print (lead field only).
STATEMENT_TITLES = (
    (
        re.compile(r"\b(?:income statements?|statements? of income|p&l|profit and loss)\b", re.I),
        "statements of operations earnings income",
    ),
    (re.compile(r"\bbalance sheets?\b", re.I), "balance sheets statements of financial position"),
    (
        re.compile(r"\bcash ?flows? statements?|statements? of cash ?flows?\b", re.I),
        "statements of cash flows",
    ),
)


def lead_terms(query: str, terms: list[str]) -> list[str]:
    """The terms a snippet's lead is scored on: the question's, plus the printed titles
    of the statements it names."""
    extra = " ".join(title for pattern, title in STATEMENT_TITLES if pattern.search(query))
    return list(dict.fromkeys([*terms, *query_words(extra)])) if extra else terms


@dataclass(frozen=True, slots=True)
class Fusion:
    """Reciprocal-rank fusion settings: ``k`` (a small k trusts the top ranks) and the
    weight of the dense list (the lexical list weighs 1)."""

    k: int
    dense_weight: float


# Measured on both dev QA sets (scripts/eval/eval_retrieval.py): when BM25's best snippet stands
# well above the rest, the question's rare words have found the passage and dense search
# mostly adds noise (chunking-eval); when BM25 is flat, as when a question names a filing
# and asks in words every filing uses, the dense list finds the passage (financebench).
# Each setting is a module constant so that ``scripts/eval/eval_loso.py`` can vary it. Left
# one set out over the five sets (docs/design.md, 2026-11-29): the others' tuning halves
# give every left-out set ``FLAT_DENSE`` 0.5 (it was 0.7; no report half moves beyond its
# interval: docugami-10q -1.7 [-4.7, +0.8], covid-qa +0.5, the rest 0), and ``CLEAR_DENSE``
# 0.3, 0.5 or 0.7 by set with no value ahead: 0.5 stays.
CLEAR_K, CLEAR_DENSE = 10, 0.5
FLAT_K, FLAT_DENSE = 60, 0.5
CLARITY = 1.35  # BM25 best score over the mean of its top 20 that counts as clear
CLARITY_DEPTH = 20


def fusion_for(lexical: Sequence[Ranked]) -> Fusion:
    """The clear settings (``CLEAR_K``, ``CLEAR_DENSE``) or the flat ones by how far the
    best lexical score stands above the others."""
    top = [r.score for r in lexical[:CLARITY_DEPTH]]
    if top and top[0] > 0 and top[0] / (sum(top) / len(top)) >= CLARITY:
        return Fusion(CLEAR_K, CLEAR_DENSE)
    return Fusion(FLAT_K, FLAT_DENSE)


def fuse(
    lexical: Sequence[Ranked], dense: Sequence[Ranked], fusion: Fusion, limit: int = POOL
) -> list[Ranked]:
    """The ``limit`` best by weighted reciprocal-rank fusion of a lexical and a dense list
    (signals of both kept)."""
    merged: dict[str, Ranked] = {}
    scores: dict[str, float] = {}
    for ranked, weight in ((lexical, 1.0), (dense, fusion.dense_weight)):
        for n, r in enumerate(ranked, 1):
            scores[r.id] = scores.get(r.id, 0.0) + weight / (fusion.k + n)
            old = merged.get(r.id)
            merged[r.id] = r if old is None else _combine(old, r)
    order = sorted(merged, key=lambda i: (-scores[i], i))[:limit]
    return [_with_score(merged[i], scores[i]) for i in order]


def _combine(a: Ranked, b: Ranked) -> Ranked:
    return Ranked(
        a.id,
        a.score,
        a.lexical if a.lexical is not None else b.lexical,
        a.lexical_rank if a.lexical_rank is not None else b.lexical_rank,
        a.dense if a.dense is not None else b.dense,
        a.dense_rank if a.dense_rank is not None else b.dense_rank,
        a.parent or b.parent,
        a.doc_id or b.doc_id,
    )


def _with_score(r: Ranked, score: float) -> Ranked:
    return replace(r, score=score)
