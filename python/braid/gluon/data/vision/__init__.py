"""gluon.data.vision: MNIST, FashionMNIST (Debian's dataset-fashion-mnist) and transforms."""
from ...._core.gluon.data.vision import MNIST, FashionMNIST
from . import transforms

datasets = __import__(__name__, fromlist=["MNIST"])
__all__ = ["MNIST", "FashionMNIST", "transforms", "datasets"]
