"""An optimizer MXNet does not have, registered by the user in a module the training script
imports: the parameter server's servers rebuild it from the pickle a worker sends."""
import mxnet as mx


@mx.optimizer.register
class ScaledSGD(mx.optimizer.Optimizer):
    """w -= lr * scale * rescale_grad * grad, without state."""

    def __init__(self, scale=1.0, **kwargs):
        super(ScaledSGD, self).__init__(**kwargs)
        self.scale = scale

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        self._update_count(index)
        step = self._get_lr(index) * self.scale * self.rescale_grad
        weight[:] = weight - step * grad
