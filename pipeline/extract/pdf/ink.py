"""How tall Tesseract will find a page image's lines, guessed from its rows of ink before
it reads them.

Tesseract misreads very large type, so a page set large is read shrunk (``ocr.py``); this
guess lets it be shrunk before the one read rather than read, measured and read again (a
second read cost a poster page half as much again). It costs milliseconds a page.

The image is cut into strips about an inch wide: narrow, so that lines of two columns, or a
skewed line, do not run into one another within a strip. In each strip a run of rows with
ink (at least 1 % of the strip's pixels darker than Otsu's threshold) is a line of type, or
a figure; the median run over all strips is a line's ink. A strip an inch wide holds a few
letters of large type and a dozen of small, so its run is most often ascender to baseline
or x-height to descender; Tesseract's row height (hOCR ``x_size``) is ascender to
descender: about ``ROW_PER_INK`` times the median run (1.2-1.35 for Helvetica, Times and
Courier from 8 to 28 pt at 200 and 300 dpi; more above, where the shrinking has room to
spare). A figure makes tall runs too; the reader checks what the read gives.
"""

from __future__ import annotations

from PIL import Image

ROW_PER_INK = 1.3  # Tesseract's row height over the median run of ink (see above)
MIN_INK = 0.01  # a row of a strip is ink when this share of its pixels is dark
MIN_RUN_IN = 1 / 50  # shorter runs (specks, rules, dots) are not lines of type
# fewer runs are no guess: a logo alone on a page makes one (its guess cost a needless read),
# a poster's two lines of type make 23
MIN_RUNS = 6


def otsu_threshold(histogram: list[int]) -> int:
    """The grey level that best splits ``histogram`` (256 counts) into ink and paper
    (Otsu: the largest variance between the two classes)."""
    total = sum(histogram)
    weighted = sum(level * n for level, n in enumerate(histogram))
    below = below_weighted = 0
    best, best_level = -1.0, 127
    for level, n in enumerate(histogram):
        below += n
        below_weighted += level * n
        above = total - below
        if not below or not above:
            continue
        mean_below = below_weighted / below
        mean_above = (weighted - below_weighted) / above
        between = below * above * (mean_below - mean_above) ** 2
        if between > best:
            best, best_level = between, level
    return best_level


def ink_runs(image: Image.Image, dpi: float) -> list[int]:
    """The heights in pixels of the runs of ink rows in each inch-wide strip of ``image``
    (grey, or made grey), top to bottom, strip after strip; none on a mostly dark page."""
    grey = image if image.mode == "L" else image.convert("L")
    # the threshold from every 4th pixel each way: the same level, a tenth of the time
    sample = grey.resize(
        (max(1, grey.width // 4), max(1, grey.height // 4)), Image.Resampling.NEAREST
    )
    histogram = sample.histogram()
    level = otsu_threshold(histogram)
    if sum(histogram[: level + 1]) > sum(histogram) / 2:
        return []  # more dark than light (a negative, a photograph): no lines of ink to see
    ink = grey.point([255 if v <= level else 0 for v in range(256)])
    strips = max(1, round(grey.width / dpi))
    # each strip's rows averaged to one pixel: 255 times the row's share of ink
    profile = ink.resize((strips, grey.height), Image.Resampling.BOX).tobytes()
    least = max(1, round(255 * MIN_INK))
    # ink rows become "x", paper rows " ": bytes.split() then gives the runs of ink alone
    is_ink = bytes(b" x"[v >= least] for v in range(256))
    shortest = dpi * MIN_RUN_IN
    runs: list[int] = []
    for s in range(strips):
        rows = profile[s::strips].translate(is_ink)
        runs.extend(len(run) for run in rows.split() if len(run) >= shortest)
    return runs


def row_px(image: Image.Image, dpi: float) -> float:
    """The row height in pixels Tesseract would likely give the lines of ``image`` rendered
    at ``dpi``: the median run of ink times ``ROW_PER_INK``; 0.0 (no guess) on a page mostly
    dark, or with fewer than ``MIN_RUNS`` runs of ink."""
    runs = sorted(ink_runs(image, dpi))
    return runs[len(runs) // 2] * ROW_PER_INK if len(runs) >= MIN_RUNS else 0.0


__all__ = ["MIN_RUNS", "ROW_PER_INK", "ink_runs", "otsu_threshold", "row_px"]
