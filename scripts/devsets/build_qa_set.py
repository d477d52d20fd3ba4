#!/usr/bin/env python3
"""Build the covid-qa question set from a public repository snapshot (eval/covid-qa).

    python scripts/devsets/build_qa_set.py --mirrors /work/.mirror [--out DIR] [--check] [--record]

COVID-QA (deepset, SQuAD format): biomedical experts' questions over scientific articles
on COVID-19 and other coronaviruses (CORD-19), each answered by an exact span of its
article's text. The source file is read at the commit ``eval/covid-qa/MANIFEST.json`` pins
(``git show COMMIT:PATH`` from ``--mirrors``, one git snapshot per repository as
``fetch github:OWNER/NAME`` leaves it) and must have the manifest's sha256.

Written under ``--out`` (default ``$FOLIO_EVAL_DATA/covid-qa``, ``$FOLIO_EVAL_DATA``
defaulting to ``~/.cache/folio-eval``):

- ``docs/NNN-slug.md``: each article whose text carries ``License: cc-by`` (the others are
  left out), its text as the set gives it with the title line made a Markdown heading
  (``# ``); Folio reads a Markdown file as it is, so offsets into the file are offsets
  into the extracted text;
- ``questions.jsonl``: per question its ``id``, ``doc`` (the file's stem), ``question``,
  ``answer`` (the span's text, outer whitespace stripped), ``start``/``end`` (character
  offsets of the answer in the ``.md`` file), ``qtype`` (the question's first word when a
  wh-word, else ``other``) and ``kind`` (where the answer stands: ``front`` matter before
  the abstract, ``abstract`` or ``body``).

The set's offsets are wrong for about one answer in six (the answer text stands a few
characters away); such an answer is moved to the occurrence of its text nearest the given
offset, within ``MAX_SHIFT`` characters, and a question whose answer is not found so is
left out (counted). ``--check`` builds nothing and checks the files under ``--out``;
``--record`` writes the built files' sha256 and counts into the manifest (run once, when
the set is made). Exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # runnable from a fresh checkout without installing
    sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))  # scripts/shared
import rooms  # noqa: E402, F401  (puts every room of scripts/ on the path)
from devset_sources import DevSetError, Mirrors, Source  # noqa: E402
from qa_sets import COVID_QA, eval_data_dir  # noqa: E402

MANIFEST = ROOT / "eval" / COVID_QA / "MANIFEST.json"
MAX_SHIFT = 100  # characters between the given offset and the answer text's occurrence
_LICENCE = re.compile(r"^License:\s*(cc-by)\s*$", re.M)
WH = ("what", "how", "why", "when", "where", "which", "who")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def slug(title: str, words: int = 6) -> str:
    ws = re.findall(r"[a-z0-9]+", title.lower())[:words]
    return "-".join(ws) or "untitled"


def answer_span(context: str, text: str, start: int) -> tuple[int, int] | None:
    """The answer's span in ``context``: at ``start`` when the text stands there, else
    the occurrence nearest ``start`` within ``MAX_SHIFT``; outer whitespace left out."""
    if context[start : start + len(text)] != text:
        near = [m.start() for m in re.finditer(re.escape(text), context)]
        near = [s for s in near if abs(s - start) <= MAX_SHIFT]
        if not near:
            return None
        start = min(near, key=lambda s: abs(s - start))
    end = start + len(text)
    while start < end and context[start].isspace():
        start += 1
    while end > start and context[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def kind_of(context: str, start: int) -> str:
    """``front`` (title and metadata), ``abstract`` or ``body``, by the article's
    ``Abstract:`` and ``Text:`` lines."""
    abstract = context.find("\nAbstract:")
    body = context.find("\nText:")
    if abstract >= 0 and start < abstract:
        return "front"
    if abstract >= 0 and (body < 0 or start < body):
        return "abstract"
    return "body"


def qtype_of(question: str) -> str:
    first = (re.findall(r"[a-z]+", question.lower()) or ["other"])[0]
    return first if first in WH else "other"


def build(source: bytes) -> tuple[dict[str, bytes], list[dict[str, Any]], dict[str, int]]:
    """The documents (file name -> bytes), the questions and the counts of what was
    left out."""
    data = json.loads(source)
    docs: dict[str, bytes] = {}
    questions: list[dict[str, Any]] = []
    counts = {"articles": 0, "not_cc_by": 0, "questions_in": 0, "answer_not_found": 0}
    counts["offset_moved"] = 0
    for n, article in enumerate(data["data"], 1):
        counts["articles"] += 1
        (para,) = article["paragraphs"]
        context: str = para["context"]
        if not _LICENCE.search(context):
            counts["not_cc_by"] += 1
            counts["questions_in"] += len(para["qas"])
            continue
        title = context.split("\n", 1)[0]
        name = f"{n:03d}-{slug(title)}"
        text = "# " + context  # the title line a heading: every offset moves by 2
        if not text.endswith("\n"):
            text += "\n"
        docs[f"{name}.md"] = text.encode("utf-8")
        for qa in para["qas"]:
            counts["questions_in"] += 1
            (answer,) = qa["answers"]
            given, at = answer["text"], int(answer["answer_start"])
            span = answer_span(context, given, at)
            if span is None:
                counts["answer_not_found"] += 1
                continue
            counts["offset_moved"] += context[at : at + len(given)] != given
            start, end = span[0] + 2, span[1] + 2
            questions.append(
                {
                    "id": qa["id"],
                    "doc": name,
                    "question": " ".join(qa["question"].split()),
                    "answer": text[start:end],
                    "start": start,
                    "end": end,
                    "qtype": qtype_of(qa["question"]),
                    "kind": kind_of(context, span[0]),
                }
            )
    return docs, questions, counts


def questions_bytes(questions: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in questions).encode()


def docs_digest(docs: dict[str, bytes]) -> str:
    """One sha256 over the documents: each file's name and sha256, in name order."""
    return sha256("".join(f"{k} {sha256(v)}\n" for k, v in sorted(docs.items())).encode())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--out", type=Path, default=None, help="default: $FOLIO_EVAL_DATA/covid-qa")
    ap.add_argument("--check", action="store_true", help="check the files under --out")
    ap.add_argument("--record", action="store_true", help="write hashes into the manifest")
    args = ap.parse_args(argv)
    out: Path = args.out or eval_data_dir() / COVID_QA
    manifest = json.loads(MANIFEST.read_text(encoding="utf-8"))
    if args.check:
        return check(out, manifest)
    src = Source.parse(manifest["source"])
    try:
        raw = Mirrors(args.mirrors).read(src)
    except DevSetError as exc:
        print(f"covid-qa: {exc}", file=sys.stderr)
        return 1
    if sha256(raw) != manifest["source_sha256"]:
        print(f"covid-qa: {src}: sha256 {sha256(raw)}, manifest {manifest['source_sha256']}")
        return 1
    docs, questions, counts = build(raw)
    qbytes = questions_bytes(questions)
    built = {
        "documents": len(docs),
        "questions": len(questions),
        "docs_sha256": docs_digest(docs),
        "questions_sha256": sha256(qbytes),
        **counts,
    }
    if args.record:
        manifest["built"] = built
        MANIFEST.write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    elif manifest.get("built") != built:
        print(f"covid-qa: built {built}\n  manifest {manifest.get('built')}", file=sys.stderr)
        return 1
    (out / "docs").mkdir(parents=True, exist_ok=True)
    for old in (out / "docs").glob("*.md"):
        if old.name not in docs:
            old.unlink()
    for name, data in docs.items():
        path = out / "docs" / name
        if not path.is_file() or path.read_bytes() != data:
            path.write_bytes(data)
    (out / "questions.jsonl").write_bytes(qbytes)
    print(f"covid-qa: {len(docs)} documents, {len(questions)} questions -> {out}")
    return 0


def check(out: Path, manifest: dict[str, Any]) -> int:
    built = manifest["built"]
    docs = {p.name: p.read_bytes() for p in sorted((out / "docs").glob("*.md"))}
    qpath = out / "questions.jsonl"
    got = {
        "docs_sha256": docs_digest(docs),
        "questions_sha256": sha256(qpath.read_bytes()) if qpath.is_file() else None,
    }
    bad = {k: v for k, v in got.items() if v != built[k]}
    for k, v in bad.items():
        print(f"covid-qa: {out}: {k} {v}, manifest {built[k]}", file=sys.stderr)
    if not bad:
        print(f"covid-qa: {out}: {len(docs)} documents and the questions match the manifest")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
