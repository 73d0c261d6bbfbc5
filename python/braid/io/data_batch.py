"""DataBatch (C++, what the C++ iterators yield) with MXNet's full constructor: a batch made in
Python may also carry its bucket_key, provide_data and provide_label (BucketingModule reads
them; batches of the C++ iterators have none)."""
from .._core import io as _core_io

__all__ = ["DataBatch"]


class DataBatch(_core_io.DataBatch):
    """MXNet's DataBatch(data, label, pad, index, bucket_key, provide_data, provide_label)."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None, provide_data=None,
                 provide_label=None):
        if data is not None:
            assert isinstance(data, (list, tuple)), "Data must be list of NDArrays"
        if label is not None:
            assert isinstance(label, (list, tuple)), "Label must be list of NDArrays"
        _core_io.DataBatch.__init__(self, [] if data is None else list(data), None if label is None else list(label),
                                    pad or 0, index)
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label
