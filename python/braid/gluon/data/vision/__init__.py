"""gluon.data.vision: datasets (MNIST, FashionMNIST, CIFAR10, CIFAR100, ImageFolderDataset,
ImageRecordDataset) and transforms."""
from . import datasets, transforms
from .datasets import *  # noqa: F401,F403

__all__ = datasets.__all__ + ["datasets", "transforms"]
