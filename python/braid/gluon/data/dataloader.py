"""gluon.data.DataLoader (MXNet's mxnet.gluon.data.dataloader): mini-batches of a dataset.

Workers are threads: ``num_workers`` threads make batches ahead of the consumer, at most
``prefetch`` of them, and hand them over in order. MXNet forks worker processes unless
``thread_pool=True``; Braid's engine threads do not survive a fork, so both settings use
threads (the batches are the same). A C++ dataset (MNIST and its C++ transforms) with the default
sampling and batchify runs in Braid's C++ DataLoader instead, without the GIL.
"""
from multiprocessing.pool import ThreadPool

import numpy as _np

from ... import context as _context
from ... import ndarray as _nd
from ..._core.gluon import data as _cdata
from . import sampler as _sampler

__all__ = ["DataLoader", "default_batchify_fn", "default_mp_batchify_fn"]


def default_batchify_fn(data):
    """Joins samples into a batch: arrays are stacked, tuples (and lists) of fields are batched
    field by field into a list, anything else goes through ``numpy.asarray`` keeping its dtype."""
    if isinstance(data[0], _nd.NDArray):
        return _nd.stack(*data)
    if isinstance(data[0], (tuple, list)):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    data = _np.asarray(data)
    return _nd.array(data, dtype=data.dtype)


# MXNet's multiprocessing variant puts batches in shared memory; with worker threads it is the same.
default_mp_batchify_fn = default_batchify_fn


def _as_in_context(data, ctx):
    if isinstance(data, _nd.NDArray):
        return data.as_in_context(ctx)
    if isinstance(data, (list, tuple)):
        return [_as_in_context(d, ctx) for d in data]
    return data


def _make_batch(dataset, batchify_fn, indices):
    return batchify_fn([dataset[i] for i in indices])


class DataLoader(object):
    """Loads ``dataset`` in mini-batches.

    ``batch_size``, ``shuffle``, ``sampler`` (an index order) and ``last_batch`` ('keep',
    'discard', 'rollover') define the batches, or ``batch_sampler`` alone does. ``batchify_fn``
    joins a list of samples (default: ``default_batchify_fn``). ``pin_memory`` returns batches in
    ``cpu_pinned(pin_device_id)`` memory. ``auto_reload`` starts making the next epoch's first
    batches as soon as an epoch ends (and at construction). ``timeout``: seconds to wait for a
    worker's batch."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None, last_batch=None, batch_sampler=None,
                 batchify_fn=None, num_workers=0, pin_memory=False, pin_device_id=0, prefetch=None,
                 thread_pool=False, timeout=120, auto_reload=False):
        assert timeout > 0, "timeout must be positive, given {}".format(timeout)
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        self._native = None
        num_workers = max(num_workers, 0)
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be specified unless batch_sampler is specified")
            if isinstance(dataset, _cdata.Dataset) and sampler is None and batchify_fn is None:
                self._native = _cdata.DataLoader(dataset, batch_size, shuffle=shuffle, last_batch=last_batch,
                                                 num_workers=num_workers, prefetch=prefetch)
            if sampler is None:
                sampler = _sampler.RandomSampler(len(dataset)) if shuffle else _sampler.SequentialSampler(len(dataset))
            elif shuffle:
                raise ValueError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size, last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be specified if "
                             "batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = num_workers
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * num_workers)
        self._batchify_fn = default_batchify_fn if batchify_fn is None else batchify_fn
        self._worker_pool = ThreadPool(num_workers) if num_workers > 0 and self._native is None else None
        self.auto_reload = auto_reload
        self._iter = None
        if auto_reload:
            self.refresh()

    def __iter__(self):
        if self._iter is None:
            self.refresh()
        epoch, self._iter = self._iter, None  # an epoch is consumed by one iterator only
        for batch in epoch:
            yield batch
        if self._iter is None and self.auto_reload:
            self.refresh()

    def __len__(self):
        return len(self._native) if self._native is not None else len(self._batch_sampler)

    def refresh(self):
        """Starts a new epoch now (its workers begin on the first batches)."""
        self._iter = self._epoch()

    def clean(self):
        """Drops the epoch made ahead; the next iteration starts a new one."""
        self._iter = None

    def _pin(self, batch):
        return _as_in_context(batch, _context.cpu_pinned(self._pin_device_id)) if self._pin_memory else batch

    def _epoch(self):
        if self._native is not None:
            return (self._pin(b) for b in self._native)
        if self._worker_pool is None:
            return (self._pin(_make_batch(self._dataset, self._batchify_fn, idx)) for idx in self._batch_sampler)
        return _WorkerEpoch(self)

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            pool.terminate()


class _WorkerEpoch(object):
    """One epoch made by the loader's worker threads: ``prefetch`` batches are requested ahead,
    and one more each time the consumer takes one, so batches come back in order."""

    def __init__(self, loader):
        self._loader = loader
        self._indices = iter(loader._batch_sampler)
        self._pending = []
        for _ in range(max(loader._prefetch, 1)):
            self._request()

    def _request(self):
        idx = next(self._indices, None)
        if idx is not None:
            loader = self._loader
            self._pending.append(loader._worker_pool.apply_async(
                _make_batch, (loader._dataset, loader._batchify_fn, idx)))

    def __iter__(self):
        return self

    def __next__(self):
        self._request()
        if not self._pending:
            raise StopIteration
        result = self._pending.pop(0)
        try:
            batch = result.get(self._loader._timeout)
        except TimeoutError:
            raise TimeoutError("DataLoader: a worker took more than %s seconds for a batch; raise timeout= if "
                               "the transforms are slow" % self._loader._timeout)
        return self._loader._pin(batch)
