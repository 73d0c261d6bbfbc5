"""Dynamic loss scaling for AMP (MXNet's mx.contrib.amp.LossScaler): the loss is multiplied by
``loss_scale`` (2**16 at first) so that small float16 gradients survive; a step whose gradients
overflowed is skipped and the scale halved, and after 2000 steps without overflow it doubles (up
to 2**24)."""
import logging

from ... import autograd
from ... import ndarray as nd

__all__ = ["LossScaler"]


class LossScaler(object):
    """MXNet's LossScaler: ``loss_scale`` and ``has_overflow(params)``."""

    def __init__(self):
        self._loss_scale = 2. ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2. ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        return self._loss_scale

    def has_overflow(self, params):
        """Whether a gradient of ``params`` (Parameters) holds an infinity or a NaN; moves the
        scale on as described above. Waits for the gradients."""
        grads = [g for p in params if p.grad_req != "null" for g in p.list_grad()]
        finite = True
        if grads:
            with autograd.pause():
                by_context = {}
                for g in grads:
                    by_context.setdefault(g.context, []).append(g)
                for arrays in by_context.values():
                    flag = nd.multi_all_finite(*arrays, num_arrays=len(arrays))
                    finite = finite and bool(flag.asnumpy()[0])
        overflow = not finite
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return overflow
