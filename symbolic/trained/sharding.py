"""The data sharded over Dask workers: each worker holds some batches of the examples and computes
their shares of L, of its gradient and of its Hessian-vector products; the client sums them.  Where
the data outgrow one machine, every measure then runs unchanged: it sees one ``Objective``.

The batches are scattered once, round robin over the workers, and stay there; each call sends θ
and v (scattered once per call when they are large), one task per batch on the worker that holds
it, and sums the parts in batch order, so the sums are those of one process, term for term."""
from __future__ import annotations

import hashlib
import math
import pickle

import numpy as np

from symbolic.errors import CheckerError
from symbolic.trained.autodiff import BATCH, BatchFunctions, batches_of

_FUNCTIONS: dict = {}          # on a worker: the compiled functions of each network and loss, by their digest
SCATTER_BYTES = 1 << 20        # a vector this large is scattered once per call; a smaller one rides in the tasks


class ClusterError(CheckerError, ValueError):
    """The Dask cluster cannot take the batches (no workers, the project missing on a worker): one
    line, exit code 2."""


def _on_worker(token: str, spec: tuple, kind: str, dtype, vectors: tuple, batch: tuple):
    """One function on one batch, on the worker that holds the batch (compiled once per worker and
    network: a later run on the same cluster reuses it)."""
    if token not in _FUNCTIONS:
        _FUNCTIONS[token] = BatchFunctions(*spec)
    return _FUNCTIONS[token](kind, dtype, vectors, batch)


def on_dask(client):
    """The placement of an ``Objective``'s batches on the workers of a Dask client."""
    return lambda network, loss, x, y, batch: DaskBatches(client, network, loss, x, y, batch)


class DaskBatches:
    """The batches on the workers of a Dask client, at most ``batch`` examples each and at least one
    batch per worker."""

    def __init__(self, client, network, loss: str, x: np.ndarray, y: np.ndarray, batch: int = BATCH):
        workers = sorted(client.scheduler_info()["workers"])
        if not workers:
            raise ClusterError("the Dask cluster has no workers")
        size = max(1, min(batch, math.ceil(len(x) / len(workers))))
        # the token names the network and the loss by their content
        self.client, self.token = client, hashlib.sha256(pickle.dumps((network, loss))).hexdigest()
        self.spec = client.scatter((network, loss), broadcast=True, hash=False)
        self.batches = [(client.scatter(part, workers=[workers[k % len(workers)]], hash=False),
                         workers[k % len(workers)])
                        for k, part in enumerate(batches_of(x, y, size))]

    def each(self, kind: str, dtype, vectors: tuple) -> list:
        if sum(np.asarray(v).nbytes for v in vectors) >= SCATTER_BYTES:
            vectors = tuple(self.client.scatter(list(vectors), broadcast=True, hash=False))
        futures = [self.client.submit(_on_worker, self.token, self.spec, kind, dtype, vectors, part,
                                      workers=[worker], pure=False)
                   for part, worker in self.batches]
        try:
            return self.client.gather(futures)
        except ImportError as error:
            raise ClusterError(f"a Dask worker cannot import this project ({error}): install it on every "
                               "worker") from None
