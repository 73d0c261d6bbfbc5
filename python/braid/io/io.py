"""Data iterators written in Python over braid's DataIter: CSVIter (rows of CSV files as
batches) and ResizeIter (an iterator cut or extended to a number of batches)."""
import numpy as np

from .._core.io import DataDesc, DataIter
from .data_batch import DataBatch

__all__ = ["CSVIter", "ResizeIter"]


def _read_csv(path, shape, dtype):
    rows = np.loadtxt(path, delimiter=",", dtype=dtype, ndmin=2)
    return rows.reshape((rows.shape[0],) + tuple(shape))


class BatchIter(DataIter):
    """An iterator whose iter_next() builds the next DataBatch into ``self._current`` (None at
    the end): next() and the get*() accessors read it."""

    @property
    def batch_size(self):
        return self._batch_size

    def next(self):
        if not self.iter_next():
            raise StopIteration
        return self._current

    def getdata(self):
        return self._current.data[0]

    def getlabel(self):
        return self._current.label[0]

    def getpad(self):
        return self._current.pad

    def getindex(self):
        return self._current.index


class CSVIter(BatchIter):
    """MXNet's CSVIter: each line of data_csv (and label_csv) is one sample, reshaped to data_shape
    (label_shape). With round_batch the last batch wraps around to the start (its pad says how
    many samples were taken twice); without it the last, partial batch is dropped."""

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=1, round_batch=True,
                 dtype="float32", data_name="data", label_name="softmax_label", **kwargs):
        DataIter.__init__(self)
        self._batch_size = int(batch_size)
        self._dtype = np.dtype(dtype)
        self._data = _read_csv(data_csv, data_shape, self._dtype)
        n = self._data.shape[0]
        if label_csv is not None:
            self._label = _read_csv(label_csv, label_shape, self._dtype)
            if self._label.shape[0] != n:
                raise ValueError("CSVIter: %s has %d rows but %s has %d" % (data_csv, n, label_csv,
                                                                            self._label.shape[0]))
        else:
            self._label = np.zeros((n,) + tuple(label_shape), dtype=self._dtype)
        if tuple(label_shape) == (1,):
            self._label = self._label.reshape((n,))
        self._round_batch = round_batch
        self._names = (data_name, label_name)
        self._cursor = -self._batch_size
        self._current = None

    @property
    def provide_data(self):
        return [DataDesc(self._names[0], (self._batch_size,) + self._data.shape[1:], self._dtype)]

    @property
    def provide_label(self):
        return [DataDesc(self._names[1], (self._batch_size,) + self._label.shape[1:], self._dtype)]

    def reset(self):
        self._cursor = -self._batch_size
        self._current = None

    def iter_next(self):
        self._cursor += self._batch_size
        n = self._data.shape[0]
        if self._cursor >= n or (not self._round_batch and self._cursor + self._batch_size > n):
            self._current = None
            return False
        rows = np.arange(self._cursor, self._cursor + self._batch_size) % n
        pad = max(0, self._cursor + self._batch_size - n)
        from ..ndarray import array
        self._current = DataBatch(data=[array(self._data[rows], dtype=self._dtype)],
                                  label=[array(self._label[rows], dtype=self._dtype)], pad=pad,
                                  index=[int(i) for i in rows])
        return True


class ResizeIter(DataIter):
    """`data_iter` cut or extended (by resetting it) to `size` batches per epoch."""

    def __init__(self, data_iter, size, reset_internal=True):
        DataIter.__init__(self)
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None

    @property
    def batch_size(self):
        return self.data_iter.batch_size

    @property
    def provide_data(self):
        return self.data_iter.provide_data

    @property
    def provide_label(self):
        return self.data_iter.provide_label

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True

    def next(self):
        if not self.iter_next():
            raise StopIteration
        return self.current_batch

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad
