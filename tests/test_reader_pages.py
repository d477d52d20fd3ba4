"""The reader's HTML helpers and URL parameters, as properties."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl

from hypothesis import assume, example, given
from hypothesis import strategies as st
from starlette.datastructures import QueryParams

from pipeline.web.pages import highlighted
from pipeline.web.query import Query

_TAGS = re.compile(r"</?mark>")


@given(st.lists(st.tuples(st.text(), st.booleans()), max_size=6))
@example([("\r", False), ("\r", True)])
def test_highlights_keep_only_their_marks(parts: list[tuple[str, bool]]) -> None:
    clean = [t.replace("<mark>", "").replace("</mark>", "") for t, _ in parts]
    marks = [m for _, m in parts]
    snippet = "".join(f"<mark>{t}</mark>" if m else t for t, m in zip(clean, marks, strict=True))
    assume(snippet.count("<mark>") == snippet.count("</mark>") == sum(marks))  # no tag by joining
    out = highlighted(snippet)
    # the only markup is <mark>; everything else reads back as the text, spaces folded
    assert "<" not in _TAGS.sub("", out)
    # (a space on each side of a mark boundary stays two: a browser folds them anyway)
    text = re.sub(r"\s+", " ", html.unescape(_TAGS.sub("", out)))
    assert text == re.sub(r"\s+", " ", "".join(clean))
    assert out.count("<mark>") == out.count("</mark>") == sum(marks)


words = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)


@given(
    st.builds(
        Query,
        text=words,
        hints=st.lists(st.sampled_from(["prose", "table", "code"]), unique=True).map(tuple),
        doc=words,
        format=st.sampled_from(["", "pdf", "markdown"]),
        tier=st.sampled_from(["", "section", "snippet"]),
        table=st.sampled_from(["", "true", "false"]),
        page=st.integers(1, 50),
    )
)
def test_query_urls_read_back(query: Query) -> None:
    params = QueryParams(parse_qsl(query.url(query.page), keep_blank_values=True))
    assert Query.parse(params, params.getlist("hint")) == query
