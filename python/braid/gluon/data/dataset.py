"""gluon.data datasets (MXNet's mxnet.gluon.data.dataset): anything with ``__len__`` and
``__getitem__``. A sample may be any Python value (a number, an array, a tuple of them); the
DataLoader's batchify function joins them into batches.

The built-in vision datasets (MNIST, FashionMNIST) are C++ datasets; they count as ``Dataset``
instances too and have the same methods, running in C++.
"""
import abc
import os

from ... import ndarray as _nd
from ..._core.gluon import data as _cdata

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "RecordFileDataset"]


class Dataset(metaclass=abc.ABCMeta):
    """Base class of datasets: subclasses define ``__getitem__(i)`` and ``__len__()``."""

    def __getitem__(self, idx):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true (``fn`` runs over every sample now)."""
        from .sampler import FilterSampler
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Part ``index`` of ``num_shards`` contiguous parts; the first ``len % num_shards`` parts
        hold one sample more."""
        assert index < num_shards, "Shard index of out bound: %d out of %d" % (index, num_shards)
        assert num_shards > 0, "Number of shards must be greater than 0"
        assert index >= 0, "Index must be non-negative"
        size, rest = divmod(len(self), num_shards)
        start = size * index + min(index, rest)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(size + (index < rest), start))

    def take(self, count):
        """The first ``count`` samples (all of them when ``count`` is None or larger)."""
        if count is None or count > len(self):
            count = len(self)
        from .sampler import SequentialSampler
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` gives (a gluon.data.Sampler)."""
        from .sampler import Sampler
        if not isinstance(sampler, Sampler):
            raise TypeError("Invalid sampler type: %s. Expected gluon.data.Sampler instead." % type(sampler))
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """Each sample passed through ``fn`` (a tuple sample is unpacked into arguments): on every
        access when ``lazy``, else once now."""
        transformed = _LazyTransformDataset(self, fn)
        return transformed if lazy else SimpleDataset([s for s in transformed])

    def transform_first(self, fn, lazy=True):
        """Only the first field of each sample passed through ``fn`` (the data, not the label)."""
        return self.transform(_TransformFirstClosure(fn), lazy)


# C++ datasets (MNIST, their transforms) are Datasets as far as isinstance is concerned.
Dataset.register(_cdata.Dataset)


class SimpleDataset(Dataset):
    """Any object with ``len()`` and ``[]`` (a list, a NumPy array, an NDArray) as a dataset."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class _LazyTransformDataset(Dataset):
    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        return self._fn(*item) if isinstance(item, tuple) else self._fn(item)


class _TransformFirstClosure(object):
    """A class rather than a closure so that it pickles."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, x, *args):
        return (self._fn(x),) + args if args else self._fn(x)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices of ``sampler`` (read once)."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]


class ArrayDataset(Dataset):
    """Several dataset-like objects of one length zipped: sample i is ``(x1[i], x2[i], ...)``,
    or ``x1[i]`` for a single one. A one-dimensional NDArray is read as NumPy so that its
    samples are scalars."""

    def __init__(self, *args):
        assert len(args) > 0, "Needs at least 1 arrays"
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            assert len(data) == self._length, \
                "All arrays must have the same length; array[0] has length %d while array[%d] has %d." % (
                    self._length, i + 1, len(data))
            if isinstance(data, _nd.NDArray) and len(data.shape) == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class RecordFileDataset(Dataset):
    """The records of a RecordIO file (``.rec`` with its ``.idx`` beside it), each a bytes string."""

    def __init__(self, filename):
        from ... import recordio
        self.idx_file = os.path.splitext(filename)[0] + ".idx"
        self.filename = filename
        self._record = recordio.MXIndexedRecordIO(self.idx_file, self.filename, "r")

    def __getitem__(self, idx):
        return self._record.read_idx(self._record.keys[idx])

    def __len__(self):
        return len(self._record.keys)
