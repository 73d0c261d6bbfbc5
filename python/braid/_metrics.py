"""The metrics of mxnet.metric (MXNet 1.x's definitions), registered with it by name."""
import math

import numpy

from . import ndarray as _nd
from .metric import EvalMetric, register, alias, check_label_shapes

__all__ = ["Accuracy", "TopKAccuracy", "F1", "MCC", "Perplexity", "MAE", "MSE", "RMSE", "CrossEntropy",
           "NegativeLogLikelihood", "PearsonCorrelation", "PCC", "Loss", "Torch", "Caffe", "CustomMetric", "np"]


@register
@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of predictions (argmax over `axis` unless shaped like the label) equal to the label."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super(Accuracy, self).__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                                       has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if pred.shape != label.shape:
                pred = _nd.argmax(pred, axis=self.axis)
            pred = pred.asnumpy().astype("int32").flat
            label = label.asnumpy().astype("int32").flat
            check_label_shapes(label, pred)
            self._add((pred == label).sum(), len(pred))


@register
@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of labels among the top_k highest scores."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super(TopKAccuracy, self).__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                                           has_global_stats=True)
        self.top_k = top_k
        assert self.top_k > 1, "Please use Accuracy if top_k is no more than 1"
        self.name += "_%d" % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            assert len(pred.shape) <= 2, "Predictions should be no more than 2 dims"
            ranked = numpy.argpartition(pred.asnumpy().astype("float32"), -self.top_k)
            label = label.asnumpy().astype("int32")
            check_label_shapes(label, ranked)
            correct = 0
            if ranked.ndim == 1:
                correct = (ranked.flat == label.flat).sum()
            else:
                classes = ranked.shape[1]
                for j in range(min(classes, self.top_k)):
                    correct += (ranked[:, classes - 1 - j].flat == label.flat).sum()
            self._add(correct, ranked.shape[0])


class _BinaryCounts(object):
    """True/false positives/negatives of a binary classifier, local and global."""

    FIELDS = ("tp", "fp", "fn", "tn")

    def __init__(self):
        self.local = dict.fromkeys(self.FIELDS, 0)
        self.glob = dict.fromkeys(self.FIELDS, 0)

    def update(self, label, pred):
        pred_label = numpy.argmax(pred.asnumpy(), axis=1)
        label = label.asnumpy().astype("int32")
        check_label_shapes(label, pred_label)
        if len(numpy.unique(label)) > 2:
            raise ValueError("metric currently only supports binary classification.")
        pred_true, label_true = pred_label == 1, label == 1
        counts = {"tp": (pred_true & label_true).sum(), "fp": (pred_true & ~label_true).sum(),
                  "fn": (~pred_true & label_true).sum(), "tn": (~pred_true & ~label_true).sum()}
        for k, v in counts.items():
            self.local[k] += v
            self.glob[k] += v

    @staticmethod
    def total(c):
        return c["tp"] + c["fp"] + c["fn"] + c["tn"]

    @staticmethod
    def fscore(c):
        precision = float(c["tp"]) / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] > 0 else 0.
        recall = float(c["tp"]) / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] > 0 else 0.
        return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.

    @staticmethod
    def matthewscc(c):
        if not _BinaryCounts.total(c):
            return 0.
        tp, fp, fn, tn = (float(c[k]) for k in ("tp", "fp", "fn", "tn"))
        denom = 1.
        for t in (tp + fp, tp + fn, tn + fp, tn + fn):
            if t != 0.:
                denom *= t
        return (tp * tn - fp * fn) / math.sqrt(denom)

    def reset_local(self):
        self.local = dict.fromkeys(self.FIELDS, 0)

    def reset(self):
        self.reset_local()
        self.glob = dict.fromkeys(self.FIELDS, 0)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: 'macro' averages the score of each update, 'micro' scores all samples pooled."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self._counts = _BinaryCounts()
        super(_BinaryMetric, self).__init__(name, output_names=output_names, label_names=label_names,
                                            has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._counts.update(label, pred)
        c = self._counts
        if self.average == "macro":
            self._add(self._score(c.local), 1)
            self.global_sum_metric += self._score(c.glob) - self._score(c.local)
            c.reset()
        else:
            self.sum_metric = self._score(c.local) * c.total(c.local)
            self.global_sum_metric = self._score(c.glob) * c.total(c.glob)
            self.num_inst = c.total(c.local)
            self.global_num_inst = c.total(c.glob)

    def reset(self):
        super(_BinaryMetric, self).reset()
        self._counts.reset()

    def reset_local(self):
        super(_BinaryMetric, self).reset_local()
        self._counts.reset_local()


@register
class F1(_BinaryMetric):
    """F1 score of a binary classifier (predicted class: argmax over axis 1)."""

    def __init__(self, name="f1", output_names=None, label_names=None, average="macro"):
        super(F1, self).__init__(name, output_names, label_names, average)

    _score = staticmethod(_BinaryCounts.fscore)


@register
class MCC(_BinaryMetric):
    """Matthews correlation coefficient of a binary classifier."""

    def __init__(self, name="mcc", output_names=None, label_names=None, average="macro"):
        super(MCC, self).__init__(name, output_names, label_names, average)

    _score = staticmethod(_BinaryCounts.matthewscc)


@register
class Perplexity(EvalMetric):
    """exp of the mean negative log-probability of the labels (ignore_label not counted)."""

    def __init__(self, ignore_label, axis=-1, name="perplexity", output_names=None, label_names=None):
        super(Perplexity, self).__init__(name, ignore_label=ignore_label, output_names=output_names,
                                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        assert len(labels) == len(preds)
        loss, num = 0.0, 0
        for label, pred in zip(labels, preds):
            assert label.size == pred.size / pred.shape[-1], "shape mismatch: %s vs. %s" % (label.shape, pred.shape)
            label = label.as_in_context(pred.context).reshape((label.size,))
            picked = _nd.pick(pred, label.astype(dtype="int32"), axis=self.axis)
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(picked.dtype)
                num -= _nd.sum(ignore).asscalar()
                picked = picked * (1 - ignore) + ignore
            loss -= _nd.sum(_nd.log(_nd.maximum(1e-10, picked))).asscalar()
            num += picked.size
        self._add(loss, num)

    def get(self):
        return (self.name, float("nan") if self.num_inst == 0 else math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


def _as_columns(label, pred):
    label, pred = label.asnumpy(), pred.asnumpy()
    if label.ndim == 1:
        label = label.reshape(label.shape[0], 1)
    if pred.ndim == 1:
        pred = pred.reshape(pred.shape[0], 1)
    return label, pred


class _Regression(EvalMetric):
    def __init__(self, name, output_names=None, label_names=None):
        super(_Regression, self).__init__(name, output_names=output_names, label_names=label_names,
                                          has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._add(self._error(*_as_columns(label, pred)), 1)


@register
class MAE(_Regression):
    """Mean over updates of the batch's mean absolute error."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super(MAE, self).__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.abs(label - pred).mean()


@register
class MSE(_Regression):
    """Mean over updates of the batch's mean squared error."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super(MSE, self).__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return ((label - pred) ** 2.0).mean()


@register
class RMSE(_Regression):
    """Mean over updates of the batch's root mean squared error."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super(RMSE, self).__init__(name, output_names, label_names)

    @staticmethod
    def _error(label, pred):
        return numpy.sqrt(((label - pred) ** 2.0).mean())


class _LabelLogLoss(EvalMetric):
    """Mean of -log(p[label] + eps) over samples."""

    def __init__(self, eps, name, output_names, label_names):
        super(_LabelLogLoss, self).__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                                            has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = label.asnumpy().ravel(), pred.asnumpy()
            n = pred.shape[0]
            assert label.shape[0] == n, (label.shape[0], n)
            prob = pred[numpy.arange(n, dtype=numpy.int64), numpy.int64(label)]
            self._add((-numpy.log(prob + self.eps)).sum(), n)


@register
@alias("ce")
class CrossEntropy(_LabelLogLoss):
    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super(CrossEntropy, self).__init__(eps, name, output_names, label_names)


@register
@alias("nll_loss")
class NegativeLogLikelihood(_LabelLogLoss):
    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super(NegativeLogLikelihood, self).__init__(eps, name, output_names, label_names)


@register
@alias("pearsonr")
class PearsonCorrelation(EvalMetric):
    """Pearson correlation of predictions and labels: 'macro' averages each update's, 'micro' is
    that of all samples seen."""

    def __init__(self, name="pearsonr", output_names=None, label_names=None, average="macro"):
        self.average = average
        super(PearsonCorrelation, self).__init__(name, output_names=output_names, label_names=label_names,
                                                 has_global_stats=True)

    def reset(self):
        super(PearsonCorrelation, self).reset()
        self._seen = ([], [])

    def reset_local(self):
        super(PearsonCorrelation, self).reset_local()
        self._seen = ([], [])

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = label.asnumpy().ravel().astype(numpy.float64)
            pred = pred.asnumpy().ravel().astype(numpy.float64)
            if self.average == "macro":
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
            else:
                self._seen[0].append(label)
                self._seen[1].append(pred)
                self.num_inst += 1
                self.global_num_inst += 1

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        if self.average == "macro":
            return (self.name, self.sum_metric / self.num_inst)
        return (self.name, numpy.corrcoef(numpy.concatenate(self._seen[1]), numpy.concatenate(self._seen[0]))[0, 1])

    def get_global(self):
        return self.get() if self.average != "macro" else super(PearsonCorrelation, self).get_global()


@register
class PCC(EvalMetric):
    """Multiclass Matthews correlation (the Pearson correlation of a K x K confusion matrix)."""

    def __init__(self, name="pcc", output_names=None, label_names=None, has_global_stats=True):
        self.k = 2
        super(PCC, self).__init__(name=name, output_names=output_names, label_names=label_names,
                                  has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), "constant", constant_values=(0))
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), "constant", constant_values=(0))
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x, y = cmat.sum(axis=1), cmat.sum(axis=0)
        cov_xx, cov_yy = numpy.sum(x * (n - x)), numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float("nan")
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = label.astype("int32").asnumpy()
            pred = pred.asnumpy()
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype("int32")
            n = max(pred.max(), label.max())
            if n >= self.k:
                self._grow(n + 1 - self.k)
            bcm = numpy.zeros((self.k, self.k))
            for i, j in zip(numpy.atleast_1d(pred), numpy.atleast_1d(label)):
                bcm[i, j] += 1
            self.lcm += bcm
            self.gcm += bcm
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @sum_metric.setter
    def sum_metric(self, _):
        pass  # derived from the confusion matrix

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    @global_sum_metric.setter
    def global_sum_metric(self, _):
        pass

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))


@register
class Loss(EvalMetric):
    """Mean of every element of preds (the losses); labels are ignored."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super(Loss, self).__init__(name, output_names=output_names, label_names=label_names, has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, _nd.NDArray):
            preds = [preds]
        for pred in preds:
            self._add(_nd.sum(pred).asscalar(), pred.size)


@register
class Torch(Loss):
    def __init__(self, name="torch", output_names=None, label_names=None):
        super(Torch, self).__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    def __init__(self, name="caffe", output_names=None, label_names=None):
        super(Caffe, self).__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric from feval(label, pred) on NumPy arrays, returning a value (one instance) or a
    (sum, count) pair."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None, label_names=None):
        if name is None:
            name = feval.__name__
            if name.find("<") != -1:
                name = "custom(%s)" % name
        super(CustomMetric, self).__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                                           output_names=output_names, label_names=label_names,
                                           has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            value = self._feval(label.asnumpy(), pred.asnumpy())
            if isinstance(value, tuple):
                self._add(value[0], value[1])
            else:
                self._add(value, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized")


def np(numpy_feval, name=None, allow_extra_outputs=False):
    """A CustomMetric from feval(label, pred) on NumPy arrays."""
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
