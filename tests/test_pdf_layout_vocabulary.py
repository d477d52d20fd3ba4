"""The dehyphenation vocabulary: one pass over all lines finds what a pass per line finds,
and joins read with the lazy ``Vocabulary`` are the joins read with the whole word set."""

from __future__ import annotations

import sys

from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.extract.pdf.layout import (
    _DROP,
    _GLUE,
    _KEEP,
    _SPACE,
    _WORD,
    Vocabulary,
    _join_how,
    _last_word,
    hyphen_between_letters,
    join_lines,
    vocabulary,
)

# letters whose case folding changes length or adds a combining mark, hyphens, digits,
# blanks and line breaks: where a joined pass could differ from one per line
_ALPHABET = "aZß-İﬁ1 _\n\t·é"
_LINES = st.lists(st.text(alphabet=_ALPHABET, max_size=20), max_size=8)


def _per_line(lines: list[str]) -> set[str]:
    vocab: set[str] = set()
    for line in lines:
        vocab.update(w.casefold() for w in _WORD.findall(line))
    return vocab


def _join_how_with_set(prev: str, nxt: str, vocab: set[str]) -> int:
    """``_join_how`` with the whole word set (what it read before ``Vocabulary``): a
    hyphen is kept when the compound is a word and the word joined is not."""
    if not nxt:
        return _KEEP
    if prev.endswith("\u00ad"):
        return _DROP
    if hyphen_between_letters(prev, nxt):
        head, tail = _last_word(prev[:-1]), _WORD.match(nxt)
        if vocab and head is not None and tail is not None:
            joined = (head + tail.group()).casefold()
            if joined not in vocab and f"{head}-{tail.group()}".casefold() in vocab:
                return _GLUE
        return _DROP
    return _SPACE


def join_pair(prev: str, nxt: str, vocab: set[str] | Vocabulary | None = None) -> str:
    """Two lines joined: the join ``join_lines`` makes, one pair at a time (the oracle of
    its linear join)."""
    if isinstance(vocab, set):
        how = _join_how_with_set(prev, nxt, vocab)
    else:
        how = _join_how(prev, nxt, vocab)
    if how == _KEEP:
        return prev
    if how == _DROP:
        return prev[:-1] + nxt
    return prev + nxt if how == _GLUE else f"{prev} {nxt}"


@given(_LINES)
def test_vocabulary_matches_a_pass_per_line(lines: list[str]) -> None:
    assert vocabulary(lines) == _per_line(lines)


@given(_LINES)
def test_compounds_are_the_words_with_a_hyphen(lines: list[str]) -> None:
    assert Vocabulary(lines).compounds == {w for w in _per_line(lines) if "-" in w}


@given(_LINES, st.text(alphabet=_ALPHABET, max_size=30), st.text(alphabet=_ALPHABET, max_size=12))
def test_joins_are_those_of_the_whole_word_set(lines: list[str], prev: str, nxt: str) -> None:
    prev += "-"  # a hyphen at the end of a line: the case the vocabulary decides
    lines = [*lines, prev, nxt]
    assert join_pair(prev, nxt, Vocabulary(lines)) == join_pair(prev, nxt, _per_line(lines))


def test_a_compound_seen_keeps_its_hyphen_unless_the_word_is_seen_whole() -> None:
    v = Vocabulary(["a well-known fact", "the self-", "evident truth"])
    assert join_pair("it is well-", "known", v) == "it is well-known"
    assert join_pair("it is a dehy-", "phenated word", v) == "it is a dehyphenated word"
    both = Vocabulary(["well-known", "wellknown"])
    assert join_pair("well-", "known", both) == "wellknown"


def test_no_case_folding_makes_a_hyphen() -> None:
    """A folded word holds a hyphen only when the word did: the compounds are all the
    folded words with one."""
    assert [c for c in range(sys.maxunicode + 1) if "-" in chr(c).casefold() and c != 0x2D] == []


def test_no_word_spans_two_lines() -> None:
    assert vocabulary(["well-", "known Straße"]) == {"well", "known", "strasse"}


def _fold_pairs(texts: list[str], vocab: Vocabulary | None) -> tuple[str, list[int]]:
    """What the paragraph join did before ``join_lines``: ``join_pair`` one text at a time."""
    joined, starts = "", []
    for text in texts:
        if not joined:
            starts.append(0)
            joined = text
            continue
        new = join_pair(joined, text, vocab)
        starts.append(len(new) - len(text))
        joined = new
    return joined, starts


_PIECE = st.text(alphabet="ab-\u00ad Zé1.", max_size=8)


@given(st.lists(_PIECE, max_size=10), st.lists(_PIECE, max_size=4), st.booleans())
@example(["x", "a-", "b", "c-", "d"], ["a-b"], True)  # the last word reaches back past a join
@example(["1 x-", "y-", "z"], [], True)
@example(["a\u00ad", "-", "b"], [], False)  # a soft hyphen dropped: "a-" is one stretch
@example(["ab\u00ad", "c-", "d"], ["abc-d"], True)  # the last word spans a dropped hyphen
def test_join_lines_is_join_pair_one_text_at_a_time(
    texts: list[str], more: list[str], with_vocab: bool
) -> None:
    vocab = Vocabulary([*texts, *more]) if with_vocab else None
    assert join_lines(texts, vocab) == _fold_pairs(texts, vocab)


@given(_LINES, st.text(alphabet=_ALPHABET, max_size=6))
def test_has_word_is_membership_in_the_words(lines: list[str], word: str) -> None:
    folded = word.casefold()
    assert Vocabulary(lines).has_word(folded) == (folded in _per_line(lines))


def test_no_character_folds_differently_in_a_string() -> None:
    """``has_word`` relies on case folding mapping each character on its own."""
    text = "".join(chr(c) for c in range(0x110000) if not 0xD800 <= c < 0xE000)
    assert text.casefold() == "".join(c.casefold() for c in text)


# lines without a line break, the case ``has_word`` reads line by line
_ONE_LINE = st.lists(st.text(alphabet=_ALPHABET.replace("\n", ""), max_size=10), max_size=4)


@given(_ONE_LINE)
@example(["İb ab", "xab"])  # "i̇b" folds from a word, and its "b" is no word of its own
@example(["ab-c", "abc"])
def test_has_word_of_every_piece_of_the_folded_text(lines: list[str]) -> None:
    """``has_word`` of every piece of the folded text (a word, part of one, across a line
    break or not) is membership in the words."""
    vocab, words = Vocabulary(lines), _per_line(lines)
    folded = "\n".join(lines).casefold()
    for a in range(len(folded)):
        for b in range(a + 1, len(folded) + 1):
            piece = folded[a:b]
            assert vocab.has_word(piece) == (piece in words), piece
