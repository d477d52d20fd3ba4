"""Each node of a Typesense cluster, asked on its own.

A cluster acknowledges a write once a majority of its nodes has logged it; every node
applies it afterwards, and a client that round-robins over the nodes reads whichever one
it meets. Typesense 0.24.1 was seen to lose an acknowledged batch on a node that was
killed and restarted (``scripts/cluster/cluster_failover.py``): the ingest said every document was
stored, a count through the round-robin client agreed (another node answered it), and the
searches that reached that node missed the document. So what a node holds is asked of that
node, through a client of its own. A single node is the whole answer: nothing more is
asked there.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from ..errors import StoreError
from .settings import Node
from .store import Store

T = TypeVar("T")
TIMEOUT = 10.0  # seconds one node gets to answer a count (a batch import may be running)
STATUS_TIMEOUT = 5.0


@dataclass(frozen=True, slots=True)
class Answer(Generic[T]):
    """What one node said; ``value`` None: it did not answer, ``error`` says why."""

    node: Node
    value: T | None
    error: str = ""


class Replicas:
    """A client per node of a store's cluster (none for a single node)."""

    def __init__(self, store: Store, timeout: float = TIMEOUT) -> None:
        settings = store.settings
        # One attempt per call and a short timeout: how long to wait for a node that
        # does not answer is decided per node, here, not by the client's retries.
        alone = replace(settings, retries=0, timeout_seconds=min(timeout, settings.timeout_seconds))
        several = len(store.nodes) > 1
        self.stores = (
            tuple(Store(alone, nodes=(n,), api_key=store.api_key) for n in store.nodes)
            if several
            else ()
        )
        # A node that does not answer is waited for as long as a write rides out a lost
        # node (the client's retry budget, which covers an election).
        self.patience = max(settings.retries * settings.retry_interval_seconds, 2.0)

    @property
    def several(self) -> bool:
        return bool(self.stores)

    @property
    def nodes(self) -> tuple[Node, ...]:
        return tuple(s.nodes[0] for s in self.stores)

    def store(self, node: Node) -> Store:
        """The client of ``node`` alone."""
        return next(s for s in self.stores if s.nodes[0] == node)

    def ask(
        self,
        question: Callable[[Store], T],
        patience: float = 0.0,
        nodes: Collection[Node] | None = None,
    ) -> list[Answer[T]]:
        """``question`` put to each node (of ``nodes``; default all) through its own
        client; one that fails is asked again, with backoff, for ``patience`` seconds."""
        return [
            ask_node(s, question, patience)
            for s in self.stores
            if nodes is None or s.nodes[0] in nodes
        ]


def ask_node(store: Store, question: Callable[[Store], T], patience: float) -> Answer[T]:
    deadline = time.monotonic() + patience
    delay = 0.25
    while True:
        try:
            return Answer(store.nodes[0], question(store))
        except StoreError as exc:  # down, restarting (503), or not caught up (404)
            if time.monotonic() + delay > deadline:
                return Answer(store.nodes[0], None, _reason(exc))
        time.sleep(delay)
        delay = min(delay * 2, 2.0)


def _reason(exc: StoreError) -> str:
    """What the node answered, without the store's wording around it."""
    cause = exc.__cause__
    return f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)


@dataclass(frozen=True, slots=True)
class NodeCounts:
    """One node's own counts of file records and chunks (None: it did not answer, see
    ``error``); ``differs``: another node holds more, or this one did not answer."""

    url: str
    documents: int | None
    chunks: int | None
    error: str = ""
    differs: bool = False


def node_counts(store: Store) -> list[NodeCounts]:
    """Each node's file records and chunks, for a cluster (empty for a single node). The
    node holding the most is the reference: one that holds less lost writes (or is
    still catching up), and is flagged."""
    replicas = Replicas(store, STATUS_TIMEOUT)
    answers = replicas.ask(lambda s: s.totals(attempts=1))
    held = [a.value for a in answers if a.value is not None]
    most = max(held, key=lambda t: (t[1], t[0]), default=None)
    return [
        NodeCounts(
            a.node.url(),
            None if a.value is None else a.value[0],
            None if a.value is None else a.value[1],
            a.error,
            differs=a.value != most,
        )
        for a in answers
    ]
