#!/usr/bin/env python3
"""Add the TeX Live manuals ``select_texlive_docs.py`` chose to the flat-text dev set:
per PDF a ``pdftotext`` and a ``pdftotext-layout`` entry in ``eval/flat-text/MANIFEST.json``
(hashes of the texts ``build_dev_sets.py`` makes of it) and their half in ``split.json``,
fixed before any of them is scored.

    python scripts/devsets/add_texlive_entries.py --selection selection.json \\
        --texlive-debs DIR [--holdout 6]

The split (eval/flat-text/README.md): the PDFs ordered by sha1 of their ``pdftotext``
entry's name; the first ``--holdout`` are ``holdout``, the others alternately ``tuning``
and ``report``; a PDF's two texts share its half. Entries already in the manifest are
left as they are (a name present is an error: the step runs once).
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
from build_dev_sets import FLAT, TRUTH_INDENT, gzip_text, sha256, text_and_truth, truth_json  # noqa: E402
from devset_sources import Mirrors  # noqa: E402
from devset_texts import tool_version  # noqa: E402

SPLIT = FLAT.with_name("split.json")
KINDS = {"pdftotext": "", "pdftotext-layout": " -layout"}


def slug(path: str, family: str) -> str:
    """``tl-`` and the PDF's stem (its family first when the stem does not name it)."""
    stem = re.sub(r"[^a-z0-9]+", "-", path.rsplit("/", 1)[-1].removesuffix(".pdf").lower())
    fam = re.sub(r"[^a-z0-9]+", "-", family.lower())
    return f"tl-{stem.strip('-')}" if fam in stem else f"tl-{fam}-{stem.strip('-')}"


def halves(names: list[str], holdout: int) -> dict[str, str]:
    ordered = sorted(names, key=lambda n: hashlib.sha1(n.encode()).hexdigest())
    out = {n: "holdout" for n in ordered[:holdout]}
    out |= {n: ("tuning", "report")[i % 2] for i, n in enumerate(ordered[holdout:])}
    return out


def entry(pick: dict[str, Any], kind: str, half: str, tool: str, debs: Path) -> dict[str, Any]:
    source = f"{pick['package']}@{pick['version']}:{pick['path']}"
    e: dict[str, Any] = {
        "name": f"{kind}-{slug(pick['path'], pick['family'])}",
        "kind": kind,
        "source": f"{source} (TeX Live documentation, Debian bookworm's .deb; written as"
        f" text by pdftotext -enc UTF-8{KINDS[kind]})",
        "truth": "the PDF's bookmarks (outline_truth.outline_entries)",
        "licence": f"{pick['licence']} (TeX Catalogue entry of {pick['family']}, the"
        f" package's Licenses.gz; {pick['package']} copyright: TeX Live, each part its own)",
        "half": half,
        "tool_version": tool,
        "sha256_deb": pick["deb_sha256"],
        "sha256_pdf": pick["sha256"],
        "pdf_pages": pick["measures"]["pages"],
        "doc_class": pick["doc_class"],
    }
    text, truth = text_and_truth(e, Mirrors(Path()), Path(), debs)
    gz = gzip_text(text, None)
    js = truth_json(truth, TRUTH_INDENT[kind])
    return e | {
        "chars": len(text),
        "truth_entries": len(truth),
        "sha256_text": sha256(gz),
        "sha256_truth": sha256(js),
        "sha256_plain": sha256(text.encode("utf-8")),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--selection", type=Path, required=True)
    ap.add_argument("--texlive-debs", type=Path, required=True)
    ap.add_argument("--holdout", type=int, default=6)
    args = ap.parse_args(argv)
    picks = json.loads(args.selection.read_text(encoding="utf-8"))
    manifest = json.loads(FLAT.read_text(encoding="utf-8"))
    split = json.loads(SPLIT.read_text(encoding="utf-8"))
    names = [f"pdftotext-{slug(p['path'], p['family'])}" for p in picks]
    if len(set(names)) != len(names) or set(names) & {e["name"] for e in manifest}:
        raise SystemExit("a name is repeated or already in the manifest")
    half = halves(names, args.holdout)
    tool = tool_version("pdftotext")
    for kind in KINDS:
        for pick, name in zip(picks, names, strict=True):
            e = entry(pick, kind, half[name], tool, args.texlive_debs)
            manifest.append(e)
            split["halves"][e["name"]] = half[name]
            print(f"{e['name']}\t{half[name]}\t{e['truth_entries']}", file=sys.stderr)
    FLAT.write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    SPLIT.write_text(json.dumps(split, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
