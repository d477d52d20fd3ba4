"""One line per chunk of every supported file under the corpus folders: the file, the
chunk's index and the SHA-256 of its whole record (text, offsets, breadcrumb, hints, ids).
Two checkouts that print the same lines chunk the corpus identically: run it on each and
compare the outputs, e.g. before and after a refactoring.

    python scripts/check/chunk_hashes.py [--corpus $FOLIO_DATA/corpus] [--folders pdf epub markdown]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from common import add_corpus, files_under  # noqa: E402  (scripts/ is on the path)

from pipeline import FolioError, chunk_file  # noqa: E402


def chunk_lines(path: Path) -> list[str]:
    """``path<TAB>index<TAB>sha256`` per chunk, or one ``path<TAB>ERROR<TAB>reason`` line."""
    try:
        chunks = chunk_file(path)
    except FolioError as exc:
        return [f"{path}\tERROR\t{type(exc).__name__}: {exc}"]
    return [
        f"{path}\t{i}\t{hashlib.sha256(_canonical(c.to_dict())).hexdigest()}"
        for i, c in enumerate(chunks)
    ]


def _canonical(record: dict[str, object]) -> bytes:
    return json.dumps(record, sort_keys=True, ensure_ascii=False).encode()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_corpus(ap)
    ap.add_argument("--folders", nargs="+", default=["markdown", "epub", "pdf"])
    args = ap.parse_args(argv)
    for folder in args.folders:
        for path in files_under(args.corpus / folder):
            print("\n".join(chunk_lines(path)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
