"""Flat-text structure rules learnt on the ``eval/flat-text`` tuning half: a contents block
that runs across an RFC's page break, right-aligned contents numbers, a list of short lines
that is no heading run, code and prose that are no contents block, the Project Gutenberg
header and licence that hold no headings, a numbering line joined with its title line,
bare numerals in sequence, index lines with page numbers, underlined headings; and, from
chunking-eval's unmarked markdown corpora, asides and dialogue that are no headings, a stray
setext underline, and guessed headings that are no title."""

from __future__ import annotations

import textwrap

from pipeline.extract.text import flat_text_document
from pipeline.model import Document
from pipeline.parse.document import parse
from pipeline.text.heading_lines import find_heading_lines, find_headings
from pipeline.text.layout import running_lines
from pipeline.text.toc import find_toc

PROSE = " ".join(["The protocol sends each message once and waits for an answer."] * 6)


def _found(text: str) -> list[tuple[str, int]]:
    lines = text.split("\n")
    return [(lines[i].strip(), level) for i, level, _ in find_headings(lines)]


def _page(n: int) -> str:
    """An RFC page break: foot, form feed, head."""
    return (
        f"\n\n\nDoe                          Standards Track                    [Page {n}]\n"
        f"\fRFC 9999                        Example                        May 2020\n\n"
    )


def test_numbered_sections_and_a_contents_block_across_a_page_break() -> None:
    contents = (
        "Table of Contents\n\n"
        "   1.  Introduction . . . . . . . . . . . . . . . . . . . . .  2\n"
        "     1.1.  Terminology  . . . . . . . . . . . . . . . . . . .  2\n"
        + _page(1)
        + "   2.  Message Format . . . . . . . . . . . . . . . . . . .  3\n"
        "     2.1.  Header Fields  . . . . . . . . . . . . . . . . . .  3\n"
        "   3.  Security Considerations  . . . . . . . . . . . . . . .  4\n"
    )
    body = "".join(
        f"{h}\n\n   {PROSE}\n\n   {PROSE}\n" + _page(n + 2)
        for n, h in enumerate(
            [
                "1.  Introduction",
                "1.1.  Terminology",
                "2.  Message Format",
                "2.1.  Header Fields",
                "3.  Security Considerations",
            ]
        )
    )
    text = f"Example Protocol\n\n{contents}\n{_page(2)}{body}"
    assert len(running_lines(text.split("\n"))) >= 8
    assert _found(text) == [
        ("1.  Introduction", 1),
        ("1.1.  Terminology", 2),
        ("2.  Message Format", 1),
        ("2.1.  Header Fields", 2),
        ("3.  Security Considerations", 1),
    ]


def test_an_example_index_and_a_list_of_plates_are_not_headings() -> None:
    index = "\n\n".join(["Dogs", "breeding, 90–91", "Feeding Times", "Kennels", "Leads"])
    plates = "\n\n".join(["VIOLIN", "VIOLONCELLO", "PICCOLO FLUTE", "OBOE", "BASSOON"])
    text = (
        f"A Guide\n\n{PROSE}\n\nChapter 1\n\n{PROSE}\n\n{index}\n\n{PROSE}\n\n"
        f"Chapter 2\n\n{PROSE}\n\n{plates}\n\n{PROSE}\n"
    )
    assert _found(text) == [("Chapter 1", 1), ("Chapter 2", 1)]


def test_right_aligned_contents_numbers_do_not_make_levels() -> None:
    contents = "CONTENTS.\n\n" + "\n\n".join(
        f"{n:>5}.  {t}" for n, t in [("I", "THE VIOLIN"), ("II", "THE CHIEF"), ("III", "THE BEAR")]
    )
    body = "\n\n".join(
        f"CHAPTER {n}.\n\n{t}.\n\n{PROSE}"
        for n, t in [("I", "THE VIOLIN"), ("II", "THE CHIEF"), ("III", "THE BEAR")]
    )
    levels = {level for _, level in _found(f"A Story\n\n{contents}\n\n{body}\n")}
    assert levels == {1}


def test_repeated_code_and_prose_are_no_contents_block() -> None:
    code = "    use futures::Future;\n\n    fn poll() -> Poll { ... }\n\n    let x = f();"
    text = (
        f"A Manual\n\n{PROSE}\n\nGetting Started\n\n{code}\n\n{PROSE}\n\n"
        f"Advanced Use\n\n{code}\n\n{PROSE}\n"
    )
    assert _found(text) == [("Getting Started", 1), ("Advanced Use", 1)]


def test_gutenberg_header_and_licence_hold_no_headings() -> None:
    text = (
        "The Project Gutenberg EBook of A Story\n\nTitle: A Story\n\nAuthor: Some One\n\n"
        "*** START OF THIS PROJECT GUTENBERG EBOOK A STORY ***\n\n"
        f"CHAP. I.\n\n{PROSE}\n\nCHAP. II.\n\n{PROSE}\n\n"
        "*** END OF THIS PROJECT GUTENBERG EBOOK A STORY ***\n\n"
        f"Section 1. General Terms of Use\n\n{PROSE}\n"
    )
    assert _found(text) == [("CHAP. I.", 1), ("CHAP. II.", 1)]


def _titles(text: str) -> list[tuple[str, int]]:
    return [(h.title, h.level) for h in find_heading_lines(text.split("\n"))]


def test_a_numbering_line_and_the_title_line_after_it_are_one_heading() -> None:
    chapters = [("I", "The Widow and her Child."), ("II", "The Old Mint."), ("III", "THE STORM.")]
    body = "".join(f"\n\n\nCHAPTER {n}.\n\n{t}\n\n\n{PROSE}\n\n{PROSE}\n" for n, t in chapters)
    text = f"A Romance\n\n{PROSE}\n{body}"
    assert _titles(text) == [
        ("CHAPTER I. The Widow and her Child.", 1),
        ("CHAPTER II. The Old Mint.", 1),
        ("CHAPTER III. THE STORM.", 1),
    ]
    doc = flat_text_document(text, "romance.txt")
    assert "# CHAPTER II. The Old Mint.\n" in doc.text
    assert doc.text.count("The Old Mint.") == 1  # the title line became part of the heading


def test_a_numbering_line_before_a_paragraph_keeps_its_own_title() -> None:
    body = "".join(f"\n\nCHAPTER {n}.\n\n{PROSE}\n" for n in ("I", "II", "III"))
    assert _titles(f"A Story\n\n{PROSE}\n{body}") == [
        ("CHAPTER I.", 1),
        ("CHAPTER II.", 1),
        ("CHAPTER III.", 1),
    ]


def test_bare_numerals_are_chapters_only_in_sequence() -> None:
    stanza = "    By many a highwayman many a draught\n    Of nutty-brown ale was quaft,"
    body = (
        f"\n\n\nI\n\n\n{PROSE}\n\nVII.\n\n{stanza}\n\n{PROSE}\n\n\n\nII\n\n\n{PROSE}\n\n\n\n"
        f"III\n\n\n{PROSE}\n\n\n\nIV\n\n\n{PROSE}\n\n\n\nXL\n\n\n{PROSE}\n"
    )
    assert _titles(f"A Novel\n\n{PROSE}\n{body}") == [
        ("I", 1),
        ("II", 1),
        ("III", 1),
        ("IV", 1),
    ]


def test_index_lines_with_page_numbers_are_not_headings() -> None:
    index = "\n\n".join(["Bach, C.P.E., 180, 185", "Halle, Lady, 320", "Xylophone, 111"])
    text = f"A Guide\n\n{PROSE}\n\nChapter 1\n\n{PROSE}\n\nIndex\n\n{PROSE}\n\n{index}\n"
    assert [t for t, _ in _titles(text)] == ["Chapter 1", "Index"]


def test_underlined_headings_rank_by_their_underline() -> None:
    text = (
        "GNU tool\n1 Introduction\n2 Invoking tool\n  2.1 Options\n\nGNU tool\n********\n\n"
        f"{PROSE}\n\n1 Introduction\n**************\n\n{PROSE}\n\n"
        f"2 Invoking ‘tool’\n*****************\n\n{PROSE}\n\n"
        f"2.1 Options\n===========\n\n{PROSE}\n\n     Example\n     -------\n\n"
        f"2.1.1 Matching Control\n----------------------\n\n{PROSE}\n"
    )
    assert _titles(text) == [
        ("1 Introduction", 1),
        ("2 Invoking ‘tool’", 1),
        ("2.1 Options", 2),
        ("2.1.1 Matching Control", 3),
    ]
    doc = flat_text_document(text, "tool.txt")
    assert "## 2.1 Options\n\n" in doc.text
    assert "===" not in doc.text  # the underline went with its heading


def test_an_indented_contents_block_with_numbered_chapters_keeps_its_levels() -> None:
    entries = ["Preface", "    Conventions", "1. Introduction", "    The Famine", "2. Building"]
    contents = "Contents\n\n" + "\n".join(entries)
    body = "\n\n".join(f"{e.strip()}\n\n{PROSE}" for e in entries)
    assert _found(f"A Book\n\n{contents}\n\n{body}\n") == [
        ("Preface", 1),
        ("Conventions", 2),
        ("1. Introduction", 1),
        ("The Famine", 2),
        ("2. Building", 1),
    ]


def test_a_verse_line_after_a_section_number_is_not_its_title() -> None:
    verses = ["Whoever you are, to you endless announcements!", "Blow again trumpeter—conjure."]
    body = "".join(
        f"\n\n{n}\n\n{v}\n\nAnd more of the poem runs on here,\nline after line.\n"
        for n, v in zip(("1", "2", "3"), [*verses, verses[0]], strict=True)
    )
    assert _titles(f"Song of Myself\n\n{PROSE}\n{body}") == [("1", 1), ("2", 1), ("3", 1)]


def test_two_series_of_right_aligned_contents_numbers_are_one_level() -> None:
    chapters = ["THE VIOLIN", "THE CHIEF", "THE BEAR", "THE EAGLE", "THE LION", "THE SMOKE"]
    chapters += ["THE NEST", "THE VISIT", "THE MEETING", "THE ROBINSON", "THE WARNING"]
    notes = ["Vancouver", "The Trail", "Governor Stevens"]
    romans = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI"]
    contents = "CONTENTS.\n\n" + "\n\n".join(
        f"{n:>4}.  {t}" for n, t in zip(romans, chapters, strict=True)
    )
    contents += "\n\n\nNOTES.\n\n" + "\n\n".join(
        f"{n:>3}.  {t}" for n, t in zip(romans[:3], notes, strict=True)
    )
    body = "\n\n".join(f"\n\n{t.upper()}.\n\n{PROSE}" for t in [*chapters, "NOTES", *notes])
    levels = {level for _, level in _found(f"A Story\n\n{PROSE}\n\n{contents}\n\n{body}\n")}
    assert levels == {1}


def test_a_chapter_the_contents_names_in_other_words_keeps_its_label_line() -> None:
    printed = ["THE VIOLIN", "THE CHIEF", "THE BEAR AND THE CUB", "THE EAGLE"]
    body_titles = ["THE VIOLIN", "THE CHIEF", "THE TAME BEAR", "THE EAGLE"]
    romans = ["I", "II", "III", "IV"]
    contents = "CONTENTS.\n\n" + "\n\n".join(
        f"{n}.  {t}" for n, t in zip(romans, printed, strict=True)
    )
    body = "".join(
        f"\n\n\nCHAPTER {n}.\n\n{t}.\n\n\n{PROSE}\n"
        for n, t in zip(romans, body_titles, strict=True)
    )
    assert _titles(f"A Story\n\n{PROSE}\n\n{contents}\n{body}") == [
        ("CHAPTER I. THE VIOLIN.", 1),
        ("CHAPTER II. THE CHIEF.", 1),
        ("CHAPTER III. THE TAME BEAR.", 1),
        ("CHAPTER IV. THE EAGLE.", 1),
    ]


def test_a_signature_a_title_page_and_an_end_mark_are_not_headings() -> None:
    title_page = "THE ANGLER;\n\nBy\n\nISAAK WALTON.\n\n\n"
    preface = f"\n\n\nPREFACE.\n\n\n{PROSE}\n\nRICHARD LE GALLIENNE.\n\n\n\n"
    chapters = "".join(f"\n\n\nCHAP. {n}.\n\n\n{PROSE}\n" for n in ("I", "II", "III"))
    text = f"A Book\n\n{PROSE}\n\n\n{title_page}{preface}{chapters}\n\nFINIS.\n\n\n"
    assert _found(text) == [("PREFACE.", 1), ("CHAP. I.", 1), ("CHAP. II.", 1), ("CHAP. III.", 1)]


def test_the_book_title_over_its_first_chapter_is_no_heading() -> None:
    header = "Title: How to Listen, 7th ed.\n\n*** START OF THE PROJECT GUTENBERG EBOOK ***\n"
    chapters = "".join(f"\n\n\n{n}\n\n_Chapter {n}_\n\n\n{PROSE}\n" for n in ("I", "II", "III"))
    text = f"{header}\n\n\nNOTE\n\n\n{PROSE}\n\n\n\nHow to Listen\n\n\n{chapters}"
    assert [t for t, _ in _titles(text)] == [
        "NOTE",
        "I Chapter I",
        "II Chapter II",
        "III Chapter III",
    ]


def test_a_quoted_sentence_standing_alone_is_not_a_heading() -> None:
    quotes = '     II. "Scene by the brook."\n\n     IV. "Thunder-storm."'
    text = f"A Guide\n\n{PROSE}\n\nChapter 1\n\n{PROSE}\n\n{quotes}\n\n{PROSE}\n\n"
    text += f"Chapter 2\n\n{PROSE}\n"
    assert _found(text) == [("Chapter 1", 1), ("Chapter 2", 1)]


def test_epochs_and_books_the_first_rank_above_their_chapters() -> None:
    body = ""
    for division in ("EPOCH THE FIRST.", "EPOCH THE SECOND."):
        body += f"\n\n\n\n{division}\n\n\n"
        for n in ("I", "II"):
            body += f"\n\n\nCHAPTER {n}.\n\n\n{PROSE}\n\n{PROSE}\n"
    assert [level for _, level in _titles(f"A Romance\n\n{PROSE}\n{body}")] == [1, 2, 2, 1, 2, 2]
    volumes = body.replace("EPOCH THE", "BOOK THE")
    assert [level for _, level in _titles(f"A Romance\n\n{PROSE}\n{volumes}")] == [1, 2, 2, 1, 2, 2]


def test_a_titled_text_without_headings_has_none() -> None:
    assert _titles(f"Title: Notes\n\n{PROSE}\n\n{PROSE}\n") == []


def test_a_chapter_title_wrapped_onto_two_lines_joins_its_label() -> None:
    titles = ["THE WIDOW AND HER CHILD, AND HOW THEY CAME\nTO THE OLD MINT.", "THE STORM."]
    titles.append("HOW THE PRISONER BROKE OUT OF THE\nCONDEMNED HOLD.")
    body = "".join(
        f"\n\n\nCHAPTER {n}.\n\n{t}\n\n\n{PROSE}\n"
        for n, t in zip(("I", "II", "III"), titles, strict=True)
    )
    text = f"A Romance\n\n{PROSE}\n{body}"
    assert [t for t, _ in _titles(text)] == [
        "CHAPTER I. THE WIDOW AND HER CHILD, AND HOW THEY CAME TO THE OLD MINT.",
        "CHAPTER II. THE STORM.",
        "CHAPTER III. HOW THE PRISONER BROKE OUT OF THE CONDEMNED HOLD.",
    ]
    doc = flat_text_document(text, "romance.txt")
    assert doc.text.count("CONDEMNED HOLD.") == 1  # both title lines went into the heading


SECTIONS = ["1 Introduction", "1.1 Purpose of This Document", "2 Basics of Composition"]
SECTIONS += ["2.1 Characters Used", "3 Line Composition", "3.1 Rules for Punctuation Marks"]


def test_a_second_contents_block_is_not_the_body() -> None:
    printed = "\n".join(("    " if "." in s else "") + s for s in SECTIONS)
    own = "Table of Contents\n\n" + "\n\n".join(SECTIONS)
    body = "".join(f"\n\n{s}\n\n{PROSE}\n" for s in SECTIONS)
    text = f"A Specification\n\nContents\n\n{printed}\n\n{PROSE}\n\n{own}\n{body}"
    lines = text.split("\n")
    body_start = len(f"A Specification\n\nContents\n\n{printed}\n\n{PROSE}\n\n{own}\n".split("\n"))
    found = find_headings(lines)
    assert [lines[i] for i, _, _ in found] == SECTIONS
    assert all(i >= body_start for i, _, _ in found)


def test_a_long_numbered_contents_entry_keeps_the_block_whole() -> None:
    sections = [
        *SECTIONS[:3],
        "2.1 Positioning of Consecutive Opening Brackets, Closing "
        "Brackets, Commas, Full Stops and Middle Dots",
        *SECTIONS[4:],
    ]
    printed = "\n".join(("    " if "." in s else "") + s for s in sections)
    body = "".join(f"\n\n{s}\n\n{PROSE}\n" for s in sections)
    assert [t for t, _ in _found(f"A Specification\n\nContents\n\n{printed}\n{body}")] == sections


def test_a_dedication_set_like_headings_heads_nothing() -> None:
    stars = "       *       *       *       *       *"
    dedication = (
        f"{stars}\n\nTO\n\nW.J. HENDERSON\n\nWHO HAS HELPED ME TO RESPECT CRITICISM\n\n{stars}"
    )
    chapters = "".join(f"\n\n\nCHAPTER {n}\n\n\n{PROSE}\n" for n in ("I", "II"))
    text = f"A Guide\n\n{PROSE}\n\n{dedication}\n\n\n\nNOTE\n\n\n{PROSE}\n{chapters}"
    assert [t for t, _ in _found(text)] == ["NOTE", "CHAPTER I", "CHAPTER II"]


def test_a_half_title_the_contents_names_stays_a_heading() -> None:
    entries = ["Preface", "Leaves of Grass", "    Inscriptions", "    Starting", "Endnotes"]
    contents = "Contents\n\n" + "\n".join(entries)
    body = "".join(f"\n\n{e.strip()}\n\n{PROSE}\n" for e in entries[:1])
    body += "\n\nLeaves of Grass\n\nInscriptions\n\n" + f"{PROSE}\n\nStarting\n\n{PROSE}\n"
    body += f"\n\nEndnotes\n\n{PROSE}\n"
    text = f"Title: Leaves of Grass\n\n{contents}\n{body}"
    assert [t for t, _ in _titles(text)] == [e.strip() for e in entries]


def test_headings_close_together_that_come_back_later_stay_headings() -> None:
    part = "1. Overview\n\n1.1. Purpose and Scope\n\nThis section is informative\n\n"
    entries = ["1. Overview", "1.1. Purpose and Scope", "2. Packages", "3. Navigation"]
    entries += ["4. Rendering", "5. Fonts"]
    contents = "Contents\n\n" + "\n".join(entries)
    body = part + "".join(f"{PROSE}\n\n{e}\n\n" for e in entries[2:]) + f"{PROSE}\n\n"
    text = f"A Specification\n\n{contents}\n\n{body}Appendix: Another Part\n\n{part}{PROSE}\n"
    lines = text.split("\n")
    found = [i for i, _, _ in find_headings(lines)]
    assert [lines[i] for i in found] == entries
    assert found[0] < found[2]  # the first "1. Overview", not the appendix's


def test_a_title_in_quotation_marks_joins_its_label() -> None:
    titles = ["HER BIRTHDAY", '"THE RESCUE OF THE PRINCESS"', "IN CAMP", '"TAPS"']
    romans = ["I", "II", "III", "IV"]
    body = "".join(
        f"\n\n\n\nCHAPTER {n}.\n\n{t}\n\n\n{PROSE}\n" for n, t in zip(romans, titles, strict=True)
    )
    assert [t for t, _ in _titles(f"A Story\n\n{PROSE}\n{body}")] == [
        "CHAPTER I. HER BIRTHDAY",
        'CHAPTER II. "THE RESCUE OF THE PRINCESS"',
        "CHAPTER III. IN CAMP",
        'CHAPTER IV. "TAPS"',
    ]


def test_a_numeral_the_contents_missed_fills_its_gap_in_the_series() -> None:
    titles = ["THE ORIGIN OF MUSIC", "THE MUSIC OF GREECE", "THE SYSTEMS OF HUCBALD AND GUIDO"]
    titles += ["OPERA", "SUGGESTION IN MUSIC"]
    romans = ["I", "II", "III", "IV", "V"]
    contents = "CONTENTS\n\n" + "\n".join(
        f"{n:>4}. {t}" + ("\n         D'AREZZO--THE BEGINNING" if n == "III" else "")
        for n, t in zip(romans, titles, strict=True)
    )
    body = "".join(
        f"\n\n\n\n{n}\n\n{t}"
        + (" D'AREZZO--THE\nBEGINNING" if n == "III" else "")
        + f"\n\n\n{PROSE}\n\n    V.\n\n    A stanza of a poem, numbered.\n\n{PROSE}\n"
        for n, t in zip(romans, titles, strict=True)
    )
    assert [t for t, _ in _titles(f"Essays\n\n{PROSE}\n\n{contents}\n{body}")] == [
        "I THE ORIGIN OF MUSIC",
        "II THE MUSIC OF GREECE",
        "III THE SYSTEMS OF HUCBALD AND GUIDO D'AREZZO--THE BEGINNING",
        "IV OPERA",
        "V SUGGESTION IN MUSIC",
    ]


def test_chapters_listed_under_parts_rank_below_them() -> None:
    chapters = [("I", "FESTIVAL CUSTOMS"), ("II", "LOCAL CUSTOMS"), ("III", "HOLY WELLS")]
    chapters += [("IV", "FAIRIES"), ("V", "DEMONS AND GOBLINS")]
    parts = {"I": "PART I.", "III": "PART II."}
    contents = "CONTENTS.\n\n" + "".join(
        (f"\n                PART {parts[n][5:]}\n\n" if n in parts else "") + f"{n:>8}. {t}\n\n"
        for n, t in chapters
    )
    body = "".join(
        (f"\n\n\n\n{parts[n].replace('PART', 'Part')}\n\n\n" if n in parts else "")
        + f"\n\n\n\nCHAPTER {n}.\n\n{t.title()}.\n\n\n{PROSE}\n"
        for n, t in chapters
    )
    found = _titles(f"Folk-Lore\n\n{PROSE}\n\n{contents}\n{body}")
    assert [level for _, level in found] == [1, 2, 2, 1, 2, 2, 2]
    assert found[0][0] == "Part I."  # the contents' own "PART I." line is no heading
    assert found[1][0] == "CHAPTER I. Festival Customs."  # a short title the contents names


def _article(heads: list[str]) -> str:
    """Paragraphs of prose, each of ``heads`` standing alone between two of them."""
    return "".join(f"{PROSE}\n\n{h}\n\n" for h in heads) + PROSE + "\n"


def test_a_line_wholly_in_parentheses_or_brackets_is_no_heading() -> None:
    asides = ["(223 KB EPS).", "(2,954 KB TIFF).", "[Illustration]", "(Applause.)"]
    text = _article(["Materials and Methods", *asides, "Results", "Costs (Draft)"])
    assert [t for t, _ in _found(text)] == ["Materials and Methods", "Results", "Costs (Draft)"]


def test_a_speaker_line_is_dialogue_not_a_heading() -> None:
    text = _article(["MR. SMITH: NO.", "THE CHAIR: (Laughter.)", "AUDIENCE MEMBER: YES!"])
    assert _found(text) == []
    # a numbered heading with a colon is still one
    assert _found(_article(["CHAPTER I: THE END.", "Part II: The Return"])) == [
        ("CHAPTER I: THE END.", 2),
        ("Part II: The Return", 1),
    ]


def test_a_line_ending_in_a_stage_direction_is_no_heading() -> None:
    text = _article(["We Shall Overcome (Applause.)", "Thank You All (Inaudible.)"])
    assert _found(text) == []
    budget = "The Budget (Continued)"
    assert [t for t, _ in _found(_article([budget]))] == [budget]


def test_a_label_joined_with_its_title_is_no_longer_than_a_heading() -> None:
    long = "EXTRAORDINARY CIRCUMSTANCES SURROUNDING UNPRECEDENTED DISAPPEARANCES"
    short = "THE OLD MINT"
    text = f"{PROSE}\n\nCHAPTER IV.\n\n{long}\n{long}\n\n\n{PROSE}\n\n"
    text += f"CHAPTER V.\n\n{short}\n\n\n{PROSE}\n"
    titles = [h.title for h in find_heading_lines(text.split("\n"))]
    assert titles == ["CHAPTER IV.", f"CHAPTER V. {short}"]


def test_a_stray_underline_under_a_paragraph_makes_no_heading_in_unmarked_markdown() -> None:
    caption = "Figure S1 The curves represent steady-state concentrations of the protein as"
    formula = f"{caption}\nfunctions of the strength of stimulation, curve a.\n12\n =\n"
    text = _article(["Materials and Methods", "Results"]) + "\n" + formula + "\n" + PROSE + "\n"
    parsed = parse(Document(text, "notes.md"))
    assert [b.title for b in parsed.blocks if b.kind == "heading"] == [
        "Materials and Methods",
        "Results",
    ]


def test_a_guessed_heading_inside_unmarked_markdown_is_not_its_title() -> None:
    text = _article(["Materials and Methods", "Results", "Discussion"])
    assert parse(Document(text, "/data/pubmed.md")).title == "pubmed"
    opening = "Malaria Expression Profiles\n\n" + text
    assert parse(Document(opening, "/data/pubmed.md")).title == "Malaria Expression Profiles"
    marked = f"{PROSE}\n\n# Expression Profiles\n\n{text}"  # one markdown heading: no guess
    assert parse(Document(marked, "/data/pubmed.md")).title == "Expression Profiles"


def test_parts_numbered_by_ordinal_words_rank_above_their_chapters() -> None:
    # "Part First." is a division label as "Part I." is; a bare "First." stays no label
    body = ""
    for part, title in (("Part First.", "Voice"), ("Part Second.", "Gesture")):
        body += f"\n\n\n\n{part}\n\n{title}\n\n\n\n"
        for n in ("I", "II"):
            body += f"\n\n\nChapter {n}.\n\nOf the Matter in Hand.\n\n\n{PROSE}\n\n{PROSE}\n"
    found = _titles(f"A Treatise\n\n{PROSE}\n{body}\n\nFirst.\n\n{PROSE}\n")
    assert found[0] == ("Part First. Voice", 1)
    assert [level for _, level in found] == [1, 2, 2, 1, 2, 2]


def test_a_part_ranks_above_the_chapters_printed_at_its_indentation() -> None:
    # the contents sets parts and chapters flush left and indents the chapters' own
    # sections: indentation alone would put parts and chapters on one level
    entries = [("Part First.", []), ("Chapter I. The Bases.", ["Of Number.", "Of Form."])]
    entries += [("Chapter II. The Method.", []), ("Part Second.", [])]
    entries += [("Chapter III. The Remains.", ["Of Colour.", "Of Sound."])]
    contents = "Contents.\n\n" + "".join(
        f"{head}\n" + "".join(f"    {s}\n" for s in subs) + "\n" for head, subs in entries
    )
    body = "".join(
        f"\n\n\n{head}\n\n\n{PROSE}\n" + "".join(f"\n\n{s}\n\n{PROSE}\n" for s in subs)
        for head, subs in entries
    )
    found = _titles(f"A Treatise\n\n{PROSE}\n\n{contents}\n\n{body}")
    assert [level for _, level in found] == [1, 2, 3, 3, 2, 1, 2, 3, 3]
    centred = contents.replace("Part ", "                    Part ")  # parts centred
    found = _titles(f"A Treatise\n\n{PROSE}\n\n{centred}\n\n{body}")
    assert [level for _, level in found] == [1, 2, 3, 3, 2, 1, 2, 3, 3]


def test_contents_entries_with_page_numbers_keep_the_block_past_run_in_headings() -> None:
    # six entries name run-in sub-headings ("_Colour._--The ware ..."), no line of their
    # own: their page numbers still mark them contents lines, so the block goes on
    run_in = ["Preliminary", "How found", "Material", "Manufacture", "Colour", "Use"]
    contents = "CONTENTS.\n\n  Introduction          3\n      Geography         3\n"
    contents += "      People            5\n  Pottery               9\n"
    contents += "".join(f"          {t:<20}{10 + n}\n" for n, t in enumerate(run_in))
    contents += "      Painted ware       20\n      Unpainted ware     30\n  Index  40\n"
    body = "".join(
        f"\n\n\n{head}\n\n{PROSE}\n"
        for head in ("INTRODUCTION.", "GEOGRAPHY.", "PEOPLE.[3]", "POTTERY.")
    )
    body += "".join(f"\n_{t}._--{PROSE}\n" for t in run_in)
    body += "".join(f"\n\n\n{head}\n\n{PROSE}\n" for head in ("PAINTED WARE.", "UNPAINTED WARE."))
    body += f"\n\n\nINDEX.\n\n{PROSE}\n"
    found = _titles(f"Ancient Art\n\n{PROSE}\n\n\n{contents}\n\n\n{body}")
    assert found == [
        ("INTRODUCTION.", 1),
        ("GEOGRAPHY.", 2),
        ("PEOPLE.[3]", 2),  # "People" names it: a footnote mark aside
        ("POTTERY.", 1),
        ("PAINTED WARE.", 2),
        ("UNPAINTED WARE.", 2),
        ("INDEX.", 1),
    ]


def test_a_title_over_an_epigraph_or_set_off_joins_its_label() -> None:
    # "Prehistoric Monuments; and their Superstitions." is followed by one blank line and
    # an indented epigraph, not by text; "Witchcraft." and "Editor's Appendix." are short
    # lines with a period that stand set off as titles ("Some words." is a sentence)
    epigraph = "    \u201cOf brownyis and of bogillus full is this buke.\u201d\n\n"
    chapters = [
        ("CHAPTER III.", "Prehistoric Monuments; and their Superstitions.", epigraph),
        ("CHAPTER IV.", "Witchcraft.", "\n"),
        ("CHAPTER V.", "Some words.", ""),
    ]
    body = "".join(f"\n\n\n{lab}\n\n{title}\n\n{after}{PROSE}\n" for lab, title, after in chapters)
    body += f"\n\n\nPART III.\n\nEditor\u2019s Appendix.\n\n\n\nCHAPTER VI.\n\n\n{PROSE}\n"
    found = _titles(f"Folk-Lore\n\n{PROSE}\n{body}")
    assert [t for t, _ in found] == [
        "CHAPTER III. Prehistoric Monuments; and their Superstitions.",
        "CHAPTER IV. Witchcraft.",
        "CHAPTER V.",
        "PART III. Editor\u2019s Appendix.",
        "CHAPTER VI.",
    ]


def test_a_contents_page_column_headed_page_on_its_first_entry_names_it() -> None:
    stories = ["The Church the Devil Stole", "The Parson and the Clerk", "The Spectre Coach"]
    contents = "CONTENTS\n\n\n" + "".join(
        f"  {t:<40}{'_Page_ ' if n == 0 else '       '}{4 + 4 * n}\n" for n, t in enumerate(stories)
    )
    body = "".join(f"\n\n\n\n{t.upper()}\n\n\n{PROSE}\n" for t in stories)
    found = _titles(f"Legend Land\n\n{PROSE}\n\n\n{contents}\n\n{body}")
    assert [t for t, _ in found] == [t.upper() for t in stories]


def test_file_size_captions_are_no_contents_block() -> None:
    # a paper's supplementary files: "(A) (216 KB EPS)" over "Click here ...", and the
    # same captions again later; numbers are no words to match a contents entry on
    files = "".join(
        f"({x}) ({n} KB EPS)\nClick here for additional data file.\n\n"
        for x, n in (("A", 216), ("B", 332), ("C", 97), ("D", 45))
    )
    later = "".join(
        f"\n\n({n}.5 KB EPS).\n\nClick here for additional data file.\n\n{PROSE}\n"
        for n in (494, 44, 291, 6)
    )
    text = f"A Paper\n\n{PROSE}\n\nResults\n\n{PROSE}\n\n{files}\n{PROSE}\n{later}"
    assert "Click here for additional data file." not in [t for t, _ in _titles(text)]


def test_only_page_numbers_in_order_carry_a_contents_block_past_unnamed_lines() -> None:
    def toc_titles(pages: list[int]) -> list[str]:
        rows = "".join(f"  {w:<30}{p}\n" for w, p in zip(unnamed, pages, strict=True))
        contents = "".join(f"  {t:<30}{p}\n" for t, p in named[:3]) + rows
        contents += "".join(f"  {t:<30}{p}\n" for t, p in named[3:])
        body = "".join(f"\n\n\n{t}\n\n{PROSE}\n" for t, _ in named)
        lines = f"Contents\n\n{contents}\n\n\n{PROSE}\n{body}".split("\n")
        return [e.title for e in find_toc(lines)]

    named = [("Alpha Rules", 3), ("Beta Rules", 7), ("Gamma Rules", 9)]
    named += [("Delta Rules", 60), ("Epsilon Rules", 70)]
    unnamed = ["Widgets", "Gears", "Bolts", "Nuts", "Pins", "Rods", "Cams"]
    # run-in sub-headings: their page numbers go on in order, the block goes on
    assert toc_titles([10, 12, 20, 31, 40, 55, 58]) == [t for t, _ in named]
    # a table's numbers: out of order, they are misses that end the block
    assert toc_titles([40, 35, 30, 25, 20, 15, 12]) == [t for t, _ in named[:3]]


def test_numbered_titles_with_a_period_are_chapters_only_in_sequence() -> None:
    days = "".join(
        f"\n\n\n\n{n}. {d} Day.\n\nOur Great Example\n\n\n{PROSE}\n"
        for n, d in ((1, "First"), (2, "Second"), (3, "Third"), (4, "Fourth"))
    )
    assert [t for t, _ in _titles(f"Morning Bells\n\n{PROSE}\n{days}")] == [
        f"{n}. {d} Day." for n, d in ((1, "First"), (2, "Second"), (3, "Third"), (4, "Fourth"))
    ]
    # two of them are no series, and a numbered sentence is no title
    pair = f"\n\n\n1. Preface.\n\n{PROSE}\n\n\n2. Notes.\n\n{PROSE}\n"
    steps = "".join(f"\n\n{n}. Install the package here.\n\n{PROSE}\n" for n in (1, 2, 3))
    assert _titles(f"A Manual\n\n{PROSE}\n{pair}\n{steps}") == []


def test_contents_listing_paragraph_ranges_names_parts_and_chapters_set_with_dashes() -> None:
    # A regulations book: the contents gives each chapter's paragraphs ("1-30"), not a page;
    # the body prints "PART I.--DRILL." (the old printers' dash) and the chapters in capitals.
    parts = {"I": ["Introduction", "Orders and signals", "School of the soldier"]}
    parts["II"] = ["Introduction", "Leadership", "Combat reconnaissance"]
    names = {"I": "Drill", "II": "Combat"}
    contents, body, first = "TABLE OF CONTENTS.\n\n\n", "", 1
    for part, chapters in parts.items():
        # the first part's line also heads the column ("Paragraph."), so it names nothing:
        # the body's "PART I.--DRILL." is found as the series the other part lines name
        column = f"{'':30}Paragraph." if part == "I" else ""
        contents += f"PART {part}--_{names[part]}._{column}\n\n"
        body += f"\n\n\n\nPART {part}.--{names[part].upper()}.\n\n\n\n"
        for n, title in enumerate(chapters, 1):
            contents += f" {n}. {title:<40}{first:>4}-{first + 9}\n"
            body += f"\n\n{title.upper()}.\n\n\n{first}. {PROSE}\n"
            first += 10
        contents += "\n"
    found = _titles(f"Drill Regulations\n\n{PROSE}\n\n\n\n{contents}\n\n\n{body}")
    assert found == [
        ("PART I.--DRILL.", 1),
        *[(f"{t.upper()}.", 2) for t in parts["I"]],
        ("PART II.--COMBAT.", 1),
        *[(f"{t.upper()}.", 2) for t in parts["II"]],
    ]


def test_a_contents_entry_label_and_colon_names_the_label_line_and_its_title() -> None:
    # pandoc's plain text of an EPUB (issue 41): the contents prints "Chapter 1: What Is an
    # Index?", the body sets "Chapter 1" and "What Is an Index?" on two lines; an appendix's
    # label keeps its colon in the body too ("Appendix A:")
    titles = ["What Is an Index?", "Numbers and Types of Indexes", "Characteristics of Indexes"]
    labels = ["Chapter 1", "Chapter 2", "Chapter 3", "Appendix A"]
    titles.append("Additional Resources")
    contents = "\n\n".join(f"{lb}:     {t}" for lb, t in zip(labels, titles, strict=True))
    printed = [*labels[:3], "Appendix A:"]
    body = "\n\n".join(f"{lb}\n\n{t}\n\n{PROSE}" for lb, t in zip(printed, titles, strict=True))
    text = f"Indexing\n\nContents\n\n{contents}\n\n{body}\n"
    lines = text.split("\n")
    found = [(h.title, h.level) for h in find_heading_lines(lines)]
    assert found == [(f"{lb} {t}", 1) for lb, t in zip(printed, titles, strict=True)]


def test_contents_entries_name_numbered_headings_run_into_their_text() -> None:
    # pdftotext of a typeset PDF (issue 41): a heading and the first line of its text with
    # no blank line between; the contents entry, numbered the same, names it
    sections = ["1 Introduction", "2 Installation", "2.1 Package manager", "3 Usage"]
    contents = "\n".join(
        f"{'  ' * s.split()[0].count('.')}{s} . . . . . . . . . .    {n}"
        for n, s in enumerate(sections, 1)
    )
    body = "\n\n".join(f"{s}\n{PROSE}" for s in sections)
    # a numbered line in the text that no entry names stays text
    text = f"Minted\n\nContents\n{contents}\n\n{body}\n\n4 Options\n{PROSE}\n"
    lines = text.split("\n")
    assert [(h.title, h.level) for h in find_heading_lines(lines)] == [
        ("1 Introduction", 1),
        ("2 Installation", 1),
        ("2.1 Package manager", 2),
        ("3 Usage", 1),
    ]


def test_pdftotext_layout_contents_across_pages_names_page_top_chapter_titles() -> None:
    # pdftotext -layout (issue 41): the contents runs over pages whose running head is two
    # columns ("\fxiv      Contents", "\fContents      xv": left and right pages), and a
    # chapter's title opens its page after a form feed with its text straight after it
    chapters = ["The way of the program", "Variables and statements", "Functions", "Lists"]
    rows = []
    for n, title in enumerate(chapters, 1):
        rows.append(f"{n}. {title}{' ' * 40}{n * 10}")
        rows += [f"   {n}.{k}.    Part {k} of {title} . . . . .    {n * 10 + k}" for k in (1, 2)]
        gap = " " * 50
        rows += [f"\fxiv{gap}Contents" if n % 2 else f"\fContents{gap}xv", ""]
    body = []
    for n, title in enumerate(chapters, 1):
        body.append(f"\f\f{title}\n{' ' * 50}Chapter   {n}\n{PROSE}\n")
        body += [f"{n}.{k}. Part {k} of {title}\n{PROSE}\n" for k in (1, 2)]
    text = "Think Python\n\nContents\n" + "\n".join(rows) + "\n" + "\n".join(body)
    found = [(h.title, h.level) for h in find_heading_lines(text.split("\n"))]
    assert found == [
        h
        for n, title in enumerate(chapters, 1)
        for h in [(title, 1), *((f"{n}.{k}. Part {k} of {title}", 2) for k in (1, 2))]
    ]


def test_roman_numbered_contents_entries_beside_arabic_chapters_are_parts() -> None:
    # a typeset book's contents (pdftotext -layout): "I   Basic techniques" and "1
    # Introduction" flush left, sections indented; the roman series ranks above
    contents = (
        "I   Basic techniques                    1\n"
        "1 Introduction                          3\n"
        "  1.1 Programming languages . . . . .   3\n"
        "2 Time complexity                       5\n"
        "II  Graph algorithms                    9\n"
        "3 Basics of graphs                      9\n"
    )
    titles = ["Basic techniques", "Introduction", "1.1 Programming languages"]
    titles += ["Time complexity", "Graph algorithms", "Basics of graphs"]
    body = "\n\n".join(f"{t}\n\n{PROSE}" for t in titles)
    lines = f"Handbook\n\nContents\n\n{contents}\n\n{body}\n".split("\n")
    found = [(h.title, h.level) for h in find_heading_lines(lines)]
    assert found == list(zip(titles, [1, 2, 3, 2, 1, 2], strict=True))


def test_program_comments_in_a_text_are_no_markdown_headings() -> None:
    # pdftotext of a programming book (issue 41): "# compute the percentage" in a listing
    # is a comment, not an ATX heading; three of them put the whole book in markdown mode
    code = "\n".join(
        ["# compute the percentage", "x = minutes / 60", "# WRONG!", "# inside class Time:"]
    )
    body = "\n\n".join(f"CHAPTER {n}.\n\n{PROSE}\n\n{code}\n\n{PROSE}" for n in ("I", "II", "III"))
    doc = flat_text_document(f"Think Python\n\n{body}\n", "book.txt")
    assert doc.heading_mode == "heuristic"
    headings = [b.title for b in parse(doc).blocks if b.kind == "heading"]
    assert headings == ["CHAPTER I.", "CHAPTER II.", "CHAPTER III."]
    assert "# compute the percentage" in doc.text.replace("\\#", "#")  # the text is kept


def test_comment_blocks_of_a_script_are_no_markdown_headings() -> None:
    # pdftotext of a manual's Perl listing (issue 41): comment blocks framed by bare "#"
    # lines, in Title Case with no end punctuation, put the whole text in markdown mode
    script = "\n".join(
        ["# Language", "#", '$language = "russian";', "# Fonts for the chart", "#", "$font = 1;"]
    )
    body = "\n\n".join(f"CHAPTER {n}.\n\n{PROSE}\n\n{script}\n\n{PROSE}" for n in ("I", "II"))
    doc = flat_text_document(f"Pedigree\n\n{body}\n\nCHAPTER III.\n\n{PROSE}\n", "book.txt")
    assert doc.heading_mode == "heuristic"
    headings = [b.title for b in parse(doc).blocks if b.kind == "heading"]
    assert headings == ["CHAPTER I.", "CHAPTER II.", "CHAPTER III."]
    # a markdown heading over its text is still one
    md = flat_text_document("Notes\n\n# One\n\nText.\n\n# Two\n\nText.\n\n# Three\n", "n.txt")
    assert md.heading_mode == "markdown"


def test_pdftotext_chapter_title_under_a_page_opening_label_is_named_by_the_contents() -> None:
    # plain pdftotext (issue 41): a typeset chapter opens its page with its label alone
    # ("\fChapter 1") and the title on the line under it, the text straight after; its
    # sections are numbered lines set off by blank lines; a page break inside the contents
    # ("\f2 Sorting") is no indentation, so chapter 2 ranks with chapter 1
    contents = (
        "1 Introduction\n"
        "1.1 Programming languages . . . . . . . .\n"
        "1.2 Input and output . . . . . . . . . .\n"
        "\f2 Sorting\n"
        "2.1 Sorting theory . . . . . . . . . . .\n"
        "2.2 Binary search . . . . . . . . . . . .\n"
    )
    body = ""
    for n, (title, sections) in enumerate(
        [("Introduction", ["Programming languages", "Input and output"]),
         ("Sorting", ["Sorting theory", "Binary search"])], 1
    ):  # fmt: skip
        body += f"\fChapter {n}\n{title}\n{PROSE}\n\n"
        body += "".join(f"{n}.{k}\n\n{s}\n\n{PROSE}\n\n" for k, s in enumerate(sections, 1))
    text = f"A Handbook\n\nContents\n{contents}\n{body}"
    assert _titles(text) == [
        ("Introduction", 1),
        ("Programming languages", 2),
        ("Input and output", 2),
        ("Sorting", 1),
        ("Sorting theory", 2),
        ("Binary search", 2),
    ]


def test_pdftotext_chapter_title_under_its_number_ends_the_contents() -> None:
    # plain pdftotext of a thesis (issue 41): the contents prints "1 Introduction" and its
    # page on lines of their own; the chapter opens its page with its number alone
    # ("\f1"), then its title: that title is the body's first heading, not one more entry
    # of the contents, and the contents' "1 Introduction" names it
    contents = "".join(
        f"{n} {t}\n\n{p}\n\n{n}.1 {s} . . . . . . . . . .\n\n{p}\n\n"
        for n, t, s, p in [(1, "Introduction", "Scope", 1), (2, "Methods", "Data", 5)]
    )
    body = "".join(
        f"\f{n}\n\n{t}\n\n{PROSE}\n\n{n}.1 {s}\n{PROSE}\n\n{PROSE}\n\n"
        f"Chapter {n}\n\n{t}\n\n\f{PROSE}\n\n"  # a page's running foot
        for n, t, s in [(1, "Introduction", "Scope"), (2, "Methods", "Data")]
    )
    text = f"A Thesis\n\n\fContents\n\n{contents}\f{body}"
    found = [("1 Introduction", 1), ("1.1 Scope", 2), ("2 Methods", 1), ("2.1 Data", 2)]
    assert _titles(text) == found


def test_plain_pdftotext_part_page_under_its_label_and_a_blank_line() -> None:
    # plain pdftotext of a manual in parts (issue 41): the contents prints each part's
    # numeral and title on lines of their own; the part's page opens with its label, a
    # blank line, its title and the first chapter's number under it ("\fPart I", "",
    # "User Manual", "1"): the title is the part's, above its chapters, without the "1"
    parts = [("I", "User Manual", [(1, "Introduction"), (2, "Installation")])]
    parts += [("II", "Algorithm Description", [(3, "Main Algorithm"), (4, "Conclusion")])]
    contents = body = ""
    for numeral, part, chapters in parts:
        contents += f"{numeral}\n\n{part}\n\n4\n\n"
        contents += "".join(f"{n} {t}\n\n{n + 3}\n\n" for n, t in chapters)
        body += f"\fPart {numeral}\n\n{part}\n{chapters[0][0]}\n\n{chapters[0][1]}\n\n{PROSE}\n\n"
        body += "".join(f"\f{n}\n\n{t}\n\n{PROSE}\n\n" for n, t in chapters[1:])
    text = f"A Manual\n\n\fContents\n{contents}{body}"
    assert _titles(text) == [
        ("Part I User Manual", 1),
        ("Introduction", 2),
        ("2 Installation", 2),
        ("Part II Algorithm Description", 1),
        ("Main Algorithm", 2),
        ("4 Conclusion", 2),
    ]


def test_pdftotext_appendix_lettered_like_a_section_number() -> None:
    # pdftotext of a LaTeX manual (issue 41): an appendix is numbered by a letter, in the
    # contents and in the body, where pdftotext runs it into its text as it does "2 Fonts"
    contents = "".join(
        f"{t} . . . . . . . . . . {p}\n"
        for t, p in [("1 Usage", 1), ("2 Fonts", 3), ("3 Areas of Use", 5), ("A References", 7)]
    )
    body = "".join(
        f"{t}\n{PROSE}\n\n{PROSE}\n\n"
        for t in ["1 Usage", "2 Fonts", "3 Areas of Use", "A References"]
    )
    text = f"A Manual\n\nContents\n{contents}\n{body}"
    assert [t for t, _ in _titles(text)] == [
        "1 Usage",
        "2 Fonts",
        "3 Areas of Use",
        "A References",
    ]


def test_a_figure_printed_twice_is_no_contents_block() -> None:
    # plain pdftotext of a manual (issue 41): a chart on the title page, printed again in
    # the body, reads as a list of short lines whose "titles" come back later; its dates
    # ("20.02.") are figures, no entry's title, so the real contents block names the headings
    chart = "\n\n".join(["Blood Sugar", "18.02.", "20.02.", "22.02.", "24.02.", "26.02.", "28.02."])
    chart += "\n\n" + "\n\n".join(["morning", "noon", "evening"])
    titles = ["1 Options", "2 Storing data", "3 Editing data", "4 Presenting data"]
    contents = "".join(f"{t}\n\n{n}\n\n" for n, t in enumerate(titles, 4))
    body = "".join(f"{t}\n{PROSE}\n\n{PROSE}\n\n" for t in titles[:3])
    body += f"{chart}\n\n{PROSE}\n\n{titles[3]}\n{PROSE}\n"
    text = f"diadia.sty\n\n{chart}\n\nContents\n\n{contents}\f{body}"
    assert [t for t, _ in _titles(text)] == titles


def test_plain_pdftotext_contents_numbers_over_their_titles_between_blank_lines() -> None:
    # plain pdftotext (issue 41): each contents entry's number, title and page on lines
    # of their own, blank lines between ("8.1", "", "Support of … . . .", "", "10"); a
    # section's number is its rank, under the chapters, as the body prints it apart too
    chapters = [(1, "Loading the package", ["Basic options", "Language options"])]
    chapters += [(2, "Supported packages", ["The listings package", "The longtable package"])]
    contents = body = ""
    for n, title, sections in chapters:
        contents += f"{n}\n\n{title}\n\n{n + 1}\n\n"
        contents += "".join(
            f"{n}.{k}\n\n{s} . . . . . . . . . .\n\n{n + 1}\n\n" for k, s in enumerate(sections, 1)
        )
        body += f"\f{n}\n\n{title}\n\n{PROSE}\n\n"
        body += "".join(f"{n}.{k}\n\n{s}\n\n{PROSE}\n\n" for k, s in enumerate(sections, 1))
    text = f"The Package\n\nContents\n{contents}{body}"
    found = [(t.split()[-1], level) for t, level in _titles(text)]
    assert found == [
        ("package", 1),
        ("options", 2),
        ("options", 2),
        ("packages", 1),
        ("package", 2),
        ("package", 2),
    ]


def test_pdftotext_layout_chapter_number_far_right_of_its_title() -> None:
    # pdftotext -layout of a thesis (issue 41): a chapter opens its page with its title
    # and its number set big in the margin, far right of it ("\fIntroduction     1");
    # the contents' "1 Introduction" names it, and its sections rank under it
    chapters = [(1, "Introduction", ["Motivation", "Results"]), (2, "System", ["Design"])]
    contents = body = ""
    for n, title, sections in chapters:
        contents += f"{n} {title}{' ' * 40}{n * 3}\n"
        contents += "".join(
            f"   {n}.{k} {s} . . . . . . . .   {n * 3}\n" for k, s in enumerate(sections, 1)
        )
        body += f"\f{title}{' ' * 30}{n}\n{PROSE}\n\n"
        body += "".join(f"{n}.{k} {s}\n{PROSE}\n\n" for k, s in enumerate(sections, 1))
    text = f"The Thesis\n\nContents\n\n{contents}\n{body}"
    assert _titles(text) == [
        ("1 Introduction", 1),
        ("1.1 Motivation", 2),
        ("1.2 Results", 2),
        ("2 System", 1),
        ("2.1 Design", 2),
    ]


def test_plain_pdftotext_chapter_title_over_its_number_repeated_in_a_running_foot() -> None:
    # plain pdftotext of a thesis (issue 41): a chapter opens its page with its title and
    # its number on a line under it ("\fConclusion", "", "5"), as a running head over its
    # page's number reads, and a running foot repeats the title nearby; the contents'
    # "5 Conclusion" names it all the same
    contents = "4 Concepts\n\n3\n\n4.1 Design . . . . . . .\n\n4\n\n"
    contents += "5 Conclusion\n\n7\n\n5.1 Future Work . . . . . . .\n\n8\n\n"
    body = f"\f4\n\nConcepts\n\n{PROSE}\n\n4.1 Design\n{PROSE}\n\n"
    body += f"\fConclusion\n\n5\n\n{PROSE}\n\n5.1 Future Work\n{PROSE}\n\n"
    body += f"8\n\nChapter 5\n\nConclusion\n\n\f{PROSE}\n"
    text = f"The Thesis\n\n\fContents\n\n{contents}{body}"
    assert _titles(text) == [
        ("4 Concepts", 1),
        ("4.1 Design", 2),
        ("5 Conclusion", 1),
        ("5.1 Future Work", 2),
    ]


# the outline of the short pdftotext manual below: numbered sections with no contents block
_PST_OUTLINE = [
    ("1 Quick overview", 1),
    ("2 Coordinates and Node Expressions", 1),
    ("2.1 Predefined points", 2),
    ("3 An example file", 1),
]


def test_pdftotext_numbered_sections_with_no_contents_count_up() -> None:
    # pdftotext of a short manual with no contents block (issue 41): sections numbered
    # "2 Coordinates" run into their text, or "3 An example file" in sentence case between
    # blank lines; counting up by one they are the outline, "2.1 …" a rank below. A
    # numbered note whose first line runs to the text's width is a paragraph
    prose = textwrap.fill(PROSE, 80)
    note = textwrap.fill("4 Note that the package needs a recent kernel. " + PROSE, 80)
    body = f"1 Quick overview\n{prose}\n\n2 Coordinates and Node Expressions\n{prose}\n\n"
    body += f"2.1 Predefined points\n{prose}\n\n3 An example file\n\n{prose}\n\n{note}\n"
    text = f"pst-layout\n\n{body}"
    assert _titles(text) == _PST_OUTLINE


def test_one_navigation_link_leaves_numbered_sections_to_count_up() -> None:
    # a "Next topic" link or two, fewer than navigation needs to decide, must not switch
    # off the runs of numbered sections that decide without a contents block (review of
    # issue 41: any link did)
    prose = textwrap.fill(PROSE, 80)
    body = f"1 Quick overview\n{prose}\n\n2 Coordinates and Node Expressions\n{prose}\n\n"
    body += f"2.1 Predefined points\n{prose}\nNext topic: 3 An example file\n\n"
    body += f"3 An example file\n\n{prose}\n"
    assert _titles(f"pst-layout\n\n{body}") == _PST_OUTLINE


def test_numbered_steps_between_blank_lines_are_no_sections() -> None:
    # with no contents block, a list of steps set apart by blank lines, nothing under
    # each, counts up by one too; it stays text under its section (review of issue 41)
    prose = textwrap.fill(PROSE, 72)
    steps = "\n\n".join(
        f"{n} {s}"
        for n, s in enumerate(["Download the archive", "Unpack it in your folder", "Run it"], 1)
    )
    text = f"Widget Manual\n\nINTRODUCTION\n\n{prose}\n\nINSTALLATION\n\n{prose}\n\n"
    text += f"{steps}\n\n{prose}\n\nUSAGE\n\n{prose}\n\nTROUBLESHOOTING\n\n{prose}\n"
    assert [t for t, _ in _titles(text)] == [
        "INTRODUCTION",
        "INSTALLATION",
        "USAGE",
        "TROUBLESHOOTING",
    ]


def test_pdftotext_layout_contents_in_two_columns_side_by_side() -> None:
    # pdftotext -layout of a manual (issue 41): a two-column contents prints each line
    # with a left entry, its page, a wide gap and a right entry; read as two columns, the
    # left one first, it names every heading
    left = ["1 Beuronese Art", "  1.1 The Script", "2 Fonts", "  2.1 Characters"]
    right = ["3 Areas of Use", "4 License", "A References", "B Version History"]
    contents = "".join(
        f"      {a:<40}{n:>3}       {b:<40}{n + 5:>3}\n"
        for n, (a, b) in enumerate(zip(left, right, strict=True), 1)
    )
    titles = [t.strip() for t in left + right]
    body = "".join(f"{t}\n{PROSE}\n\n{PROSE}\n\n" for t in titles)
    text = f"The Manual\n\n      Contents\n{contents}\n\n{body}"
    assert _titles(text) == [(t, 2 if "." in t.split()[0] else 1) for t in titles]


def test_a_row_of_figures_over_a_rule_is_no_underlined_heading() -> None:
    # a table printed as text: rows of figures, each over a rule of dashes, are no
    # underlined titles; the text's own headings stand
    table = "".join(f"{row}\n{'-' * len(row)}\n" for row in ("1   4   6", "4   1   0", "6   0   2"))
    text = f"Chapter 1\n\n{PROSE}\n\n{table}\nChapter 2\n\n{PROSE}\n\nChapter 3\n\n{PROSE}\n"
    assert _titles(text) == [("Chapter 1", 1), ("Chapter 2", 1), ("Chapter 3", 1)]


def test_pdftotext_contents_in_columns_pairs_numbers_with_titles() -> None:
    # plain pdftotext (issue 41) prints a typeset contents in columns: a chapter's section
    # numbers on lines of their own, its page numbers, then its titles
    chapters = [
        ("Functions", ["Function calls", "Math functions", "Composition"]),
        ("Iteration", ["Reassignment", "Updating variables", "The while loop"]),
    ]
    rows = []
    for n, (title, sections) in enumerate(chapters, 1):
        rows += [f"{n}. {title}", "", f"{n * 10}", ""]
        rows += [f"{n}.{k}." for k in range(1, 4)] + [""]
        rows += [f"{n * 10 + k}" for k in (0, 1, 1)] + [""]
        rows += [f"{s} . . . . . . . . . . . . . ." for s in sections] + [""]
    body = ""
    for n, (title, sections) in enumerate(chapters, 1):
        body += f"\fChapter {n}\n\n{title}\n\n{PROSE}\n\n"
        body += "".join(f"{n}.{k}. {s}\n{PROSE}\n\n" for k, s in enumerate(sections, 1))
    text = "Think Again\n\nContents\n" + "\n".join(rows) + "\n" + body
    assert _titles(text) == [
        h
        for n, (title, sections) in enumerate(chapters, 1)
        for h in [
            (f"Chapter {n} {title}", 1),
            *((f"{n}.{k}. {s}", 2) for k, s in enumerate(sections, 1)),
        ]
    ]


def test_navigation_links_name_the_headings_and_their_depth() -> None:
    # a DITA help system's EPUB written by pandoc as plain text (issue 41): each topic
    # prints "Parent topic", "Previous topic" and "Next topic" links; a per-chapter mini
    # contents lists the sections, the book has no contents block of its own
    topics = [
        ("Copyright", None, []),  # the first topic: no link names it, no heading
        ("Part I. Core", None, []),
        ("Chapter 1. Systems", "Part I. Core", ["Section A  Lines", "Section B  Planes"]),
        ("Section A  Lines", "Chapter 1. Systems", []),
        ("Section B  Planes", "Chapter 1. Systems", []),
        ("Chapter 2. Vectors", "Part I. Core", ["Section C  Spans"]),
        ("Section C  Spans", "Chapter 2. Vectors", []),
    ]
    text = "A Course\n\n"
    for n, (title, parent, mini) in enumerate(topics):
        text += f"{title}\n\n{PROSE}\n\n"
        text += "".join(f"{k}.  {m}\n" for k, m in enumerate(mini, 1)) + "\n" if mini else ""
        text += f"Parent topic: {parent}\n\n" if parent else ""
        text += f"Previous topic: {topics[n - 1][0]}\n\n" if n else ""  # names nothing new
        if n + 1 < len(topics):
            text += f"Next topic: {topics[n + 1][0]}\n\n"
    assert _titles(text) == [
        ("Part I. Core", 1),
        ("Chapter 1. Systems", 2),
        ("Section A  Lines", 3),
        ("Section B  Planes", 3),
        ("Chapter 2. Vectors", 2),
        ("Section C  Spans", 3),
    ]


def _layout_book(contents: list[str], chapters: list[tuple[str, str, list[str]]]) -> str:
    """A pdftotext -layout text: a contents block, then each chapter opening its page with
    its title (its label set beside it) and its numbered sections set off."""
    body = []
    for n, (title, rest, sections) in enumerate(chapters, 1):
        label = f"{' ' * 50}Chapter   {n}"
        body.append(
            f"\f{title}\n{label}\n{rest}\n{PROSE}\n" if rest else f"\f{title}\n{label}\n{PROSE}\n"
        )
        body += [f"\n\n{n}.{k}. {s}\n\n{PROSE}\n" for k, s in enumerate(sections, 1)]
    return "Think Python\n\nContents\n" + "\n".join(contents) + "\n\n" + "\n".join(body)


def test_pdftotext_layout_contents_ranks_by_section_numbers_not_each_pages_columns() -> None:
    # pdftotext -layout sets each page of a contents in its own columns: "3.8." sits six
    # columns in where "3.7." sat three; every chapter ends with "Debugging . . . 7"-style
    # entries that come back, numbers aside, and are still no running head
    chapters = [
        ("The way of the program", "", ["What is a program?", "Debugging", "Glossary"]),
        ("Functions", "", ["Function calls", "Debugging", "Glossary"]),
        ("Iteration", "", ["Reassignment", "Debugging", "Glossary"]),
        ("Strings", "", ["A string is a sequence", "Debugging", "Glossary"]),
    ]
    rows = []
    for n, (title, _, sections) in enumerate(chapters, 1):
        pad = "   " if n <= 2 else "      "  # the contents' second page, its own columns
        rows.append(f"{n}. {title}{' ' * 30}{n * 10}")
        rows += [
            f"{pad}{n}.{k}.    {s} . . . . . . . .    {n * 10 + k}"
            for k, s in enumerate(sections, 1)
        ]
        rows.append("")
    text = _layout_book(rows, chapters)
    found = [(h.title, h.level) for h in find_heading_lines(text.split("\n"))]
    assert found == [
        h
        for n, (title, _, sections) in enumerate(chapters, 1)
        for h in [(title, 1), *((f"{n}.{k}. {s}", 2) for k, s in enumerate(sections, 1))]
    ]


def test_a_chapter_title_wrapped_round_its_label_is_one_heading() -> None:
    # pdftotext -layout prints a title's last words under the "Chapter 2" set beside it:
    # "Variables, expressions and", "      Chapter   2", "statements"
    chapters = [
        ("The way of the program", "", ["What is a program?"]),
        ("Variables, expressions and", "statements", ["Assignment statements"]),
        ("Case study: data structure", "selection", ["Word frequency analysis"]),
    ]
    rows = []
    for n, (title, rest, sections) in enumerate(chapters, 1):
        rows.append(f"{n}. {f'{title} {rest}'.strip()}{' ' * 30}{n * 10}")
        rows += [
            f"   {n}.{k}.    {s} . . . . . . . .    {n * 10 + k}" for k, s in enumerate(sections, 1)
        ]
    text = _layout_book(rows, chapters)
    doc = flat_text_document(text, "book.txt")
    headings = [(b.title, b.level) for b in parse(doc).blocks if b.kind == "heading"]
    assert headings == [
        ("The way of the program", 1),
        ("1.1. What is a program?", 2),
        ("Variables, expressions and statements", 1),
        ("2.1. Assignment statements", 2),
        ("Case study: data structure selection", 1),
        ("3.1. Word frequency analysis", 2),
    ]
    assert "\nstatements\n" not in doc.text  # the title's rest joined the heading


def test_a_line_under_a_chapter_label_that_opens_with_a_capital_stays_text() -> None:
    # a short first line of the chapter's text under the label is no rest of its title
    chapters = [
        ("Functions", "Programs are made of", ["Function calls"]),
        ("Iteration", "", ["Reassignment"]),
        ("Strings", "", ["Slices"]),
    ]
    rows = [
        f"{n}. {t}{' ' * 30}{n}\n   {n}.1.    {s[0]} . . . .   {n}"
        for n, (t, _, s) in enumerate(chapters, 1)
    ]
    doc = flat_text_document(_layout_book(rows, chapters), "book.txt")
    headings = [b.title for b in parse(doc).blocks if b.kind == "heading"]
    assert headings[:2] == ["Functions", "1.1. Function calls"]
    assert "\nPrograms are made of\n" in doc.text


def test_a_contents_block_runs_over_a_page_number_and_a_form_feed() -> None:
    # pdftotext -layout ends a contents page with blank lines and its page number, then a
    # form feed: the block goes on over them, so every chapter is named, not only the
    # longest page's
    first = [f"{n} Chapter title number {n}{' ' * 30}{n}" for n in range(1, 5)]
    second = [f"{n} Chapter title number {n}{' ' * 30}{n}" for n in range(5, 12)]
    contents = "\n\n".join(first) + "\n\n\n\n" + " " * 40 + "2\n\f" + "\n\n".join(second)
    body = "\n".join(f"\n\n{n}    Chapter title number {n}\n{PROSE}\n" for n in range(1, 12))
    found = find_heading_lines(f"Manual\n\nContents\n{contents}\n{body}".split("\n"))
    assert [h.title for h in found] == [f"{n}    Chapter title number {n}" for n in range(1, 12)]


def test_numbered_headings_stacked_at_a_page_top_are_each_named() -> None:
    # pdftotext -layout: a chapter opens its page with its section and subsection lines
    # straight under it ("\f4       Frames and Overlays", "4.1     Frames", "4.1.1 ...");
    # a form feed sets the first off as a blank line does, and the others run on from it
    rows = [("1", "Introduction"), ("1.1", "Overview"), ("2", "Frames and Overlays")]
    rows += [("2.1", "Frames"), ("3", "Structuring"), ("3.1", "Sections")]
    contents = "\n".join(f"{n}   {t}{' ' * 30}{page}" for page, (n, t) in enumerate(rows, 1))
    body = (
        f"\f1       Introduction\n1.1     Overview\n{PROSE}\n\n\n       7\n"
        f"\f2       Frames and Overlays\n2.1     Frames\n{PROSE}\n\n\n       9\n"
        f"\f3       Structuring\n3.1     Sections\n{PROSE}\n"
    )
    found = find_heading_lines(f"Beamer\n\nContents\n{contents}\n\n{body}".split("\n"))
    assert [(h.title.split()[0], h.level) for h in found] == [
        ("1", 1),
        ("1.1", 2),
        ("2", 1),
        ("2.1", 2),
        ("3", 1),
        ("3.1", 2),
    ]


def test_a_contents_entry_repeating_an_earlier_title_under_another_number_goes_on() -> None:
    # "39 Page numbers" after "27 Page numbers" is the contents' next entry, not the body
    # having begun: the block names every chapter after it too
    titles = ["Setup", "Page numbers", "Every page", "Page numbers", "Table of contents"]
    contents = "\n\n".join(f"{n} {t}{' ' * 30}{n * 3}" for n, t in enumerate(titles, 1))
    body = "\n".join(f"\n\n{n}     {t}\n{PROSE}\n" for n, t in enumerate(titles, 1))
    found = find_heading_lines(f"Manual\n\nContents\n{contents}\n{body}".split("\n"))
    assert [h.title.split(maxsplit=1)[0] for h in found] == ["1", "2", "3", "4", "5"]


def test_a_numbered_title_wrapped_under_its_title_column_is_one_heading() -> None:
    # "51      Encoding definition files for encodings of PDF", "        strings": the
    # second line is indented to where the title starts, and the contents names both
    titles = ["Options", "Bookmarks", "Encoding definition files for encodings of PDF strings"]
    contents = "\n\n".join(f"{n} {t}{' ' * 20}{n * 3}" for n, t in enumerate(titles, 1))
    body = (
        f"\n\n1      Options\n{PROSE}\n\n\n2      Bookmarks\n{PROSE}\n\n\n"
        f"3      Encoding definition files for encodings of PDF\n       strings\n{PROSE}\n"
    )
    doc = flat_text_document(f"Manual\n\nContents\n{contents}\n{body}", "manual.txt")
    headings = [b.title for b in parse(doc).blocks if b.kind == "heading"]
    assert (
        " ".join(headings[-1].split()) == "3 Encoding definition files for encodings of PDF strings"
    )
    assert "\n       strings\n" not in doc.text


def test_plain_pdftotext_contents_with_part_numerals_on_their_own_lines() -> None:
    # plain pdftotext of a typeset book: the contents prints a part's numeral alone ("II"),
    # its title under it, then page numbers alone; the contents page's own number ("ii")
    # opens it. None of those numbers is an entry or ends the block, and a title the body
    # sets under a page-opening "Part II" label is a part, above the chapters
    parts = [("I", "Basic techniques", ["Introduction", "Sorting"]),
             ("II", "Graph algorithms", ["Basics of graphs", "Shortest paths"])]  # fmt: skip
    rows, body, n = ["\fii", "", "\fContents"], [], 0
    for numeral, title, chapters in parts:
        rows += ["", numeral, "", title, "", str(10 * n + 7), ""]
        body += [f"\fPart {numeral}\n{title}\n\n{10 * n + 1}\n"]
        for chapter in chapters:
            n += 1
            rows += [f"{n} {chapter}", f"{n}.1 Basics . . . . . . . . .", "", str(10 * n), ""]
            body += [f"\f\fChapter {n}\n{chapter}\n{PROSE}\n\n{n}.1\n\nBasics\n\n{PROSE}\n"]
    text = "Handbook\n\n" + "\n".join(rows) + "\n" + "\n".join(body)
    found = [(h.title, h.level) for h in find_heading_lines(text.split("\n"))]
    assert [f for f in found if f[1] <= 2] == [
        ("Basic techniques", 1),
        ("Introduction", 2),
        ("Sorting", 2),
        ("Graph algorithms", 1),
        ("Basics of graphs", 2),
        ("Shortest paths", 2),
    ]


def _plain_book(chapters: list[tuple[str, list[str]]], *, heads: bool) -> str:
    """A plain pdftotext text: a contents, then each chapter opening its page with its
    label, number and title on lines of their own; with ``heads``, a page break in each
    section under a running head ("\\f1.2. docstring", then the page's number)."""
    rows, body, page = [], [], 1
    for n, (title, sections) in enumerate(chapters, 1):
        rows += [f"{n}. {title}", ""]
        rows += [f"{n}.{k}. {s} . . . . . . . . {n * 10 + k}" for k, s in enumerate(sections, 1)]
        rows.append("")
        first, _, rest = title.rpartition(" ") if len(title) > 24 else (title, "", "")
        body.append(
            f"\f\fChapter\n\n{n}\n\n{first}\n{rest}\n\n{PROSE}\n"
            if rest
            else f"\f\fChapter\n\n{n}\n\n{title}\n\n{PROSE}\n"
        )
        for k, s in enumerate(sections, 1):
            body.append(f"{n}.{k}. {s}\n{PROSE}\n")
            if heads:
                page += 1
                body.append(f"{PROSE}\n\f{n}.{k}. {s}\n\n{page}\n\n{PROSE}\n")
    return "Think Python\n\nContents\n\n" + "\n".join(rows) + "\n" + "\n".join(body)


def test_plain_pdftotext_running_heads_and_titles_on_two_lines() -> None:
    # a running head repeating its section's title opens a page over the page's number:
    # no heading; a chapter title set on two lines, the second going on in lower case,
    # is one title the contents names; "4.9. docstring" (lower case) ranks as a section
    chapters = [
        ("The way of the program", ["What is a program?", "docstring"]),
        ("Variables, expressions and statements", ["Assignment statements", "Comments"]),
        ("Functions", ["Function calls", "Math functions"]),
    ]
    text = _plain_book(chapters, heads=True)
    found = [(" ".join(h.title.split()), h.level) for h in find_heading_lines(text.split("\n"))]
    assert found == [  # the chapter's number, alone over its title, joins it
        h
        for n, (title, sections) in enumerate(chapters, 1)
        for h in [(f"{n} {title}", 1), *((f"{n}.{k}. {s}", 2) for k, s in enumerate(sections, 1))]
    ]


def test_a_chapter_title_over_its_number_opening_a_page_is_no_running_head() -> None:
    # "\fModels", then "3": a chapter's title printed once over its number is its heading
    lines = [
        "Manual",
        "",
        "Contents",
        "",
        "Basics . . . . 1",
        "Models . . . . 3",
        "Tools . . . . 5",
    ]
    lines += ["", PROSE, ""]  # a preface between the contents and the first chapter
    for title, n in (("Basics", 1), ("Models", 3), ("Tools", 5)):
        lines += [f"\f{title}", "", str(n), "", PROSE, ""]
    assert [h.title for h in find_heading_lines(lines)] == ["Basics", "Models", "Tools"]


def test_plain_pdftotext_contents_one_entry_on_two_lines() -> None:
    # plain pdftotext prints each section number alone over its title ("2.1", "Package
    # manager . . . ."): paired again, the entries name the sections run into their text
    rows = ["1 Introduction", "", "4", "", "2 Installation"]
    rows += ["2.1", "Package manager . . . . . . . .", "2.2", "Manual installation . . . . . ."]
    rows += ["", "5", "", "3 Basic usage", "3.1", "Formatting . . . . . .", "3.2", "Styles . . . ."]
    body = ["1 Introduction", PROSE, "", "2 Installation", "2.1 Package manager", PROSE, ""]
    body += ["2.2 Manual installation", PROSE, "", "3 Basic usage", "3.1 Formatting", PROSE, ""]
    body += ["3.2 Styles", PROSE]
    lines = ["minted", "", "Contents", *rows, "", PROSE, "", *body]
    found = [(h.title, h.level) for h in find_heading_lines(lines)]
    assert found == [
        ("1 Introduction", 1),
        ("2 Installation", 1),
        ("2.1 Package manager", 2),
        ("2.2 Manual installation", 2),
        ("3 Basic usage", 1),
        ("3.1 Formatting", 2),
        ("3.2 Styles", 2),
    ]


def test_plain_pdftotext_contents_columns_with_page_numbers_between_in_runs() -> None:
    # numbers, then the page numbers in several runs (a page's columns mix the next
    # chapters' numbers in), then as many titles: each number pairs with its title; a
    # contents page's running head ("\fContents", then "xvii") does not end the block
    rows = ["12. Tuples", "", "12.1.", "12.2.", "", "101", "102", "", "107", "108", "109", ""]
    rows += ["Tuples are immutable . . . . . .", "Tuple assignment . . . . . . . .", ""]
    rows += ["\fContents", "", "xvii", "", "12.3. Lists and tuples . . . . . . .", "13. Files", ""]
    rows += ["13.1. Persistence . . . . . . . .", "13.2. Pickling . . . . . . . ."]
    sections = ["12.1. Tuples are immutable", "12.2. Tuple assignment", "12.3. Lists and tuples"]
    body = ["\fChapter 12", "Tuples", PROSE, ""]
    body += [line for s in sections for line in (s, PROSE, "")]
    body += ["\fChapter 13", "Files", PROSE, "", "13.1. Persistence", PROSE, ""]
    body += ["13.2. Pickling", PROSE]
    lines = ["Think Python", "", "\fContents", "", *rows, "", PROSE, "", *body]
    found = [(h.title, h.level) for h in find_heading_lines(lines)]
    assert found == [
        ("Tuples", 1),
        *((s, 2) for s in sections),
        ("Files", 1),
        ("13.1. Persistence", 2),
        ("13.2. Pickling", 2),
    ]


def test_titles_over_sections_numbered_n_m_only_are_chapters() -> None:
    # a lecture's contents: each chapter's number printed apart ("1", then "Was ist
    # Syntax?"), its sections numbered "1.1": the plain titles rank above the sections
    rows = [
        "1",
        "",
        "Was ist Syntax?",
        "1.1 Natürliche Sprachen . . . . .",
        "1.2 Logik . . . .",
        "",
    ]
    rows += ["2", "", "Was ist Semantik?", "2.1 Bedeutung . . . . .", "2.2 Modelle . . . .", ""]
    titles = ["Was ist Syntax?", "1.1 Natürliche Sprachen", "1.2 Logik", "Was ist Semantik?"]
    titles += ["2.1 Bedeutung", "2.2 Modelle"]
    body = [line for t in titles for line in ("", t, "", PROSE)]
    found = find_heading_lines(["Syntax und Semantik", "", "Inhalt", *rows, PROSE, *body])
    assert [(h.title, h.level) for h in found] == list(zip(titles, [1, 2, 2, 1, 2, 2], strict=True))


def test_a_hash_line_the_heuristics_did_not_take_is_text() -> None:
    # "# WRONG" in a listing printed at the margin (capitals, no punctuation) is no
    # heading of the chunker's when the flat text's headings are decided by heuristics
    body = "\n\n".join(f"CHAPTER {n}.\n\n{PROSE}" for n in ("I", "II", "III"))
    listing = "count = 0\ndef example3():\ncount = count + 1\n\n# WRONG"
    text = f"Think Python\n\n{body}\n\n{listing}\n\n{PROSE}\n"
    doc = flat_text_document(text, "book.txt")
    headings = [b.title for b in parse(doc).blocks if b.kind == "heading"]
    assert headings == ["CHAPTER I.", "CHAPTER II.", "CHAPTER III."]
    assert "# WRONG" in doc.text.replace("\\#", "#")


def test_a_title_under_a_label_printed_on_two_lines_opening_its_page() -> None:
    # plain pdftotext: "\fChapter", "14", then the title running into its text
    chapters = ["Tuples", "Files", "Classes"]
    rows = [f"{n}. {t} . . . . . . {n * 10}" for n, t in enumerate(chapters, 12)]
    body = [f"\f\fChapter\n\n{n}\n\n{t}\n{PROSE}\n" for n, t in enumerate(chapters, 12)]
    text = "Think Python\n\nContents\n\n" + "\n".join(rows) + f"\n\n{PROSE}\n\n" + "\n".join(body)
    assert [h.title for h in find_heading_lines(text.split("\n"))] == chapters


def test_pandoc_contents_entry_wrapped_onto_a_second_line() -> None:
    # pandoc -t plain wraps a long contents entry at 72 columns ("2.1 Characters and the
    # Principles of Setting them for Japanese", then "Composition"); the body prints the
    # heading on one line
    long = "Characters and the Principles of Setting them for Japanese Composition"
    entries = ["1 Introduction", "1.1 Purpose of This Document", "2 Basics of Composition"]
    entries += [f"2.1 {long}", "2.2 Page Formats for Japanese Documents"]
    wrapped = [
        "2.1 Characters and the Principles of Setting them for Japanese\nComposition"
        if e.startswith("2.1") else e for e in entries
    ]  # fmt: skip
    prose = textwrap.fill(PROSE, 72)  # pandoc's paragraphs, wrapped as its entries are
    body = "\n\n".join(f"{e}\n\n{prose}" for e in entries)
    text = "Requirements\n\nContents\n\n" + "\n\n".join(wrapped) + f"\n\n{prose}\n\n{body}\n"
    found = [(h.title, h.level) for h in find_heading_lines(text.split("\n"))]
    assert found == list(zip(entries, [1, 2, 1, 2, 2], strict=True))


def test_chapters_a_brief_contents_leaves_out_are_headings() -> None:
    # an ebook's brief contents names its front matter and "Begin Reading" only; the
    # chapters counting up after it ("Chapter 1. Loomings.") are headings beside them
    front = ["Transcriber's Notes", "Etymology", "Extracts"]
    rows = [f"{n}.  {t}" for n, t in enumerate([*front, "Begin Reading", "Copyright"], 1)]
    chapters = [f"Chapter {n}. Title number {n}." for n in range(1, 7)]
    body = [line for t in [*front, *chapters] for line in ("", t, "", PROSE)]
    found = find_heading_lines(["Moby-Dick", "", "Brief Contents", "", *rows, "", PROSE, *body])
    assert [(h.title, h.level) for h in found] == [(t, 1) for t in [*front, *chapters]]


def test_running_heads_numbering_chapters_are_no_series_the_contents_left_out() -> None:
    # "Chapter 2. Variables" printed on every page of its chapter: a number printed again
    # is a running head, not a chapter of a series the contents left out
    titles = ["Variables", "Functions", "Iteration", "Strings", "Lists", "Tuples"]
    rows = [f"{n}. {t} . . . . {n * 10}" for n, t in enumerate(titles, 1)]
    body = []
    for n, t in enumerate(titles, 1):
        body += ["", t, "", PROSE, "", f"Chapter {n}. {t}", "", PROSE, "", f"Chapter {n}. {t}"]
    found = find_heading_lines(["Think Python", "", "Contents", "", *rows, "", PROSE, *body])
    assert [h.title for h in found] == titles


def test_numerals_heading_a_storys_parts_rank_under_its_title() -> None:
    # "A Scandal in Bohemia", then "I", "II", "III" each heading the story's text: the
    # numerals divide the title over them; a numeral with its own title after it ("I",
    # "_Introduction_") stays a chapter's label
    stories = ["A Scandal in Bohemia", "The Redheaded League", "A Case of Identity"]
    body = ["", stories[0]]
    body += [line for n in ("I", "II", "III") for line in ("", n, "", PROSE)]
    body += [line for t in stories[1:] for line in ("", t, "", PROSE)]
    found = find_heading_lines(["Adventures", "", "", *body])
    assert [(h.title, h.level) for h in found] == [
        (stories[0], 1),
        ("I", 2),
        ("II", 2),
        ("III", 2),
        (stories[1], 1),
        (stories[2], 1),
    ]


def test_plain_pdftotext_two_column_contents_read_across_names_in_number_order() -> None:
    # plain pdftotext reads a contents set in two columns across them: "3 User Guide"'s
    # first lines, then the right column's "4 Author Guide", then the rest of 3's; the
    # entries name the body's headings in the order of their numbers
    rows = ["1 Introduction", "1.1 About . . . .", "1.2 License . . . .", ""]
    rows += ["3 User Guide", "3.1 Options . . . .", ""]
    rows += ["4 Author Guide", "4.1 Overview . . . .", "4.2 Styles . . . .", ""]
    rows += ["3.2 Commands . . . .", "3.3 Notes . . . .", "", "2 Database Guide", "2.1 Types . . ."]
    titles = ["1 Introduction", "1.1 About", "1.2 License", "2 Database Guide", "2.1 Types"]
    titles += ["3 User Guide", "3.1 Options", "3.2 Commands", "3.3 Notes", "4 Author Guide"]
    titles += ["4.1 Overview", "4.2 Styles"]
    body = [line for t in titles for line in ("", t, PROSE)]
    found = find_heading_lines(["biblatex", "", "Contents", "", *rows, "", PROSE, *body])
    assert [(h.title, h.level) for h in found] == [
        (t, 1 if "." not in t.split()[0] else 2) for t in titles
    ]


def test_numbered_sections_of_a_poem_in_the_contents_are_entries() -> None:
    # Folio's own flat export of an EPUB: a poem's sections "1", "2", "3" indented under
    # it in the contents name the body's bare numerals (no page numbers: they count from 1)
    rows = ["Inscriptions", "    One's-Self I Sing", "Song of Myself"]
    rows += [f"    {n}" for n in range(1, 5)] + ["Children of Adam"]
    body = ["Inscriptions", "One's-Self I Sing", "Song of Myself", *map(str, range(1, 5))]
    body += ["Children of Adam"]
    text = ["Leaves of Grass", "", "Contents", "", *rows, "", PROSE]
    text += [line for t in body for line in ("", t, "", PROSE)]
    found = [(h.title, h.level) for h in find_heading_lines(text)]
    assert found == list(zip(body, [1, 2, 1, 2, 2, 2, 2, 1], strict=True))


def test_chapters_inside_one_entry_of_a_full_contents_stay_under_it() -> None:
    # a contents naming more headings than a story's "CHAPTER I ..." series has them
    # inside its last entry: they are no series it left out at its top rank
    stories = [f"{190 + n} STORY NUMBER {n}" for n in range(8)]
    rows = ["SECTION IV FAIRY STORIES", *(f"    {s}" for s in stories)]
    body = ["SECTION IV FAIRY STORIES", *stories]
    text = ["Children's Literature", "", "Contents", "", *rows, "", PROSE]
    text += [line for t in body for line in ("", t, "", PROSE)]
    text += [
        line
        for n in ("I", "II", "III", "IV", "V")
        for line in ("", f"CHAPTER {n} HOW IT WENT", "", PROSE)
    ]
    found = find_heading_lines(text)
    assert [h.title for h in found] == body
