"""gluon.data: datasets and the DataLoader (C++). Subclass Dataset and define __len__ and
__getitem__ for your own; the DataLoader batches any of them."""
from ..._core.gluon.data import Dataset, SimpleDataset, ArrayDataset, DataLoader
from . import vision

__all__ = ["Dataset", "SimpleDataset", "ArrayDataset", "DataLoader", "vision"]
