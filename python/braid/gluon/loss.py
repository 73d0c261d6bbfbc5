"""gluon.loss: MXNet's losses, written with operators through ``F`` so that each runs on NDArrays,
hybridized, or on Symbols (``loss(sym_pred, sym_label)`` builds a graph, e.g. for a Module).
Every loss takes an optional ``sample_weight`` broadcast against the element-wise loss, a global
``weight`` and the ``batch_axis`` it keeps (the loss is averaged over the other axes)."""
import numbers

import numpy as np

from .. import ndarray as _nd
from .block import HybridBlock

__all__ = ["Loss", "L2Loss", "L1Loss", "SigmoidBinaryCrossEntropyLoss", "SigmoidBCELoss", "SoftmaxCrossEntropyLoss",
           "SoftmaxCELoss", "KLDivLoss", "CTCLoss", "HuberLoss", "HingeLoss", "SquaredHingeLoss", "LogisticLoss",
           "TripletLoss", "PoissonNLLLoss", "CosineEmbeddingLoss", "SDMLLoss"]


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        assert isinstance(weight, numbers.Number), "weight must be a number"
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` with the shape of ``y`` (same number of elements)."""
    if F is _nd:
        return x.reshape(y.shape)
    return F.reshape_like(x, y)


def _batch_mean(F, loss, batch_axis):
    return F.mean(loss, axis=batch_axis, exclude=True)


class Loss(HybridBlock):
    """Base of the losses: ``hybrid_forward(F, pred, label, ...)``."""

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return "{name}(batch_axis={_batch_axis}, w={_weight})".format(name=type(self).__name__, **self.__dict__)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class L2Loss(Loss):
    """1/2 (label - pred)^2, averaged."""

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.square(_reshape_like(F, label, pred) - pred)
        return _batch_mean(F, _apply_weighting(F, loss, self._weight / 2, sample_weight), self._batch_axis)


class L1Loss(Loss):
    """|label - pred|, averaged."""

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = F.abs(_reshape_like(F, label, pred) - pred)
        return _batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight), self._batch_axis)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy of sigmoid(pred) (or of pred itself with ``from_sigmoid``) against a
    label in [0, 1]; ``pos_weight`` weighs the positive term."""

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            softrelu = F.Activation(-F.abs(pred), act_type="softrelu")  # log(1 + exp(-|x|)), stable
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + softrelu
            else:
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (softrelu + F.relu(-pred))
        else:
            eps = 1e-12
            if pos_weight is None:
                loss = -(F.log(pred + eps) * label + F.log(1. - pred + eps) * (1. - label))
            else:
                loss = -(F.broadcast_mul(F.log(pred + eps) * label, pos_weight) +
                         F.log(1. - pred + eps) * (1. - label))
        return _batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight), self._batch_axis)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """-log softmax(pred)[label] along ``axis``: ``sparse_label`` labels are class indices, else
    distributions; ``from_logits`` when pred is already a log-softmax."""

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        if self._sparse_label:
            if F is _nd and label.ndim == pred.ndim:
                loss = -F.pick(pred, label, axis=self._axis, keepdims=True)
            else:  # labels without the class axis (the usual (N,) for (N, C) predictions)
                loss = -F.expand_dims(F.pick(pred, label, axis=self._axis), axis=self._axis)
        else:
            loss = -F.sum(pred * _reshape_like(F, label, pred), axis=self._axis, keepdims=True)
        return _batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight), self._batch_axis)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """Kullback-Leibler divergence of label from softmax(pred) (``from_logits``: pred is a
    log-probability already)."""

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        if not self._from_logits:
            pred = F.log_softmax(pred, self._axis)
        loss = label * (F.log(label + 1e-12) - pred)
        return F.mean(_apply_weighting(F, loss, self._weight, sample_weight), axis=self._batch_axis, exclude=True)


class CTCLoss(Loss):
    """Connectionist Temporal Classification loss (the CTCLoss operator, blank label last)."""

    def __init__(self, layout="NTC", label_layout="NT", weight=None, **kwargs):
        assert layout in ["NTC", "TNC"], "Only 'NTC' and 'TNC' layouts for pred are supported. Got: %s" % layout
        assert label_layout in ["NT", "TN"], "Only 'NT' and 'TN' layouts for label are supported. Got: %s" % \
            label_layout
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find("N"), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None, sample_weight=None):
        if self._layout == "NTC":
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths, use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label="last")
        return _apply_weighting(F, loss, self._weight, sample_weight)


class HuberLoss(Loss):
    """Smoothed L1: (0.5 / rho) err^2 where |err| <= rho, else |err| - rho / 2."""

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        err = F.abs(_reshape_like(F, label, pred) - pred)
        loss = F.where(err > self._rho, err - 0.5 * self._rho, (0.5 / self._rho) * F.square(err))
        return _batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight), self._batch_axis)


class HingeLoss(Loss):
    """max(0, margin - pred * label) for labels -1 and 1."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def _hinge(self, F, pred, label):
        return F.relu(self._margin - pred * _reshape_like(F, label, pred))

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        loss = self._hinge(F, pred, label)
        return _batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight), self._batch_axis)


class SquaredHingeLoss(HingeLoss):
    """max(0, margin - pred * label)^2 for labels -1 and 1."""

    def _hinge(self, F, pred, label):
        return F.square(super()._hinge(F, pred, label))


class LogisticLoss(Loss):
    """log(1 + exp(-pred * label)); ``label_format`` 'signed' (-1, 1) or 'binary' (0, 1)."""

    def __init__(self, weight=None, batch_axis=0, label_format="signed", **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._label_format = label_format
        if label_format not in ["signed", "binary"]:
            raise ValueError("label_format can only be signed or binary, received %s." % label_format)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == "signed":
            label = (label + 1.0) / 2.0
        loss = F.relu(pred) - pred * label + F.Activation(-F.abs(pred), act_type="softrelu")
        return _batch_mean(F, _apply_weighting(F, loss, self._weight, sample_weight), self._batch_axis)


class TripletLoss(Loss):
    """max(|positive - pred|^2 - |negative - pred|^2 + margin, 0) per sample."""

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = _reshape_like(F, positive, pred)
        negative = _reshape_like(F, negative, pred)
        loss = F.sum(F.square(positive - pred) - F.square(negative - pred), axis=self._batch_axis, exclude=True)
        return _apply_weighting(F, F.relu(loss + self._margin), self._weight, None)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of ``target`` under a Poisson distribution of mean exp(pred)
    (``from_logits``) or pred; ``compute_full`` adds Stirling's approximation of log(target!)."""

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * np.pi)
            loss = loss + stirling * (target > 1)
        return F.mean(_apply_weighting(F, loss, self._weight, sample_weight))


class CosineEmbeddingLoss(Loss):
    """1 - cos(input1, input2) for label 1, max(0, cos - margin) for label -1."""

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = _reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos_sim = self._cosine_similarity(F, input1, input2)
        y_1 = label == 1
        y_minus_1 = label == -1
        cos_sim_a = (1 - cos_sim) * y_1
        zero = F.array([0]) if F is _nd else F.zeros((1, 1))
        cos_sim_b = F.broadcast_maximum(zero, y_minus_1 * (cos_sim - self._margin))
        return _apply_weighting(F, cos_sim_a + cos_sim_b, self._weight, sample_weight)

    def _cosine_similarity(self, F, x, y, axis=-1):
        x_norm = F.norm(x, axis=axis).reshape((-1, 1))
        y_norm = F.norm(y, axis=axis).reshape((-1, 1))
        x_dot_y = F.sum(x * y, axis=axis).reshape((-1, 1))
        eps = F.array([1e-12]) if F is _nd else F.full((1, 1), 1e-12)
        return x_dot_y / F.broadcast_maximum(x_norm * y_norm, eps)


class SDMLLoss(Loss):
    """Smoothed Deep Metric Learning loss: the KL divergence between softmax(-distances) of two
    aligned batches and a smoothed identity (each x1[i] should be closest to x2[i])."""

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def _compute_distances(self, x1, x2):
        assert x1.shape == x2.shape
        batch_size, dim = x1.shape
        x1_ = x1.expand_dims(1).broadcast_to([batch_size, batch_size, dim])
        x2_ = x2.expand_dims(0).broadcast_to([batch_size, batch_size, dim])
        return ((x1_ - x2_) ** 2).sum(axis=2)

    def _compute_labels(self, F, batch_size):
        gold = F.eye(batch_size)
        return gold * (1 - self.smoothing_parameter) + (1 - gold) * self.smoothing_parameter / (batch_size - 1)

    def hybrid_forward(self, F, x1, x2):
        labels = self._compute_labels(F, x1.shape[0])
        distances = self._compute_distances(x1, x2)
        log_probabilities = F.log_softmax(-distances, axis=1)
        return self.kl_loss(log_probabilities, labels.as_in_context(distances.context))
