"""NDArrayIter (C++) with MXNet's count of samples: the first data array's. An array holding more
samples than that (a label over a larger set) has its extra samples left out, as MXNet reads only
the first ones; one holding fewer is an error (the C++ iterator names it)."""
from .._core import io as _core_io

__all__ = ["NDArrayIter"]


def _arrays(source):
    """The arrays of an NDArrayIter data or label argument (an array, a list of them, a dict)."""
    if source is None:
        return []
    if isinstance(source, dict):
        return list(source.values())
    if isinstance(source, (list, tuple)):
        return list(source)
    return [source]


def _first_samples(source, count):
    """``source`` with every array longer than ``count`` samples cut to its first ``count``."""
    def cut(a):
        shape = getattr(a, "shape", None)
        return a[:count] if shape and shape[0] > count else a

    if isinstance(source, dict):
        return {name: cut(a) for name, a in source.items()}
    if isinstance(source, (list, tuple)):
        return [cut(a) for a in source]
    return None if source is None else cut(source)


def _csr_arrays(source):
    """``source`` with SciPy csr matrices as CSRNDArrays; and whether it holds a csr matrix."""
    def convert(a):
        if type(a).__module__.startswith("scipy.sparse") and getattr(a, "format", None) == "csr":
            from ..ndarray import sparse
            return sparse.csr_matrix(a), True
        return a, getattr(a, "stype", "default") == "csr"

    if isinstance(source, dict):
        pairs = {name: convert(a) for name, a in source.items()}
        return {name: p[0] for name, p in pairs.items()}, any(p[1] for p in pairs.values())
    if isinstance(source, (list, tuple)):
        pairs = [convert(a) for a in source]
        return [p[0] for p in pairs], any(p[1] for p in pairs)
    if source is None:
        return None, False
    return convert(source)


class NDArrayIter(_core_io.NDArrayIter):
    """MXNet's NDArrayIter(data, label, batch_size, shuffle, last_batch_handle, data_name,
    label_name): batches of the arrays along axis 0."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False, last_batch_handle="pad", data_name="data",
                 label_name="softmax_label", seed=None):
        data, csr_data = _csr_arrays(data)
        label, csr_label = _csr_arrays(label)
        if (csr_data or csr_label) and last_batch_handle != "discard":
            # MXNet's rule: a batch of csr rows is not padded or rolled over
            raise NotImplementedError("`NDArrayIter` only supports ``CSRNDArray`` with `last_batch_handle` set to "
                                      "`discard`.")
        arrays = _arrays(data)
        shape = getattr(arrays[0], "shape", None) if arrays else None
        if shape:
            data, label = _first_samples(data, shape[0]), _first_samples(label, shape[0])
        _core_io.NDArrayIter.__init__(self, data, label, batch_size, shuffle, last_batch_handle, data_name,
                                      label_name, seed)
