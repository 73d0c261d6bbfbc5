"""gluon.loss: the built-in losses (C++) and the Loss base class for user-defined ones."""
from .._core.gluon import loss as _l
from .block import HybridBlock

L2Loss, L1Loss, HuberLoss = _l.L2Loss, _l.L1Loss, _l.HuberLoss
SoftmaxCrossEntropyLoss = SoftmaxCELoss = _l.SoftmaxCrossEntropyLoss
SigmoidBinaryCrossEntropyLoss = SigmoidBCELoss = _l.SigmoidBinaryCrossEntropyLoss
KLDivLoss = _l.KLDivLoss


class Loss(HybridBlock):
    """Base of user-defined losses: ``hybrid_forward(F, pred, label, ...)``."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis
