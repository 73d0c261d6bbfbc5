"""gluon.Trainer (implemented in C++)."""
import collections.abc
import weakref

from .._core import gluon as _g
from .._core import optimizer as _core_opt
from ..kvstore_base import KVStoreBase
from ..optimizer.core_optimizer import sync_param_mults
from ..optimizer.core_updater import CoreUpdater
from .parameter import ParameterDict

__all__ = ["Trainer"]


def _as_parameter_dict(params):
    """A ParameterDict as given, or one holding a list (or dict) of parameters in their order."""
    if isinstance(params, ParameterDict):
        return params
    if isinstance(params, dict):
        params = list(params.values())
    if not isinstance(params, (list, tuple)):
        raise ValueError("First argument must be a list or dict of Parameters, got %s." % type(params))
    out = ParameterDict()
    for p in params:
        if not isinstance(p, _g.Parameter):
            raise ValueError("First argument must be a list or dict of Parameters, got list of %s." % type(p))
        out._add(p)
    return out


class _ParamsOf(collections.abc.Mapping):
    """A trainer's parameters by index (MXNet's optimizer.param_dict), without keeping the
    trainer alive (it holds the optimizer)."""

    def __init__(self, trainer):
        self._trainer = weakref.ref(trainer)

    def _params(self):
        trainer = self._trainer()
        return [] if trainer is None else trainer._params

    def __getitem__(self, index):
        params = self._params()
        if not isinstance(index, int) or not 0 <= index < len(params):
            raise KeyError(index)
        return params[index]

    def __iter__(self):
        return iter(range(len(self._params())))

    def __len__(self):
        return len(self._params())


def _sparse_update_on_kvstore(params, update_on_kvstore):
    """MXNet's rules for compressed parameters: row_sparse weights are updated on the store (False
    is refused at the first step, as MXNet does); row_sparse gradients of dense weights are updated
    here unless asked otherwise. Returns the choice and the refusal (or None)."""
    if any(p.stype != "default" for p in params.values()):
        refused = update_on_kvstore is False
        return True, ValueError("Cannot set update_on_kvstore=False when sparse weights are present.") if refused \
            else None
    if update_on_kvstore is None and any(p.grad_stype != "default" for p in params.values()):
        return False, None
    return update_on_kvstore, None


class Trainer(_g.Trainer):
    """MXNet's gluon.Trainer(params, optimizer, optimizer_params, kvstore, compression_params,
    update_on_kvstore). ``params``: a ParameterDict, or a list or dict of Parameters. An
    ``lr_scheduler`` in optimizer_params and compression_params are set on the optimizer and the
    store before the C++ Trainer takes them. The store is set up at the first step (``_kvstore``
    is None before).

    ``stop_on_divergence=True`` (Braid's addition, off by default) makes step() check the
    gradients first and raise MXNetError naming the parameter whose gradient is NaN or infinite,
    with the likely cause and the learning rate to try, instead of updating with it."""

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device", compression_params=None,
                 update_on_kvstore=None, stop_on_divergence=False):
        from .. import optimizer as _opt
        params = _as_parameter_dict(params)
        if isinstance(optimizer, str):
            make = _opt.create if (_opt.is_registered_in_python(optimizer) or
                                   (optimizer_params and "lr_scheduler" in optimizer_params)) else _core_opt.create
            optimizer, optimizer_params = make(optimizer, **dict(optimizer_params or {})), None
        # The optimizer object (a Python one too) lives as long as the trainer, so that its Python
        # attributes last; param_dict (MXNet's index -> Parameter) refers to the trainer weakly.
        self._optimizer_object = optimizer
        optimizer.param_dict = _ParamsOf(self)
        # A store written in Python (KVStoreBase) is driven here; the C++ Trainer then has none.
        self._python_store = kvstore if isinstance(kvstore, KVStoreBase) else None
        self._python_store_update = update_on_kvstore
        self._python_store_ready = False
        if self._python_store is not None:
            kvstore, update_on_kvstore = None, False
        if compression_params is not None:
            from .. import kvstore as _kv
            if isinstance(kvstore, str):
                kvstore = _kv.create(kvstore)
            kvstore.set_gradient_compression(compression_params)
        update_on_kvstore, self._sparse_refusal = _sparse_update_on_kvstore(params, update_on_kvstore)
        _g.Trainer.__init__(self, params, optimizer, optimizer_params, kvstore, None, update_on_kvstore)
        self.stop_on_divergence = stop_on_divergence
        for p in params.values():
            p._set_trainer(self)

    def step(self, batch_size, ignore_stale_grad=False):
        """allreduce_grads() then update(batch_size); skipped when mixed precision's loss scaler
        (mx.contrib.amp.init_trainer) finds an overflowed gradient."""
        if self._amp_overflowed():
            return
        self._init_kvstore()
        if self._python_store is not None:
            self.allreduce_grads()
            if self.stop_on_divergence:
                self._check_finite_gradients()
            self.update(batch_size, ignore_stale_grad)
            return
        sync_param_mults(self._optimizer_object, self._optimizer_object.param_dict)
        _g.Trainer.step(self, batch_size, ignore_stale_grad)

    def allreduce_grads(self):
        """Sums each parameter's gradients over its contexts; not when the store updates."""
        self._assert_not_updating_on_kvstore("allreduce_grads()")
        if self._python_store is None:
            _g.Trainer.allreduce_grads(self)
            return
        for i, p in enumerate(self._params):
            if p.grad_req != "null":
                self._python_store.pushpull(i, p.list_grad(), priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        """The optimizer's update of every parameter (skipped on an AMP overflow, as step); not
        when the store updates."""
        self._assert_not_updating_on_kvstore("update()")
        if self._amp_overflowed():
            return
        sync_param_mults(self._optimizer_object, self._optimizer_object.param_dict)
        _g.Trainer.update(self, batch_size, ignore_stale_grad)

    def _assert_not_updating_on_kvstore(self, what):
        self._init_kvstore()
        assert not (self._kvstore is not None and self._update_on_kvstore), \
            "%s when parameters are updated on kvstore is not supported. Try setting `update_on_kvstore` to False " \
            "when creating trainer." % what

    def _amp_overflowed(self):
        scaler = getattr(self, "_amp_loss_scaler", None)
        return scaler is not None and scaler.has_overflow(self._params)

    @property
    def _optimizer(self):
        return self._optimizer_object

    @property
    def _updaters(self):
        """MXNet's per-context updaters: Braid updates one copy and copies it to the other
        contexts, so there is one, over the optimizer's states."""
        return [CoreUpdater(self._optimizer_object)]

    @property
    def _kvstore(self):
        """The store in use once set up (None before, and without one)."""
        if not self._kv_initialized:
            return None
        return self._python_store if self._python_store is not None else self._core_kvstore()

    @property
    def _update_on_kvstore(self):
        """Whether the store runs the optimizer (None until set up, and without a store)."""
        if not self._kv_initialized or self._kvstore is None:
            return None
        return False if self._python_store is not None else self._core_update_on_kvstore()

    @property
    def _kv_initialized(self):
        if self._python_store is not None:
            return self._python_store_ready
        return _g.Trainer._kv_initialized.__get__(self)

    def _init_kvstore(self):
        """Sets the store up: a Python store (which cannot run the optimizer unless it is_capable
        of it) gives every copy of each parameter its first copy's value."""
        if self._sparse_refusal is not None:
            raise self._sparse_refusal
        self._core_kvstore()
        store = self._python_store
        if store is None or self._python_store_ready:
            return
        if self._python_store_update and not store.is_capable(KVStoreBase.OPTIMIZER):
            raise ValueError("Please set update_on_kvstore to False when both update_on_kvstore and the kvstore "
                             "%s, which does not support the optimizer, are given" % store.type)
        for i, p in enumerate(self._params):
            data = p.list_data()
            store.broadcast(i, data[0], data, priority=-i)
        self._python_store_ready = True

    def _reset_kvstore(self):
        self._python_store_ready = False
        _g.Trainer._reset_kvstore(self)

    @property
    def _params_to_init(self):
        """Parameters still waiting for their deferred initialization."""
        return [p for p in self._params if p._deferred]
