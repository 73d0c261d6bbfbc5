"""mxnet.optimizer: optimizers by name (``create('sgd', learning_rate=0.1)``), implemented in C++."""
from ._core.optimizer import Optimizer, create

__all__ = ["Optimizer", "create"]
