"""The ranking's fusion and the packer's rules, as pure functions (no server)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.chunk.concepts import prefix_lead, prefix_without, retrieval_prefix
from pipeline.chunk.tokens import Estimator
from pipeline.index.words import query_words
from pipeline.retrieve import context
from pipeline.retrieve.context import MIN_PIECE, Packer, sentences, table_span
from pipeline.retrieve.hits import StoredChunk
from pipeline.retrieve.rank import Fusion, Ranked, fuse, fusion_for, lead_terms

STATEMENT = (
    "Some prose before the statement.\n\n"
    "ACME CORP. CONSOLIDATED STATEMENTS OF OPERATIONS (in millions)\n\n"
    "| Year | 2018 | 2019 |\n"
    "|---|---|---|\n"
    "| Net sales | 100 | 120 |\n"
    "| Cost of sales | 60 | 70 |\n"
    "| Net income | 10 | 12 |\n"
    "\nProse after the statement.\n"
)


def section(body: str, start: int = 1000) -> StoredChunk:
    return StoredChunk(
        id="s",
        doc_id="d",
        doc_title="t",
        source="x.pdf",
        parent_id=None,
        breadcrumb=("t",),
        page_start=None,
        page_end=None,
        char_start=start,
        char_end=start + len(body),
        body=body,
    )


def test_a_snippet_ending_inside_a_table_grows_to_its_last_row() -> None:
    sec = section(STATEMENT)
    cut = sec.char_start + STATEMENT.index("| Cost of sales")
    a, b = table_span(sec, sec.char_start, cut)
    assert a == sec.char_start
    assert sec.span(a, b).endswith("| Net income | 10 | 12 |")


def test_a_snippet_starting_inside_a_table_grows_back_to_its_caption() -> None:
    sec = section(STATEMENT)
    start = sec.char_start + STATEMENT.index("| Net income")
    a, b = table_span(sec, start, sec.char_end)
    assert sec.span(a, b).startswith("ACME CORP. CONSOLIDATED STATEMENTS OF OPERATIONS")
    assert b == sec.char_end


def test_prose_and_whole_tables_stay_as_they_are() -> None:
    sec = section(STATEMENT)
    prose = (sec.char_start, sec.char_start + STATEMENT.index("\n\nACME"))
    assert table_span(sec, *prose) == prose
    everything = (sec.char_start, sec.char_end)
    assert table_span(sec, *everything) == everything


def test_a_heading_and_caption_alone_grow_over_the_table_that_follows() -> None:
    body = "# Item 8\n\n" + STATEMENT.split("\n\n", 1)[1]
    sec = section(body)
    lead = (sec.char_start, sec.char_start + body.index(")") + 1)  # heading + caption
    a, b = table_span(sec, *lead)
    assert a == lead[0] and sec.span(a, b).endswith("| Net income | 10 | 12 |")
    # A span with content of its own that happens to end on the caption stays as it is.
    prose = (sec.char_start, sec.char_start + STATEMENT.index(")") + 1)
    assert table_span(section(STATEMENT), *prose) == prose


def test_the_lead_is_the_path_and_table_parts_of_the_prefix() -> None:
    prefix = retrieval_prefix("Doc [draft]", ["Part I", "Notes ] x"], ["k1"], "Cap — 2018 | 2019")
    assert prefix_lead(prefix + "body") == "Part I > Notes ] x Cap — 2018 | 2019"
    assert prefix_lead(retrieval_prefix("Doc", [], ["k1"]) + "body") == ""
    assert prefix_lead("no prefix at all") == ""
    # The document's own title as the path's first step is the title, not a lead.
    titled = retrieval_prefix("A Study", ["a  study", "Methods"], ["k1"], "Cap") + "body"
    assert prefix_lead(titled, "A Study") == "Methods Cap"
    assert prefix_lead(titled, "Other") == "a  study > Methods Cap"


def test_prefix_without_drops_only_the_doc_part_of_the_prefix() -> None:
    prefix = retrieval_prefix("Doc [draft] x", ["Part I"], ["k1"], "Cap")
    assert (
        prefix_without(prefix + "body", ["DOC"])
        == "[PATH: Part I] [TABLE: Cap] [CONCEPTS: k1]\n\nbody"
    )
    assert prefix_without(retrieval_prefix("Doc", [], []) + "body", ["DOC"]) == "\n\nbody"
    titled = retrieval_prefix("Doc", ["doc", "Intro"], []) + "body"
    assert prefix_without(titled, ["DOC"], "Doc") == "[PATH: Intro]\n\nbody"
    assert (
        prefix_without(retrieval_prefix("Doc", ["Doc"], ["k"]) + "b", ["DOC"], "Doc")
        == "[CONCEPTS: k]\n\nb"
    )
    assert prefix_without("no prefix at all", ["DOC"]) == "no prefix at all"


def test_a_named_statement_adds_the_titles_filings_print() -> None:
    terms = ["net", "incom"]
    assert "oper" in lead_terms("Net income per the income statement?", terms)
    assert "flow" in lead_terms("From the cash flow statement, capex?", terms)
    assert "sheet" in lead_terms("Total assets on the balance sheet", terms)
    assert lead_terms("What is a functor?", terms) == terms


LINES = st.lists(
    st.sampled_from(["| a | 1 |", "|---|---|", "caption line", "", "prose words here"]),
    min_size=1,
    max_size=30,
)


@given(LINES, st.data())
def test_table_span_contains_the_span_and_stays_in_the_section(
    lines: list[str], data: st.DataObject
) -> None:
    body = "\n".join(lines)
    sec = section(body)
    a = data.draw(st.integers(sec.char_start, sec.char_end))
    b = data.draw(st.integers(a, sec.char_end))
    na, nb = table_span(sec, a, b)
    assert sec.char_start <= na <= a and b <= nb <= sec.char_end
    # Grown ends sit on line boundaries: a row is never cut.
    assert na == a or na == sec.char_start or body[na - sec.char_start - 1] == "\n"
    assert nb == b or nb == sec.char_end or body[nb - sec.char_start] == "\n"


def ranked(ids: str, scores: list[float] | None = None) -> list[Ranked]:
    values = scores or [1.0] * len(ids)
    return [Ranked(i, s) for i, s in zip(ids, values, strict=True)]


def test_fusion_follows_how_clear_the_lexical_ranking_is() -> None:
    clear, flat = Fusion(10, 0.5), Fusion(60, 0.5)
    assert fusion_for(ranked("abcd", [9.0, 1.0, 1.0, 1.0])) == clear
    assert fusion_for(ranked("abcd", [1.1, 1.0, 1.0, 1.0])) == flat
    assert fusion_for([]) == flat


def test_fuse_weighs_the_lists_and_keeps_both_signals() -> None:
    lex = [Ranked("a", 5.0, lexical=5.0, lexical_rank=1), Ranked("b", 4.0, 4.0, 2)]
    den = [Ranked("b", 0.9, dense=0.9, dense_rank=1), Ranked("c", 0.8, dense=0.8, dense_rank=2)]
    out = fuse(lex, den, Fusion(k=10, dense_weight=0.5))
    assert [r.id for r in out] == ["b", "a", "c"]
    b = out[0]
    assert (b.lexical_rank, b.dense_rank) == (2, 1)
    assert b.score == 1 / 12 + 0.5 / 11
    assert [r.id for r in fuse(lex, den, Fusion(k=10, dense_weight=0.0))][:2] == ["a", "b"]


FIRST = " ".join(f"Sentence {n} of the first part is about rivers and banks." for n in range(40))
SECOND = " ".join(
    "The zebra crossing holds 17 stripes."
    if n == 17
    else "A zebra is a striped animal."
    if n == 30
    else f"Line {n} talks of other things."
    for n in range(40)
)
ZEBRA = frozenset(query_words("How many stripes has the zebra crossing?"))


def two_snippets() -> tuple[StoredChunk, StoredChunk, StoredChunk]:
    body = FIRST + "\n\n" + SECOND
    sec = section(body, start=0)
    cut = len(FIRST) + 2

    def part(i: str, a: int, b: int) -> StoredChunk:
        return StoredChunk(i, "d", "t", "x.md", "s", ("t",), None, None, a, b, body[a:b])

    return sec, part("a", 0, len(FIRST)), part("b", cut, len(body))


def packed(extra: int) -> tuple[Packer, StoredChunk]:
    """The first snippet packed whole, ``extra`` tokens left: too few for the second,
    even cut to its sentences from the first to the last that name a zebra."""
    sec, a, b = two_snippets()
    probe = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    budget = probe.cost(sec, a.char_start, a.char_end, [a]) + extra
    assert extra < probe.cost(sec, *probe.trim(sec, (b.char_start, b.char_end)), [b])
    packer = Packer(budget, Estimator("prose"), {}, ZEBRA)
    for n, s in enumerate((a, b), 1):
        packer.add(s, sec, (n, Ranked(s.id, 1.0 / n, doc_id="d")))
    packer.widen()
    return packer, sec


def test_left_budget_takes_the_best_sentences_of_a_snippet_that_did_not_fit() -> None:
    packer, sec = packed(120)
    assert len(packer.items) == 1
    packer.fill()
    assert len(packer.items) == 2 and packer.used <= packer.budget
    piece = packer.result()[1]
    assert "The zebra crossing holds 17 stripes." in piece.text
    assert piece.text == sec.span(piece.citation.char_start, piece.citation.char_end)
    assert piece.rank == 2 and piece.window
    assert piece.citation.char_start >= len(FIRST) + 2  # nothing of the first item again


def test_a_piece_does_not_end_inside_a_code_block() -> None:
    # The best sentence, then a fenced block whose closing line would not fit.
    prose = " ".join(f"Line {n} talks of other things." for n in range(30))
    code = "\n".join(f"let x{n} = {n};" for n in range(30))
    body = f"{prose}\n\nThe zebra crossing holds 17 stripes.\n\n```rust\n{code}\n```\n"
    sec = section(body, start=0)
    whole = StoredChunk("b", "d", "t", "x.md", "s", ("t",), None, None, 0, len(body), body)
    packer = Packer(10**6, Estimator("prose"), {})
    start = body.index("The zebra")
    packer.budget = packer.cost(sec, start, body.index("let x5"), [whole])  # half the block
    got = packer.window(sec, 0, len(body), frozenset(query_words("zebra stripes")), [whole])
    assert got is not None
    text = sec.span(*got[0])
    assert "The zebra crossing holds 17 stripes." in text
    assert "```" not in text


def test_too_little_left_adds_nothing() -> None:
    packer, _ = packed(MIN_PIECE - 1)
    packer.fill()
    assert len(packer.items) == 1


def stored(i: str, body: str, a: int, b: int) -> StoredChunk:
    return StoredChunk(i, "d", "t", "x.md", "s", ("t",), None, None, a, b, body[a:b])


def test_a_snippet_gives_the_sentences_the_question_points_at(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The answer is one sentence of a long snippet; cut to it (two sentences of
    # context each side), the snippet leaves room for the next one whole. (Every
    # snippet is cut here: by default the best one comes whole, ``WHOLE``.)
    monkeypatch.setattr(context, "WHOLE", 0)
    first = " ".join(
        "The zebra crossing holds 17 stripes." if n == 20 else f"Line {n} is about rivers."
        for n in range(40)
    )
    second = "Crossings are painted white on black. " * 12
    body = first + "\n\n" + second
    sec = section(body, start=0)
    a = stored("a", body, 0, len(first))
    b = stored("b", body, len(first) + 2, len(body))
    probe = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    cut = probe.trim(sec, (a.char_start, a.char_end))
    assert sec.span(*cut) == " ".join(
        [*(f"Line {n} is about rivers." for n in (18, 19)), "The zebra crossing holds 17 stripes."]
        + [f"Line {n} is about rivers." for n in (21, 22)]
    )
    whole_b = probe.cost(sec, b.char_start, b.char_end, [b])
    budget = probe.cost(sec, *cut, [a]) + whole_b + 4
    assert budget < probe.cost(sec, a.char_start, a.char_end, [a]) + whole_b
    packer = Packer(budget, Estimator("prose"), {}, ZEBRA)
    for n, s in enumerate((a, b), 1):
        packer.add(s, sec, (n, Ranked(s.id, 1.0 / n, doc_id="d")))
    got = packer.result()
    assert [it.snippet_ids for it in got] == [("a",), ("b",)]
    assert "The zebra crossing holds 17 stripes." in got[0].text
    assert got[1].text == second and packer.used <= budget


def test_a_snippet_no_sentence_of_which_the_question_names_stays_whole() -> None:
    sec, a, _ = two_snippets()
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    assert packer.trim(sec, (a.char_start, a.char_end)) == (a.char_start, a.char_end)
    packer = Packer(10**6, Estimator("prose"), {})  # no question terms: nothing to cut
    _, _, b = two_snippets()
    assert packer.trim(sec, (b.char_start, b.char_end)) == (b.char_start, b.char_end)


def test_a_cut_does_not_open_a_code_block() -> None:
    prose = " ".join(f"Line {n} talks of other things." for n in range(10))
    code = "\n".join(f"let x{n} = {n};" for n in range(30))
    body = f"{prose}\n\n```rust\n// the zebra crossing\n{code}\n```\n\n{prose}"
    sec = section(body, start=0)
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    assert packer.trim(sec, (0, len(body))) == (0, len(body))


def test_sentences_are_ranges_without_the_space_between() -> None:
    text = "One two. Three?  Four\n\nfive\n\n"
    assert [text[a:b] for a, b in sentences(text)] == ["One two.", "Three?", "Four", "five"]


def test_a_wrapped_paragraph_is_cut_at_its_sentences_not_its_lines() -> None:
    # Project Gutenberg, RFCs and hard-wrapped Markdown break lines at ~70 characters:
    # taken for sentences, "two sentences of padding" was two short lines.
    text = (
        "The trout came up with a splash, and\nit seized Mr. Jeremy. Then it swam\n"
        "back to the bottom\n\n# The end\n- a listed item\n- another\n| a | b |\n"
        "```\nlet x = 1\nlet y = 2\n```\nLast line"
    )
    assert [text[a:b] for a, b in sentences(text)] == [
        "The trout came up with a splash, and\nit seized Mr.",
        "Jeremy.",
        "Then it swam\nback to the bottom",
        "# The end",
        "- a listed item",
        "- another",
        "| a | b |",
        "```",
        "let x = 1",
        "let y = 2",
        "```",
        "Last line",
    ]


SHORT = " ".join(
    "The zebra crossing holds 17 stripes." if n == 4 else f"Line {n} is about rivers."
    for n in range(9)
)
LONG = " ".join(f"Sentence {n} tells of lakes." for n in range(60))


def short_between_long(after_short: str = "\n\n") -> tuple[StoredChunk, int]:
    """A section: a long paragraph, a short one the question points into, then more;
    and where the short paragraph starts."""
    sec = section(f"{LONG}\n\n{SHORT}{after_short}{LONG}", start=500)
    return sec, 500 + len(LONG) + 2


def test_growth_reaches_the_edges_of_a_short_paragraph_not_a_long_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A snippet's edge inside a story's short paragraph lost the end of the scene; a long
    # paragraph cut stays cut, leaving room for the next snippet.
    sec, start = short_between_long()
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    cut = packer.trim(sec, (sec.char_start, sec.char_end))
    assert sec.span(*cut).startswith("Line 2 ")
    assert sec.span(*cut).endswith("Line 6 is about rivers.")
    monkeypatch.setattr(context, "GROW", 0)
    assert packer.grown(sec, cut) == cut
    monkeypatch.setattr(context, "GROW", 40)
    assert packer.grown(sec, cut) == (start, start + len(SHORT))
    # A snippet ending inside the short paragraph grows past its own end, in the section.
    assert packer.grown(sec, (500, start + SHORT.index("Line 6"))) == (500, start + len(SHORT))
    monkeypatch.setattr(context, "GROW", 5)  # the two lines on each side count more
    assert packer.grown(sec, cut) == cut
    # A paragraph longer than the growth allowed stays cut on that side only.
    monkeypatch.setattr(context, "GROW", 40)
    sec, start = short_between_long(after_short=" ")
    a, b = packer.grown(sec, packer.trim(sec, (sec.char_start, sec.char_end)))
    assert a == start and sec.span(a, b).endswith("Line 6 is about rivers.")
    # Short paragraphs beside it come along while the growth allowed holds them.
    sec, _ = short_between_long(after_short="\n\nThe top sighed.\n\n")
    grown = packer.grown(sec, packer.trim(sec, (sec.char_start, sec.char_end)))
    assert sec.span(*grown) == f"{SHORT}\n\nThe top sighed."


def snippet_of(sec: StoredChunk, i: str, a: int, b: int) -> StoredChunk:
    return StoredChunk(i, "d", "t", "x.md", sec.id, ("t",), None, None, a, b, sec.span(a, b))


def test_only_the_best_snippet_grows(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(context, "GROW", 40)
    sec, start = short_between_long()
    first = start + SHORT.index("Line 3")  # the snippet starts mid-paragraph
    snippet = snippet_of(sec, "a", first, start + 400)
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    packer.add(snippet, sec, (1, Ranked("a", 1.0, doc_id="d")))
    assert packer.result()[0].text.startswith("Line 0 is about rivers.")
    # The next snippets are cut to the question's sentences and stay so, leaving room
    # for more of them.
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    packer.add(snippet, sec, (2, Ranked("a", 0.5, doc_id="d")))
    assert packer.result()[0].text.startswith("Line 3 is about rivers.")


def test_growth_alone_beside_taken_text_adds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    # A best snippet whose own range is taken adds nothing, however free its growth is:
    # an item never holds text of a snippet it does not overlap.
    monkeypatch.setattr(context, "GROW", 40)
    sec, start = short_between_long()
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    packer.add(snippet_of(sec, "t", 500, sec.char_end), sec, (5, Ranked("t", 0.2, doc_id="d")))
    taken = [(it.a, it.b) for it in packer.items]
    first = start + SHORT.index("Line 3")
    packer.add(snippet_of(sec, "a", first, first + 40), sec, (1, Ranked("a", 1.0, doc_id="d")))
    assert [(it.a, it.b) for it in packer.items] == taken
    assert [it.snippet_ids for it in packer.result()] == [("t",)]


def test_a_cut_inside_a_table_keeps_the_table_header() -> None:
    rows = "\n".join(f"| Item {n} | {n} | {n + 1} |" for n in range(30))
    body = f"Revenue by item\n\n| Item | 2018 | 2019 |\n|---|---|---|\n{rows}\n"
    body = body.replace("| Item 25 |", "| Zebra crossings |")
    sec = section(body, start=0)
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    a, b = packer.trim(sec, (0, len(body)))
    text = sec.span(a, b)
    assert text.startswith("Revenue by item\n\n| Item | 2018 | 2019 |")
    assert "| Zebra crossings |" in text and "| Item 29 |" not in text


def test_the_best_snippet_comes_whole_and_the_next_ones_cut(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The best match is the likeliest answer and what surrounds it its context (a
    # story's scene, not two lines of it); the others are cut to what they share.
    # (The cut lies ~130 tokens after the whole one: kept apart here, not ``BRIDGE``d.)
    monkeypatch.setattr(context, "BRIDGE", 0)
    first = " ".join(
        "The zebra crossing holds 17 stripes." if n == 20 else f"Line {n} is about rivers."
        for n in range(40)
    )
    body = first + "\n\n" + first
    sec = section(body, start=0)
    a = stored("a", body, 0, len(first))
    b = stored("b", body, len(first) + 2, len(body))
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    for n, s in enumerate((a, b), 1):
        packer.add(s, sec, (n, Ranked(s.id, 1.0 / n, doc_id="d")))
    got = packer.result()
    assert got[0].text == first
    assert got[1].text == " ".join(
        [*(f"Line {n} is about rivers." for n in (18, 19)), "The zebra crossing holds 17 stripes."]
        + [f"Line {n} is about rivers." for n in (21, 22)]
    )


def test_a_best_snippet_too_long_for_the_budget_is_cut_instead() -> None:
    first = " ".join(
        "The zebra crossing holds 17 stripes." if n == 20 else f"Line {n} is about rivers."
        for n in range(40)
    )
    sec = section(first, start=0)
    a = stored("a", first, 0, len(first))
    probe = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    cut = probe.trim(sec, (0, len(first)))
    budget = probe.cost(sec, *cut, [a]) + 4
    assert budget < probe.cost(sec, 0, len(first), [a])
    packer = Packer(budget, Estimator("prose"), {}, ZEBRA)
    packer.add(a, sec, (1, Ranked("a", 1.0, doc_id="d")))
    got = packer.result()
    assert [it.text for it in got] == [sec.span(*cut)]


def scene_packed() -> tuple[list[str], list[context.ContextItem]]:
    """A scene's sentences, and what is packed of two snippets of it: the first (whole,
    the best) ends at sentence 12, the second (cut to its hit, sentence 16) follows."""
    story = [f"Sentence {n} tells of the mill." for n in range(40)]
    story[6] = "The zebra crossing holds 17 stripes."
    story[16] = "The zebra crossing was painted anew."
    body = " ".join(story)
    sec = section(body, start=0)
    cut_at = body.index("Sentence 12 ")
    a = stored("a", body, 0, cut_at - 1)
    b = stored("b", body, cut_at, len(body))
    packer = Packer(10**6, Estimator("prose"), {}, ZEBRA)
    for n, s in enumerate((a, b), 1):
        packer.add(s, sec, (n, Ranked(s.id, 1.0 / n, doc_id="d")))
    return story, packer.result()


def test_a_cut_near_an_item_of_its_section_joins_it_with_the_text_between() -> None:
    # Two cuts of one scene a few sentences apart are one passage: read as one (and cited
    # once) rather than as two pieces with the sentences between them missing.
    story, got = scene_packed()
    assert [it.snippet_ids for it in got] == [("a", "b")]
    assert got[0].text == " ".join(story[:19])


def test_a_cut_far_from_the_items_of_its_section_stays_apart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(context, "BRIDGE", 5)  # the 2 sentences between count ~20
    story, got = scene_packed()
    assert [it.text for it in got] == [" ".join(story[:12]), " ".join(story[14:19])]
