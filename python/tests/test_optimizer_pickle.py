"""Optimizers and learning-rate schedules pickle as MXNet's do (the parameter server's servers get
a user's optimizer as its pickle): the optimizer's attributes without a Trainer's param_dict, the
schedule as its own class with the state it reached; both copies then go on alike."""
import pickle

import numpy as np

import braid as mx


@mx.optimizer.register
class ScaledStep(mx.optimizer.Optimizer):
    """w -= factor * lr * rescale_grad * grad."""

    def __init__(self, factor=0.5, **kwargs):
        super(ScaledStep, self).__init__(**kwargs)
        self.factor = factor

    def update(self, index, weight, grad, state):
        self._update_count(index)
        weight[:] = weight - self.factor * self._get_lr(index) * self.rescale_grad * grad


def test_a_users_optimizer_and_its_schedule_survive_pickling():
    schedule = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.create("scaledstep", learning_rate=1.0, lr_scheduler=schedule, rescale_grad=0.25, factor=0.3)
    opt.param_dict = {0: mx.gluon.Parameter("w", shape=(2,))}  # a Trainer's: not pickled (MXNet's rule)
    grad = mx.nd.ones((2,))
    w = mx.nd.ones((2,))
    for _ in range(3):
        opt.update(0, w, grad, None)
    copy = pickle.loads(pickle.dumps(opt))
    assert type(copy) is ScaledStep and copy.factor == 0.3 and copy.rescale_grad == 0.25
    assert copy.param_dict == {} and copy.num_update == opt.num_update == 3
    w1, w2 = w.copy(), w.copy()
    for _ in range(4):  # the copy goes on with the same schedule
        opt.update(0, w1, grad, None)
        copy.update(0, w2, grad, None)
    np.testing.assert_array_equal(w1.asnumpy(), w2.asnumpy())
    assert copy.learning_rate == opt.learning_rate == 0.125  # halved at updates 3, 5 and 7


def test_schedules_pickle_as_their_own_class_with_their_state():
    schedules = [mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0),
                 mx.lr_scheduler.MultiFactorScheduler(step=[3, 6], factor=0.1, base_lr=1.0),
                 mx.lr_scheduler.PolyScheduler(max_update=12, base_lr=1.0, pwr=2),
                 mx.lr_scheduler.CosineScheduler(max_update=12, base_lr=1.0, warmup_steps=2)]
    for s in schedules:
        before = [s(t) for t in range(5)]  # FactorScheduler and MultiFactorScheduler move along
        copy = pickle.loads(pickle.dumps(s))
        assert type(copy) is type(s)
        assert [copy(t) for t in range(5, 14)] == [s(t) for t in range(5, 14)], type(s).__name__
        assert len(set(before)) > 1  # the schedules do change
