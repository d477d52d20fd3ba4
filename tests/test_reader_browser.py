"""`folio serve` in a real browser: Debian's chromium, driven by Selenium through
chromium-driver, against a real `folio serve` process over a small ingested library.

No chromium is a failure, not a skip: CI (`.ci/run`) installs it with apt-get, and a
skipped browser test would hide a broken reader. Elsewhere set CHROMIUM and
CHROMEDRIVER to the binaries, or deselect with `-k "not browser"`."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from pipeline import IngestOptions, Library
from pipeline.index.store import Store
from pipeline.retrieve.context import citation_text
from pipeline.web.pages import pages_text

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,900",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def reader(store: Store, folio_env: Path, tmp_path: Path) -> Iterator[tuple[str, Library]]:
    """A `folio serve` process over a library of two markdown pages and a PDF."""
    docs = tmp_path / "library"
    docs.mkdir()
    for name in ("rust-ownership.md", "rust-operators.md", "tufte-sample-book.pdf"):
        shutil.copy(ROOT / "examples" / "library" / name, docs / name)
    library = Library(store)
    assert not library.ingest([docs], options=IngestOptions(workers=1)).failed
    port = free_port()
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "serve", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "serve.log").read_text()
                assert time.monotonic() < deadline, "folio serve did not answer in 60 s"
                time.sleep(0.3)
        yield url, library
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        log.close()


@pytest.fixture()
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not Path(p).exists()]
    if missing:
        pytest.fail(
            f"no {', '.join(missing)}: the reader's browser test needs Debian's chromium and "
            "chromium-driver (apt-get install -y chromium chromium-driver; .ci/run does it), "
            "or CHROMIUM/CHROMEDRIVER set to the binaries"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={tmp_path / 'chromium-profile'}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


def facet_count(driver: WebDriver, name: str, value: str) -> int:
    box = driver.find_element(By.CSS_SELECTOR, f"input[name='{name}'][value='{value}']")
    label = box.find_element(By.XPATH, "..")
    return int(label.find_element(By.CLASS_NAME, "count").text)


def choose(driver: WebDriver, name: str, value: str) -> None:
    """Tick a facet from the keyboard (focus, space); the page's script submits it."""
    box = driver.find_element(By.CSS_SELECTOR, f"input[name='{name}'][value='{value}']")
    old = driver.find_element(By.ID, "summary")
    driver.execute_script("arguments[0].focus()", box)
    box.send_keys(Keys.SPACE)
    WebDriverWait(driver, 20).until(lambda _: replaced(old))


def replaced(element: WebElement) -> bool:
    """Whether the page holding ``element`` has been replaced. Caught mid-navigation,
    chromedriver may answer "Node with given id does not belong to the document" instead
    of a stale reference (seen in CI): that too means the old page is gone."""
    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as exc:
        if "does not belong to the document" in str(exc):
            return True
        raise
    return False


def summary_found(driver: WebDriver) -> int:
    return int(driver.find_element(By.ID, "summary").text.split()[0])


def screenshot(driver: WebDriver, tmp_path: Path, name: str) -> None:
    driver.save_screenshot(str(tmp_path / name))
    # FOLIO_SCREENSHOTS=docs/ refreshes the README's screenshots from this test.
    where = os.environ.get("FOLIO_SCREENSHOTS")
    if where:
        shutil.copy(tmp_path / name, Path(where) / name)


def test_search_facets_and_section(
    reader: tuple[str, Library], browser: WebDriver, tmp_path: Path
) -> None:
    url, library = reader
    browser.get(url + "/")
    # "/" focuses the search box; a typo is forgiven.
    browser.find_element(By.TAG_NAME, "body").send_keys("/")
    assert browser.switch_to.active_element.get_attribute("id") == "q"
    browser.switch_to.active_element.send_keys("ownrship", Keys.ENTER)
    WebDriverWait(browser, 20).until(ec.presence_of_element_located((By.ID, "summary")))
    assert summary_found(browser) > 0
    assert browser.find_elements(By.CSS_SELECTOR, ".excerpt mark")

    # two facets that combine; each count shown is what applying it finds
    expected = facet_count(browser, "tier", "snippet")
    choose(browser, "tier", "snippet")
    assert summary_found(browser) == expected
    expected = facet_count(browser, "hint", "code")
    choose(browser, "hint", "code")
    assert summary_found(browser) == expected
    assert "tier=snippet" in browser.current_url and "hint=code" in browser.current_url
    results = browser.find_elements(By.CSS_SELECTOR, ".result .tag")
    tags = {t.text for t in results}
    assert "snippet" in tags and "section" not in tags and "code" in tags
    screenshot(browser, tmp_path, "reader-search.png")

    # j focuses the first result; Enter opens its section
    browser.find_element(By.TAG_NAME, "body").send_keys("j")
    first = browser.switch_to.active_element
    assert "result-link" in (first.get_attribute("class") or "")
    href = first.get_attribute("href") or ""
    first.send_keys(Keys.ENTER)
    WebDriverWait(browser, 20).until(ec.presence_of_element_located((By.ID, "citation")))
    section_id = href.split("/section/")[1].split("?")[0]
    shown = library.show(section_id)
    assert browser.find_element(By.ID, "citation").text == citation_text(shown.citation)
    assert browser.find_element(By.TAG_NAME, "h1").text == shown.chunk.section_title
    pages = pages_text(shown.citation.page_start, shown.citation.page_end)
    assert browser.find_element(By.ID, "pages").text == pages

    # a PDF section: its page range and the link that opens the file at that page
    tufte = next(d for d in library.documents() if d.format == "pdf")
    entries = [e for e in library.outline(tufte.doc_id) if e.page_start]
    entry = entries[len(entries) // 2]
    browser.get(f"{url}/section/{entry.id}")
    shown = library.show(entry.id)
    assert browser.find_element(By.ID, "pages").text == pages_text(
        shown.citation.page_start, shown.citation.page_end
    )
    assert browser.find_element(By.ID, "citation").text == citation_text(shown.citation)
    link = browser.find_element(By.ID, "open-source").get_attribute("href") or ""
    assert link.endswith(f"/source/{tufte.doc_id}#page={shown.citation.page_start}")
    screenshot(browser, tmp_path, "reader-section.png")
    with urllib.request.urlopen(link.split("#")[0], timeout=10) as answer:
        assert answer.headers["Content-Type"] == "application/pdf"
        assert answer.read() == Path(tufte.path).read_bytes()

    # the documents page: counts, and a document's outline
    browser.get(f"{url}/documents")
    counts = browser.find_element(By.ID, "counts").text
    assert counts.startswith("complete 3") and f"{tufte.sections + 0}" in browser.page_source
    browser.find_element(By.LINK_TEXT, tufte.title).click()
    outline = browser.find_elements(By.CSS_SELECTOR, ".outline li")
    assert len(outline) == len(library.outline(tufte.doc_id))  # each heading once


SIZES = {"phone": (390, 844), "desktop": (1280, 900)}
LONG_NAME = "a-manual-whose-file-name-goes-on-and-on-with-no-space-to-break-it-biblatex-manual.md"
LONG_TITLE = "TheOwnershipManualWhoseTitleIsOneWordLongerThanAnyFacetColumnCouldEverHold"

# Where things are, as the page lays them out: the facts the screenshots are judged by.
LAYOUT = """
const box = (e) => (e ? e.getBoundingClientRect().toJSON() : null);
const all = (s) => Array.from(document.querySelectorAll(s));
const seen = (e) => (e && e.offsetParent ? box(e) : null);  // null when not displayed
return {
  scroll: document.documentElement.scrollWidth, width: window.innerWidth,
  height: window.innerHeight,
  header: ["header .brand", "header nav a", "form.search input", "form.search button"]
    .map((s) => box(document.querySelector(s))),
  result: box(document.querySelector(".result")),
  results: box(document.querySelector("section[aria-label=Results]")),
  labels: all(".facet label").filter((e) => e.offsetParent).map(box),
  toggle: seen(document.querySelector(".filters-toggle")),
};
"""


def at_size(driver: WebDriver, size: str) -> tuple[int, int]:
    width, height = SIZES[size]
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": size == "phone"},
    )
    return width, height


def layout(driver: WebDriver) -> dict[str, Any]:
    facts: dict[str, Any] = driver.execute_script(LAYOUT)
    return facts


def long_named(tmp_path: Path, library: Library) -> str:
    """A document with a long file name and a long unbroken title; its doc_id."""
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / LONG_NAME).write_text(
        f"# {LONG_TITLE}\n\nOwnership of a value moves with it; ownership rules.\n"
    )
    assert not library.ingest([extra], options=IngestOptions(workers=1)).failed
    return next(d.doc_id for d in library.documents() if d.path.endswith(LONG_NAME))


@pytest.mark.parametrize("size", list(SIZES))
def test_the_reader_fits_a_phone_and_a_desktop(
    reader: tuple[str, Library], browser: WebDriver, tmp_path: Path, size: str
) -> None:
    url, library = reader
    doc_id = long_named(tmp_path, library)
    section = library.outline(doc_id)[0].id
    width, height = at_size(browser, size)
    pages = {
        "home": "/",
        "search": "/?q=ownership",
        "section": f"/section/{section}",
        "documents": "/documents",
        "document": f"/documents/{doc_id}",
    }
    for name, page in pages.items():
        browser.get(url + page)
        facts = layout(browser)
        assert facts["scroll"] <= width, (size, page, "scrolls sideways", facts["scroll"])
        for box in facts["header"]:  # brand, Documents, the search box and its button
            assert box["left"] >= 0 and box["right"] <= width, (size, page, facts["header"])
        screenshot(browser, tmp_path, f"reader-{size}-{name}.png")

    browser.get(url + "/?q=ownership")
    facts = layout(browser)
    assert facts["result"]["top"] + 40 <= height, (size, "no result above the fold", facts)
    if size == "phone":
        # the facets wait under a toggle; opened, they apply as on a desktop
        assert not facts["labels"] and facts["toggle"], facts
        browser.find_element(By.CSS_SELECTOR, ".filters-toggle").click()
        expected = facet_count(browser, "tier", "snippet")
        assert layout(browser)["labels"]
        choose(browser, "tier", "snippet")
        assert summary_found(browser) == expected
    else:
        # every facet label (the long title too) stays left of the results
        assert facts["labels"] and not facts["toggle"], facts
        assert all(b["right"] <= facts["results"]["left"] for b in facts["labels"]), facts

    browser.get(url + "/documents")
    cells = browser.find_elements(By.CSS_SELECTOR, "td.path")
    paths = {d.path for d in library.documents()}
    assert {c.get_attribute("textContent") for c in cells} == paths
    assert {c.value_of_css_property("direction") for c in cells} == {"ltr"}
