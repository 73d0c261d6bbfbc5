"""mx.contrib.io: DataLoaderIter, a Gluon DataLoader seen as a DataIter, so that Module (fit,
score, predict) trains on Gluon datasets and their transforms."""
from .. import ndarray as nd
from ..io import DataBatch, DataDesc
from ..io.io import BatchIter

__all__ = ["DataLoaderIter"]


class DataLoaderIter(BatchIter):
    """Yields the ``(data, label)`` batches of ``loader`` as DataBatches named ``data_name`` and
    ``label_name``, cast to ``dtype``. The batch size and the shapes of ``provide_data`` and
    ``provide_label`` come from the loader's first batch. A shorter last batch (the loader's
    ``last_batch='keep'``) is filled up to the batch size, its ``pad`` counting the filler rows,
    as DataIters report them."""

    def __init__(self, loader, data_name="data", label_name="softmax_label", dtype="float32"):
        BatchIter.__init__(self)
        self._loader, self._dtype = loader, dtype
        data, label = next(iter(loader))
        self._batch_size = data.shape[0]
        self._provide_data = [DataDesc(data_name, data.shape, dtype)]
        self._provide_label = [DataDesc(label_name, label.shape, dtype)]
        self._batches = iter(loader)
        self._current = None

    @property
    def provide_data(self):
        return self._provide_data

    @property
    def provide_label(self):
        return self._provide_label

    def reset(self):
        self._batches = iter(self._loader)

    def iter_next(self):
        try:
            data, label = next(self._batches)
        except StopIteration:
            self._current = None
            return False
        pad = self._batch_size - data.shape[0]
        self._current = DataBatch(data=[self._filled(data)], label=[self._filled(label)], pad=pad, index=None)
        return True

    def _filled(self, part):
        """``part`` in the iterator's dtype, with zero rows appended up to the batch size."""
        part = part.astype(self._dtype)
        if part.shape[0] == self._batch_size:
            return part
        full = nd.zeros((self._batch_size,) + part.shape[1:], dtype=self._dtype)
        full[:part.shape[0]] = part
        return full
