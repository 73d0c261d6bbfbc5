"""BatchProcessor: what the Estimator does with one mini-batch, for training and for validation.

Subclass it and override ``fit_batch`` or ``evaluate_batch`` to change how a batch is fed to the
network (several inputs, a custom forward pass, ...) without rewriting the training loop; pass the
instance as ``Estimator(..., batch_processor=...)``."""
from ... import utils as _gutils
from .... import autograd

__all__ = ['BatchProcessor']


class BatchProcessor(object):
    """Runs the network and the loss on one batch of a DataLoader.

    A batch is a sequence whose first item is the data and second the label. Both are split along
    ``batch_axis`` into one slice per context of ``estimator.context`` (``gluon.utils.split_and_load``),
    so every method returns lists with one entry per context."""

    def __init__(self):
        pass

    def _get_data_and_label(self, batch, ctx, batch_axis=0):
        """(data slices, label slices) of ``batch`` over the contexts ``ctx``."""
        data = _gutils.split_and_load(batch[0], ctx_list=ctx, batch_axis=batch_axis)
        label = _gutils.split_and_load(batch[1], ctx_list=ctx, batch_axis=batch_axis)
        return data, label

    def fit_batch(self, estimator, train_batch, batch_axis=0):
        """Forward and backward pass of ``estimator.net`` and ``estimator.loss`` on a training batch.

        The gradients are left in the parameters; the optimizer step is the job of the
        GradientUpdateHandler.

        Returns
        -------
        (data, label, pred, loss), each a list of NDArray with one entry per context.
        """
        data, label = self._get_data_and_label(train_batch, estimator.context, batch_axis)
        with autograd.record():
            pred = [estimator.net(x) for x in data]
            loss = [estimator.loss(y_hat, y) for y_hat, y in zip(pred, label)]
        for l in loss:
            l.backward()
        return data, label, pred, loss

    def evaluate_batch(self, estimator, val_batch, batch_axis=0):
        """Forward pass of ``estimator.val_net`` and ``estimator.val_loss`` on a validation batch,
        without recording gradients.

        Returns
        -------
        (data, label, pred, loss), each a list of NDArray with one entry per context.
        """
        data, label = self._get_data_and_label(val_batch, estimator.context, batch_axis)
        pred = [estimator.val_net(x) for x in data]
        loss = [estimator.val_loss(y_hat, y) for y_hat, y in zip(pred, label)]
        return data, label, pred, loss
