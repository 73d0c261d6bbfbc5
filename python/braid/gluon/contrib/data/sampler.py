"""IntervalSampler of MXNet's gluon.contrib.data: visits indices with a fixed stride, e.g. to
read several parts of one long sequence side by side (truncated back-propagation through time)."""
from ...data import sampler as _sampler

__all__ = ["IntervalSampler"]


class IntervalSampler(_sampler.IntervalSampler):
    """``IntervalSampler(length, interval, rollover=True)``: 0, interval, 2*interval, ... below
    ``length``; with ``rollover`` then 1, 1 + interval, ... and so on until every index was
    visited once. ``IntervalSampler(10, 3)`` gives 0 3 6 9 1 4 7 2 5 8; with rollover=False,
    0 3 6 9. ``interval`` may equal ``length`` (as in MXNet's contrib sampler)."""

    def __init__(self, length, interval, rollover=True):
        assert interval <= length, \
            "Interval {} must be smaller than or equal to length {}".format(interval, length)
        # The base class refuses interval == length; its iteration and len are the same.
        self._length, self._interval, self._rollover = length, interval, rollover

    def __len__(self):
        # As MXNet's contrib sampler: the length given, even when rollover=False yields fewer.
        return self._length
