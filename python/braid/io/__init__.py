"""mxnet.io: DataBatch, DataDesc and data iterators (NDArrayIter, MNISTIter, ImageRecordIter in C++; CSVIter,
LibSVMIter, ResizeIter in Python) for Module. Subclass DataIter and define next(), reset(), provide_data,
provide_label and batch_size for your own."""
from .._core.io import DataDesc, DataIter, MNISTIter
from .._core.io import load_idx, load_idx_images, load_idx_labels, fashion_mnist_dir  # Braid's additions
from .data_batch import DataBatch
from .io import CSVIter, ResizeIter
from .image_record_iter import ImageRecordIter
from .libsvm_iter import LibSVMIter
from .ndarray_iter import NDArrayIter

__all__ = ["DataBatch", "DataDesc", "DataIter", "NDArrayIter", "MNISTIter", "CSVIter", "LibSVMIter", "ResizeIter",
           "ImageRecordIter"]
