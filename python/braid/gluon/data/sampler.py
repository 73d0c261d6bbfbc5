"""gluon.data samplers: the order in which a DataLoader visits a dataset's samples, and how it
groups them into batches (MXNet's mxnet.gluon.data.sampler)."""
import numpy as _np

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "FilterSampler", "BatchSampler", "IntervalSampler"]

_LAST_BATCH = ("keep", "discard", "rollover")


class Sampler(object):
    """Base class: iterating gives sample indices; ``len`` says how many."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``start, start + 1, ..., start + length - 1``."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """``0 .. length - 1`` in a new random order (NumPy's generator) every pass."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        order = _np.arange(self._length)
        _np.random.shuffle(order)
        return iter(order.tolist())

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true (decided once)."""

    def __init__(self, fn, dataset):
        self._indices = [i for i in range(len(dataset)) if fn(dataset[i])]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class IntervalSampler(Sampler):
    """Every ``interval``-th index: 0, interval, 2*interval, ..., then (with ``rollover``) 1,
    1 + interval, ... until all ``length`` indices were visited."""

    def __init__(self, length, interval, rollover=True):
        if interval >= length:
            raise ValueError("IntervalSampler: interval %d must be smaller than the length %d" % (interval, length))
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for start in range(self._interval if self._rollover else 1):
            for i in range(start, self._length, self._interval):
                yield i

    def __len__(self):
        if self._rollover:
            return self._length
        return len(range(0, self._length, self._interval))


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size``. The last, shorter batch is
    kept, discarded, or rolled over into the first batch of the next pass (``last_batch``)."""

    def __init__(self, sampler, batch_size, last_batch="keep"):
        if last_batch not in _LAST_BATCH:
            raise ValueError("last_batch must be one of 'keep', 'discard', or 'rollover', but got %s" % last_batch)
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []  # what 'rollover' carries into the next pass

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
