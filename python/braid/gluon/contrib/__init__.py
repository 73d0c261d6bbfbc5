"""gluon.contrib: contributed layers, cells and datasets, and the Estimator (MXNet's layout): nn,
rnn, cnn, data, estimator."""
from . import nn, rnn, cnn, data, estimator

__all__ = ["nn", "rnn", "cnn", "data", "estimator"]
