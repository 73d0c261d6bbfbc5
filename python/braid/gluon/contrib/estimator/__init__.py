"""mxnet.gluon.contrib.estimator: a high-level training API for Gluon.

``Estimator(net, loss, ...)`` runs the training loop (``fit``) and the validation loop
(``evaluate``); event handlers (``event_handler``) add what happens around each epoch and batch:
trainer steps, metrics, logging, validation, checkpoints, early stopping. ``BatchProcessor``
(``batch_processor``) says how one batch goes through the network."""
from . import estimator, event_handler, batch_processor
from .estimator import *  # noqa: F401,F403
from .event_handler import *  # noqa: F401,F403
from .batch_processor import *  # noqa: F401,F403

__all__ = (['estimator', 'event_handler', 'batch_processor'] + estimator.__all__ + event_handler.__all__
           + batch_processor.__all__)
