"""Properties of the ingest plan (pure: files found and records in, decisions out)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pipeline.index.records import DONE, DocumentRecord, Status
from pipeline.ingest.catalog import Found, copy_id, plan
from pipeline.ingest.plan import agreed

FP = "fingerprint"
PATHS = [f"/nowhere/lib/f{i}.md" for i in range(6)]
SHAS = ["s0", "s1", "s2", "s3"]


@st.composite
def found_files(draw: st.DrawFn) -> list[Found]:
    paths = draw(st.lists(st.sampled_from(PATHS), unique=True, max_size=6))
    return [Found(p, draw(st.sampled_from(SHAS)), 10) for p in sorted(paths)]


def record(
    rid: str, sha: str, path: str, status: Status, chunks: int, config: str
) -> DocumentRecord:
    return DocumentRecord(
        id=rid, doc_id=sha, path=path, title="t", format="md", bytes=10, sha256=sha,
        status=status, sections=chunks, snippets=chunks, config=config,
    )  # fmt: skip


@st.composite
def record_sets(draw: st.DrawFn) -> list[DocumentRecord]:
    """What any earlier runs (this Folio's or an older one's) may have left."""
    by_id: dict[str, DocumentRecord] = {}
    for path in draw(st.lists(st.sampled_from([*PATHS, "lib/f0.md"]))):  # a path may repeat
        sha = draw(st.sampled_from(SHAS))
        copy = draw(st.booleans())
        rid = copy_id(path) if copy else sha
        status: Status = "duplicate" if copy else draw(st.sampled_from(["complete", "failed"]))
        by_id[rid] = record(rid, sha, path, status, 1, draw(st.sampled_from([FP, "old"])))
    return list(by_id.values())


def applied(
    found: list[Found], records: list[DocumentRecord]
) -> tuple[list[DocumentRecord], dict[str, int]]:
    """The records and chunk counts after a run that did all its plan said."""
    p = plan(found, records, {}, FP)
    keepers = {f.sha256: f.path for f in p.todo} | {
        f.sha256: f.path for f in found if f.path in p.unchanged
    }
    out = [record(s, s, k, "complete", 1, FP) for s, k in keepers.items()]
    out += [record(copy_id(f.path), f.sha256, f.path, "duplicate", 0, FP) for f, _, _ in p.copies]
    return out, {s: 2 for s in keepers}


@given(found_files(), record_sets(), st.dictionaries(st.sampled_from(SHAS), st.integers(0, 3)))
def test_each_file_once_and_each_content_one_keeper(
    found: list[Found], records: list[DocumentRecord], stored: dict[str, int]
) -> None:
    p = plan(found, records, stored, FP)
    keeping = [f.path for f in p.todo] + list(p.unchanged)
    copying = [f.path for f, _, _ in p.copies]
    assert sorted(keeping + copying) == sorted(f.path for f in found)
    sha = {f.path: f.sha256 for f in found}
    assert len({sha[k] for k in keeping}) == len(keeping) == len({f.sha256 for f in found})
    for f, keeper, _ in p.copies:
        assert keeper in keeping and sha[keeper] == f.sha256
    for path in p.unchanged:
        (kept_record,) = [r for r in records if r.path == path and r.id == sha[path]]
        assert kept_record.status in DONE and kept_record.config == FP
        assert stored.get(sha[path], 0) == 2
    # every other record of a file's path is released, now or once the file is indexed
    released = [*p.stale, *(r for olds in p.replaced.values() for r in olds)]
    kept = {f.path: f.sha256 for f in p.todo} | {f.path: copy_id(f.path) for f, _, _ in p.copies}
    kept |= {path: sha[path] for path in p.unchanged}
    mine = [r for r in records if r.path in sha]
    assert sorted(r.id for r in released) == sorted(r.id for r in mine if r.id != kept[r.path])
    assert set(p.replaced) <= {f.path for f in p.todo}


@given(found_files(), record_sets())
def test_a_finished_run_leaves_nothing_to_do(
    found: list[Found], records: list[DocumentRecord]
) -> None:
    after, stored = applied(found, records)
    again = plan(found, after, stored, FP)
    assert again.todo == () and again.stale == () and again.replaced == {}
    assert all(current for _, _, current in again.copies)


def test_a_document_the_nodes_disagree_on_counts_as_no_record() -> None:
    """Each node's (chunks per doc_id, finished records per doc_id): a document stays
    unchanged only when every node holds the same of both."""
    same = ({"a": 3, "b": 2, "c": 1}, {"a": 1, "b": 1, "c": 1})
    held = [same, ({"a": 3, "b": 1, "c": 1}, {"a": 1, "b": 1}), ({"a": 3, "c": 1}, same[1])]
    assert agreed(held) == {"a": 3, "b": -1, "c": -1}
    assert agreed([same, same]) == same[0]
