"""mxnet.io.LibSVMIter: batches of csr matrices read from LibSVM text files ("label index:value
index:value ..." per line), streamed from disk, for sparse linear models on data too big to hold
dense."""
import numpy as np

from .._core import MXNetError
from .._core.io import DataDesc
from .data_batch import DataBatch
from .io import BatchIter

__all__ = ["LibSVMIter"]


def _line_offsets(path, first, last):
    """The byte offset of line `first` of `path`, and the number of lines (first, last, or the
    file's end if it has fewer)."""
    offset, line, start = 0, 0, None
    with open(path, "rb") as f:
        for raw in f:
            if line == first:
                start = offset
            if line == last:
                break
            offset += len(raw)
            line += 1
    return (start if start is not None else offset), max(0, min(line, last) - first)


def _count_lines(path):
    count = 0
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            count += block.count(b"\n")
        f.seek(0, 2)
        size = f.tell()
        if size:
            f.seek(size - 1)
            count += f.read(1) != b"\n"  # a last line without its newline
    return count


class _LibSVMRows(object):
    """The lines [first, first + count) of one LibSVM file, parsed one at a time."""

    def __init__(self, path, width, first, count):
        self.path, self.width, self.count = path, width, count
        self.start, _ = _line_offsets(path, first, first + count)
        self.first = first
        self._file = None
        self.reset()

    def reset(self):
        if self._file is not None:
            self._file.close()
        self._file = open(self.path, "rb")
        self._file.seek(self.start)
        self.read = 0

    def close(self):
        if self._file is not None:
            self._file.close()
            self._file = None

    def next_row(self):
        """(label, sorted feature indices, values) of the next line."""
        line = self._file.readline()
        number = self.first + self.read + 1
        self.read += 1
        tokens = line.split()
        if not tokens:
            raise MXNetError("LibSVMIter: %s line %d is empty; each line is 'label index:value ...'" %
                             (self.path, number))
        try:
            label = float(tokens[0])
            pairs = [t.split(b":") for t in tokens[1:]]
            indices = np.array([int(p[0]) for p in pairs], dtype=np.int64)
            values = np.array([float(p[1]) for p in pairs], dtype=np.float64)
        except (ValueError, IndexError):
            raise MXNetError("LibSVMIter: %s line %d is not 'label index:value ...': %r" %
                             (self.path, number, line[:200].decode("utf-8", "replace"))) from None
        bad = (indices < 0) | (indices >= self.width)
        if bad.any():
            raise MXNetError("LibSVMIter: %s line %d has feature index %d, outside [0, %d) of the shape given" %
                             (self.path, number, indices[bad][0], self.width))
        order = np.argsort(indices, kind="stable")
        indices, values = indices[order], values[order]
        if len(indices) > 1 and (np.diff(indices) == 0).any():
            raise MXNetError("LibSVMIter: %s line %d gives feature %d twice" %
                             (self.path, number, indices[1:][np.diff(indices) == 0][0]))
        return label, indices, values


def _csr(rows, width, dtype):
    from ..ndarray import sparse
    indptr = np.zeros(len(rows) + 1, dtype=np.int64)
    np.cumsum([len(r[1]) for r in rows], out=indptr[1:])
    indices = np.concatenate([r[1] for r in rows]) if rows else np.zeros(0, np.int64)
    values = np.concatenate([r[2] for r in rows]).astype(dtype) if rows else np.zeros(0, dtype)
    return sparse.csr_matrix((values, indices, indptr), shape=(len(rows), width), dtype=dtype)


class LibSVMIter(BatchIter):
    """MXNet's LibSVMIter(data_libsvm, data_shape, label_libsvm=None, label_shape=(1,),
    batch_size=1, round_batch=True, num_parts=1, part_index=0). Each batch's data is a csr matrix
    (batch_size, data_shape[0]); its label is the lines' first numbers, or with label_libsvm a csr
    matrix of that file's features. Feature indices count from 0. With num_parts, part part_index
    gets its share of the lines (for distributed training: num_parts=kv.num_workers,
    part_index=kv.rank). With round_batch the last batch wraps around to the part's start (its pad
    says how many rows came twice); without it the last, partial batch is dropped."""

    def __init__(self, data_libsvm, data_shape, label_libsvm=None, label_shape=(1,), batch_size=1,
                 round_batch=True, num_parts=1, part_index=0, dtype="float32", data_name="data",
                 label_name="softmax_label", **kwargs):
        BatchIter.__init__(self)
        if len(tuple(data_shape)) != 1:
            raise MXNetError("LibSVMIter: data_shape must have one axis (the number of features), got %s" %
                             (tuple(data_shape),))
        if not 0 <= part_index < num_parts:
            raise MXNetError("LibSVMIter: part_index %d is outside the %d parts" % (part_index, num_parts))
        self._batch_size = int(batch_size)
        self._dtype = np.dtype(dtype)
        self._width = int(data_shape[0])
        lines = _count_lines(data_libsvm)
        first, last = lines * part_index // num_parts, lines * (part_index + 1) // num_parts
        self._data = _LibSVMRows(data_libsvm, self._width, first, last - first)
        self._label = None
        self._label_width = int(tuple(label_shape)[0])
        if label_libsvm is not None:
            if _count_lines(label_libsvm) != lines:
                raise MXNetError("LibSVMIter: %s has %d lines but %s has %d" %
                                 (data_libsvm, lines, label_libsvm, _count_lines(label_libsvm)))
            self._label = _LibSVMRows(label_libsvm, self._label_width, first, last - first)
        self._round_batch = round_batch
        self._names = (data_name, label_name)
        self._head = []  # the part's first rows, for the batch that wraps around
        self._current = None

    @property
    def provide_data(self):
        return [DataDesc(self._names[0], (self._batch_size, self._width), self._dtype)]

    @property
    def provide_label(self):
        shape = (self._batch_size,) if self._label is None else (self._batch_size, self._label_width)
        return [DataDesc(self._names[1], shape, self._dtype)]

    def reset(self):
        self._data.reset()
        if self._label is not None:
            self._label.reset()
        self._current = None

    def _next_pair(self):
        data = self._data.next_row()
        label = self._label.next_row() if self._label is not None else None
        if len(self._head) < min(self._batch_size, self._data.count) and self._data.read <= self._batch_size:
            self._head.append((data, label))
        return data, label

    def iter_next(self):
        left = self._data.count - self._data.read
        if left <= 0 or (not self._round_batch and left < self._batch_size):
            self._current = None
            return False
        pairs = [self._next_pair() for _ in range(min(left, self._batch_size))]
        pad = self._batch_size - len(pairs)
        while len(pairs) < self._batch_size:  # wrap around to the part's first rows
            pairs.append(self._head[(len(pairs) - (self._batch_size - pad)) % len(self._head)])
        from ..ndarray import array
        data = _csr([p[0] for p in pairs], self._width, self._dtype)
        if self._label is None:
            label = array(np.array([p[0][0] for p in pairs], dtype=self._dtype), dtype=self._dtype)
        else:
            label = _csr([p[1] for p in pairs], self._label_width, self._dtype)
        self._current = DataBatch(data=[data], label=[label], pad=pad)
        return True

    def __del__(self):
        for rows in (getattr(self, "_data", None), getattr(self, "_label", None)):
            if rows is not None:
                rows.close()
