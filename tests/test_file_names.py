"""A file whose name is not valid UTF-8 is indexed, found, listed, pruned and deleted like
any other; every output stays valid UTF-8 (JSON gives its path in a reversible quoted
form). Real `folio` processes on the session's Typesense server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from .helpers import folio_each

ROOT = Path(__file__).parent.parent
BAD = b"bad\xff\xfename.md"


def folio(env: dict[str, str], *args: str | bytes) -> tuple[int, str, str]:
    """Exit code, stdout and stderr, both decoded strictly: invalid UTF-8 fails here."""
    run = subprocess.run(
        [sys.executable, "-m", "pipeline", *args],
        capture_output=True,
        env=env,
        timeout=120,
        cwd=ROOT,
    )
    return run.returncode, run.stdout.decode("utf-8"), run.stderr.decode("utf-8")


def test_a_name_that_is_not_utf8_is_indexed_and_listed(folio_env: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    bad = os.path.join(os.fsencode(lib), BAD)
    with open(bad, "wb") as fh:
        fh.write(b"# Quokkas\n\nQuokkas smile at the camera on Rottnest Island.\n")
    (lib / "good.md").write_text("# Wombats\n\nWombats dig burrows.\n")
    env = {**os.environ, "FOLIO_HOME": str(tmp_path / "home"), "COLUMNS": "200"}
    quoted = '"' + str(lib) + '/bad\\xff\\xfename.md"'

    code, out, err = folio(env, "ingest", str(lib), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["failed"] == [] and sorted(report["ingested"]) == [quoted, str(lib / "good.md")]
    code, out, err = folio(env, "ingest", str(lib), "--json")
    assert code == 0 and json.loads(out)["unchanged"] == [quoted, str(lib / "good.md")], err

    shown = (("search", "quokkas"), ("docs",), ("retrieve", "quokkas", "--budget", "200"))
    docs, found, *readers = folio_each(
        env, ("docs", "--json"), ("search", "quokkas", "--json"), *shown
    )
    assert docs.returncode == 0, docs.stderr
    assert {d["path"] for d in json.loads(docs.stdout)} == {quoted, str(lib / "good.md")}
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["hits"][0]["source"] == quoted
    for args, run in zip(shown, readers, strict=True):
        assert run.returncode == 0 and "Traceback" not in run.stderr, (args, run.stderr)
        if args[0] != "search":  # which shows no paths
            assert "bad\\xff\\xfename.md" in run.stdout, args

    os.remove(bad)
    code, out, err = folio(env, "ingest", str(lib), "--prune", "--json")
    assert code == 0 and json.loads(out)["pruned"] == [quoted], err


def test_delete_and_outline_take_the_name_as_given(folio_env: Path, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    lib.mkdir()
    bad = os.path.join(os.fsencode(lib), BAD)
    with open(bad, "wb") as fh:
        fh.write(b"# Quokkas\n\nQuokkas smile.\n\n## Island\n\nRottnest.\n")
    env = {**os.environ, "FOLIO_HOME": str(tmp_path / "home")}
    assert folio(env, "ingest", str(lib))[0] == 0
    code, out, err = folio(env, "outline", '"' + str(lib) + '/bad\\xff\\xfename.md"')
    assert code == 0 and "Quokkas (2 headings)" in out, err
    code, out, err = folio(env, "delete", bad)
    assert code == 0, err
    assert folio(env, "docs", "--json")[1].strip() == "[]"


SURROGATE_TEXT = st.text(
    alphabet=st.one_of(
        st.characters(exclude_categories=["Cs"]),
        st.characters(min_codepoint=0xDC80, max_codepoint=0xDCFF),
        st.sampled_from('\\"x'),
    )
)


@given(SURROGATE_TEXT)
def test_the_stored_form_is_utf8_and_reversible(path: str) -> None:
    from pipeline.shared.pathtext import is_text, os_path, shown, stored

    assert os_path(stored(path)) == path
    assert is_text(stored(path)) and is_text(shown(path))
    if is_text(path):
        assert stored(path) == path == shown(path)
    else:
        assert stored(path).startswith('"') and stored(path).endswith('"')


ANY_SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"])


@given(st.text(alphabet=st.one_of(st.characters(), ANY_SURROGATE)))
def test_text_is_text_when_it_holds_no_surrogate(text: str) -> None:
    from pipeline.shared.pathtext import is_text

    assert is_text(text) == (not any(0xD800 <= ord(c) <= 0xDFFF for c in text))
