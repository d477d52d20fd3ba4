"""A real Typesense server for the integration tests (started once per session)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.index import server, vectors
from pipeline.index.settings import ServerSettings
from pipeline.index.store import Store

from . import alone


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
    """Under pytest-xdist, a test marked ``alone`` runs with no other beside it."""
    folder = alone.lock_folder(item.config)
    if folder is None:
        return (yield)
    with alone.turn(folder, item.get_closest_marker("alone") is not None):
        return (yield)


@pytest.fixture(autouse=True, scope="session")
def ctrl_c_reaches_children() -> None:
    """The Ctrl-C tests send SIGINT to `folio` processes, which start with this process's
    disposition of it: a suite started in the background by a non-interactive shell
    (`pytest ... &`, as a CI step may) ignores SIGINT, and so would they (the ingest then
    ran to the end, exit 0, instead of stopping with 130)."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(autouse=True, scope="session")
def session_folio_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A test that sets no FOLIO_HOME of its own (an in-process store on its own server,
    as the cluster tests have) keeps its side index and locks in this session's temp
    directory, not the user's data directory, where they were left behind and shared by
    every run and every xdist worker. ``store`` and ``module_store`` set their own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FOLIO_HOME", str(tmp_path_factory.mktemp("session-home") / "folio-state"))
        yield


@pytest.fixture(autouse=True)
def lexical_unless_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees the same install, weights or not: no embedding model, so ingest
    stores no vectors and retrieval is lexical. tests/test_dense.py sets its own model."""
    monkeypatch.setenv(vectors.MODEL_ENV, str(tmp_path / "no-embedding-model"))
    monkeypatch.setattr(vectors, "_loaded", {})


@pytest.fixture(autouse=True)
def no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No config file of the machine's user reaches a test (nor its `folio` processes):
    the user config directory is an empty one of the test's."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "user-config"))
    monkeypatch.delenv("FOLIO_CONFIG", raising=False)


@pytest.fixture(scope="session")
def typesense_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.RunningServer]:
    home = tmp_path_factory.mktemp("folio-home")
    running = server.start(home)
    try:
        yield running
    finally:
        server.stop(home)


def clean_store(running: server.RunningServer) -> Store:
    """A store on ``running`` with no collections or aliases left over."""
    settings = ServerSettings(
        nodes=(running.node,),
        api_key=running.api_key,
        retries=1,
        retry_interval_seconds=0.2,
    )
    s = Store(settings)
    for alias in s.client.aliases.retrieve()["aliases"]:
        s.client.aliases[alias["name"]].delete()
    for coll in s.client.collections.retrieve():
        s.client.collections[coll["name"]].delete()
    return s


@pytest.fixture()
def store(
    typesense_home: server.RunningServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Store]:
    """A store on the session server with no collections or aliases left over; state
    written beside it (the lexical side index) goes to a fresh ``FOLIO_HOME``."""
    monkeypatch.setenv("FOLIO_HOME", str(tmp_path / "folio-state"))
    yield clean_store(typesense_home)


@pytest.fixture(scope="module")
def module_store(
    typesense_home: server.RunningServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Store]:
    """``store`` and ``folio_env`` for a whole module whose tests only read a library
    that its own module-scoped fixture ingests once (not once per test). The module's
    environment is what the per-test fixtures give: its own ``FOLIO_HOME``, the session
    server for `folio` processes, no embedding model, no user config."""
    home = tmp_path_factory.mktemp("module-home")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FOLIO_HOME", str(home / "folio-state"))
        mp.setenv("TYPESENSE_URL", typesense_home.node.url())
        mp.setenv("TYPESENSE_API_KEY", typesense_home.api_key)
        mp.setenv(vectors.MODEL_ENV, str(home / "no-embedding-model"))
        mp.setattr(vectors, "_loaded", {})
        mp.setenv("XDG_CONFIG_HOME", str(home / "user-config"))
        mp.delenv("FOLIO_CONFIG", raising=False)
        yield clean_store(typesense_home)


@pytest.fixture()
def folio_env(
    typesense_home: server.RunningServer, store: Store, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Environment for `folio` subprocesses: the session server as an external one, with
    no collections left over from other tests (``store`` clears them)."""
    monkeypatch.setenv("TYPESENSE_URL", typesense_home.node.url())
    monkeypatch.setenv("TYPESENSE_API_KEY", typesense_home.api_key)
    return typesense_home.home
