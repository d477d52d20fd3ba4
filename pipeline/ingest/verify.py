"""Every node of a cluster holds what an ingest wrote, not only the cluster's majority.

The cluster's acknowledgement is not enough (see ``pipeline.index.replicas``), so each
node is asked, with one faceted count per node:

- after each batch, for the documents it completed, once the batch is ``AGE`` seconds
  old (the followers have applied it by then): a node short of a document's chunks gets
  them written again, from the results in hand;
- at the end of the run, for every document the run completed, chunks and file records:
  a node may have been down when its batch was checked, or have lost what it held when
  it restarted since (what the failover drill saw Typesense 0.24.1 do). What a node lacks
  is copied from a node that holds it, through the cluster.

A node that does not answer after a batch is not waited for there (the ingest goes on
writing); at the end it is, for a bounded time (the client's retry budget), then left
out with a warning: a dead node must neither stop nor fail the ingest, and the next
``folio ingest`` asks every node before it calls a document unchanged.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence

from ..errors import StoreError
from ..index.replicas import Replicas
from ..index.schema import CHUNKS, DOCUMENTS
from ..index.settings import Node
from ..index.store import Holdings, Store, quote
from .process import FileResult

log = logging.getLogger("folio.ingest")
# A follower applies a batch once it learns that the leader committed it, from the
# leader's next message: up to ~1 s after the acknowledgement here. Documents are checked
# once their batch is this old, so that a check seldom waits...
AGE = 2.0
# ...and a node still short of them gets this long more (a node busy indexing a big batch
# on a loaded machine, or a cluster electing a leader, takes longer).
SETTLE = 5.0
AWAY = 30.0  # a node that timed out is not asked again for this long (one refusing is)
SLOW = 1.0  # seconds: a failure that took longer was a timeout
COPY_GROUP = 40  # doc ids per export filter (a GET's query: 4,000 characters)

Rewrite = Callable[[list[FileResult]], None]
Shortfall = dict[Node, set[str]]  # node -> doc_ids it holds other counts of
Views = dict[Node, Holdings | None]  # what each node holds; None: it did not answer


class Verifier:
    """Checks what an ingest completed on every node of a cluster (nothing on one node);
    ``rewrite`` writes documents again through the cluster."""

    def __init__(self, store: Store, rewrite: Rewrite) -> None:
        self.store = store
        self.replicas = Replicas(store)
        self.rewrite = rewrite
        self.pending: list[tuple[float, list[FileResult]]] = []  # (acknowledged at, documents)
        self.completed: dict[str, int] = {}  # doc_id -> chunks, of every document completed
        self.away: dict[Node, float] = {}  # node -> when to ask it again
        self.silent: set[Node] = set()  # nodes that did not answer once (said once)

    def add(self, results: list[FileResult]) -> None:
        """Documents whose every chunk the cluster just acknowledged."""
        if self.replicas.several and results:
            self.pending.append((time.monotonic(), results))
            self.completed.update((r.sha256, len(r.chunks)) for r in results)

    def check_due(self) -> None:
        """Check the documents acknowledged ``AGE`` seconds ago or more."""
        cutoff = time.monotonic() - AGE
        due = [r for at, results in self.pending if at <= cutoff for r in results]
        self.pending = [(at, results) for at, results in self.pending if at > cutoff]
        self.check(due)

    def check(self, results: Sequence[FileResult]) -> None:
        """Every node holds exactly the chunks of these documents."""
        if not self.replicas.several or not results:
            return
        want = {r.sha256: len(r.chunks) for r in results}
        now = time.monotonic()
        asked = {n for n in self.replicas.nodes if self.away.get(n, 0.0) <= now}
        short = self._settled(want, asked)
        if not short:
            return
        docs = set().union(*short.values())
        log.warning(
            "%s: short of chunks of %d document(s) %.0fs after the cluster acknowledged "
            "them; writing them again",
            ", ".join(n.url() for n in short),
            len(docs),
            AGE + SETTLE,
        )
        self.rewrite([r for r in results if r.sha256 in docs])
        for node, ids in self._settled({d: want[d] for d in docs}, set(short)).items():
            log.warning(
                "%s still lacks chunks of %d document(s) written again (checked again at "
                "the end of the ingest)",
                node.url(),
                len(ids),
            )

    def sweep(self) -> None:
        """At the end of the run: every document it completed, chunks and file records,
        on every node once more; what a node lacks is copied from one that holds it."""
        self.pending = []  # checked here with the rest
        if not self.completed:
            return
        views: Views = {}
        short = self._settle(views, list(self.replicas.nodes))
        if short:
            try:
                self._copy(short, views)
            except StoreError as exc:  # the run's own writes all succeeded: say, go on
                log.warning("copying to the nodes that lack documents failed: %s", exc)
            short = self._settle(views, [n for n in self.replicas.nodes if n in short])
        for node, view in views.items():
            if view is None or node in short:
                log.warning(
                    "%s %s at the end of the ingest: %d document(s) of this run are not "
                    "on it for sure; run the same `folio ingest` again once it is up (it "
                    "asks every node and writes again what one lacks)",
                    node.url(),
                    "did not answer" if view is None else "still lacks some",
                    len(self.completed) if view is None else len(short[node]),
                )

    # -- after a batch ---------------------------------------------------------------------
    def _settled(self, want: Mapping[str, int], asked: set[Node]) -> Shortfall:
        """The nodes of ``asked`` still wrong about ``want`` after ``SETTLE`` seconds
        (a node that does not answer leaves ``asked``)."""
        short = self._short(want, asked)
        # From the first answers on: waiting for a node that does not answer is not
        # time the others had to apply the batch.
        deadline = time.monotonic() + SETTLE
        delay = 0.05
        while short and time.monotonic() < deadline:
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
            short = self._short(want, asked)
        return short

    def _short(self, want: Mapping[str, int], asked: set[Node]) -> Shortfall:
        short: Shortfall = {}
        for node in [n for n in self.replicas.nodes if n in asked]:
            view = self._ask(node, lambda s: s.holdings_of(want, 1, records=False))
            if view is None:
                asked.discard(node)
                continue
            wrong = {d for d, n in want.items() if view[0].get(d, 0) != n}
            if wrong:
                short[node] = wrong
        return short

    def _ask(
        self, node: Node, question: Callable[[Store], Holdings], patience: float = 0.0
    ) -> Holdings | None:
        """``question`` to ``node``, asked again for ``patience`` seconds if it fails."""
        t0 = time.monotonic()
        [answer] = self.replicas.ask(question, patience, {node})
        if answer.value is not None:
            if self.away.pop(node, None) is not None:
                log.info("%s answers again", node.url())
            return answer.value
        if node not in self.silent:
            log.warning(
                "%s does not answer (%s); its documents are checked at the end of the ingest",
                node.url(),
                answer.error,
            )
        self.silent.add(node)
        if time.monotonic() - t0 > patience + SLOW:  # a timeout: don't pay it every batch
            self.away[node] = time.monotonic() + AWAY
        return None

    # -- at the end ------------------------------------------------------------------------
    def _settle(self, views: Views, nodes: list[Node]) -> Shortfall:
        """Ask ``nodes`` what they hold of the run's documents (into ``views``), again
        for up to ``SETTLE`` seconds while one of them is short; the short ones."""
        views.update(self._views(nodes))
        short = shortfall(self.completed, views)
        deadline = time.monotonic() + SETTLE
        delay = 0.25
        while short and time.monotonic() < deadline:
            time.sleep(delay)
            delay = min(delay * 2, 2.0)
            views.update(self._views([n for n in nodes if n in short]))
            short = shortfall(self.completed, views)
        return short

    def _views(self, nodes: list[Node]) -> Views:
        """At the end: a node that does not answer is waited for (the only wait)."""
        docs, patience = self.completed, self.replicas.patience
        return {n: self._ask(n, lambda s: s.holdings_of(docs, 1), patience) for n in nodes}

    def _copy(self, short: Shortfall, views: Views) -> None:
        """Write again, through the cluster, what the short nodes lack: each document's
        chunks and records as a node that holds all of them has them."""
        sources: dict[Node, list[str]] = {}
        for doc in sorted(set().union(*short.values())):
            source = next((n for n, v in views.items() if v and doc not in short.get(n, ())), None)
            if source is not None:  # else no node holds it all: the next ingest rewrites it
                sources.setdefault(source, []).append(doc)
        for source, docs in sources.items():
            log.warning(
                "%s: %d document(s) lacking at the end of the ingest; copying them from %s",
                ", ".join(n.url() for n, ids in short.items() if ids.intersection(docs)),
                len(docs),
                source.url(),
            )
            node = self.replicas.store(source)
            for i in range(0, len(docs), COPY_GROUP):
                named = "doc_id:=[" + ",".join(map(quote, docs[i : i + COPY_GROUP])) + "]"
                self.store.upsert(CHUNKS, node.export(CHUNKS, named))
                self.store.upsert(DOCUMENTS, node.export(DOCUMENTS, named))


def shortfall(want: Mapping[str, int], views: Views) -> Shortfall:
    """The nodes whose chunk count of a document is not ``want``'s, or that hold fewer
    finished records of it than another node."""
    held = {n: v for n, v in views.items() if v is not None}
    most = {d: max((v[1].get(d, 0) for v in held.values()), default=0) for d in want}
    short: Shortfall = {}
    for node, (chunks, records) in held.items():
        off = {d for d, n in want.items() if chunks.get(d, 0) != n or records.get(d, 0) < most[d]}
        if off:
            short[node] = off
    return short
