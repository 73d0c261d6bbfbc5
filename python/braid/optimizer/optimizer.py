"""mxnet.optimizer.Optimizer: the base of every optimizer, with MXNet 1.x's bookkeeping (update
counts, learning-rate schedule, per-parameter lr/wd multipliers, multi-precision master copies),
plus the registry (``register``/``create``) and ``Updater``.

It is a subclass of the C++ optimizer so that the Trainer and the KVStore take it as it is: when
the C++ core runs an update it calls ``create_state`` and ``update`` of the Python object, and the
learning rate and weight decay it computed (from its scheduler and the Trainer's per-parameter
multipliers) are what ``_get_lr``/``_get_wd`` return during that call."""
import pickle
import warnings

import numpy

from .._core import optimizer as _core_opt
from . import core_states

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater"]

_Core = _core_opt.Optimizer
# Hyper-parameters every optimizer's core part holds itself, and the attributes under which the
# Python classes keep the others where the names differ.
_CORE_COMMON = {"learning_rate", "wd", "rescale_grad", "clip_gradient", "multi_precision", "begin_num_update"}
_ATTRIBUTE_OF_PARAM = {"eps": "float_stable_eps"}


class Optimizer(_Core):
    """MXNet's Optimizer(rescale_grad, param_idx2name, wd, clip_gradient, learning_rate,
    lr_scheduler, sym, begin_num_update, multi_precision, param_dict)."""

    opt_registry = {}
    # Plain class attributes shadow the read-only properties of the C++ base, so that these are
    # ordinary instance attributes as in MXNet.
    num_update = 0
    clip_gradient = None

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None, learning_rate=None,
                 lr_scheduler=None, sym=None, begin_num_update=0, multi_precision=False, param_dict=None,
                 **kwargs):
        _Core.__init__(self, learning_rate=0.01 if learning_rate is None else float(learning_rate),
                       wd=float(wd), rescale_grad=float(rescale_grad), multi_precision=bool(multi_precision),
                       begin_num_update=int(begin_num_update))
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self._lr_given = learning_rate is not None
        if learning_rate is not None:
            self.lr = learning_rate
        if lr_scheduler is not None:
            if learning_rate is not None and lr_scheduler.base_lr != learning_rate:
                print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten by "
                                  "``learning_rate`` in optimizer."))
                lr_scheduler.base_lr = learning_rate
            _core_opt._set_lr_scheduler(self, lr_scheduler)
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        assert isinstance(param_idx2name, dict), "param_idx2name should be a dict of param indexes to names."
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = False
        self.set_lr_mult({})
        self.set_wd_mult({})
        if kwargs:
            raise TypeError("%s got unexpected keyword arguments: %s" % (type(self).__name__, ", ".join(kwargs)))

    # --- hyper-parameters the C++ core also reads
    @property
    def lr(self):
        return self._base_lr if self.__dict__.get("_lr_given", True) else None

    @lr.setter
    def lr(self, value):
        self.__dict__["_lr_given"] = value is not None
        if value is not None:
            self._base_lr = float(value)

    @property
    def wd(self):
        return self.__dict__.get("_wd", 0.0)

    @wd.setter
    def wd(self, value):
        self.__dict__["_wd"] = value
        self.set_param("wd", float(value))

    @property
    def multi_precision(self):
        return self.__dict__.get("_multi_precision", False)

    @multi_precision.setter
    def multi_precision(self, value):
        self.__dict__["_multi_precision"] = value
        self.set_param("multi_precision", bool(value))

    @property
    def learning_rate(self):
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    @learning_rate.setter
    def learning_rate(self, value):
        self.set_learning_rate(value)

    def set_learning_rate(self, lr):
        """Sets the learning rate; raises UserWarning when an LRScheduler decides it."""
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note that "
                              "set_learning_rate can mutate the value of the learning rate of the "
                              "optimizer only when the LRScheduler of the optimizer is undefined.")
        self.lr = lr

    # --- registry
    @staticmethod
    def register(klass):
        """Makes ``create(klass.__name__.lower())`` build this class."""
        assert isinstance(klass, type)
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            old = Optimizer.opt_registry[name]
            warnings.warn("WARNING: New optimizer %s.%s is overriding existing optimizer %s.%s" %
                          (klass.__module__, klass.__name__, old.__module__, old.__name__))
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An optimizer of the registered (case-insensitive) name."""
        key = name.lower()
        if key not in Optimizer.opt_registry:
            raise ValueError("Cannot find optimizer %s" % name)
        opt = Optimizer.opt_registry[key](**kwargs)
        opt._set_name(key)
        return opt

    # --- states and updates
    def create_state(self, index, weight):
        """The auxiliary state of a weight (None: no state)."""
        return None

    def create_state_multi_precision(self, index, weight):
        """create_state, plus a float32 master copy first when the weight is float16 and
        multi_precision is on."""
        if self.multi_precision and weight.dtype == numpy.float16:
            master = weight.astype(numpy.float32)
            return (master,) + (self.create_state(index, master),)
        if weight.dtype == numpy.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or slow "
                          "convergence. Consider using multi_precision=True option of the optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        raise NotImplementedError()

    def update_multi_precision(self, index, weight, grad, state):
        """update on the float32 master copy of a float16 weight, then the weight rounded from it."""
        if self.multi_precision and weight.dtype == numpy.float16:
            master, original_state = state[0], state[1]
            self.update(index, master, grad.astype(numpy.float32), original_state)
            weight[:] = master.astype(weight.dtype)
        else:
            self.update(index, weight, grad, state)

    # --- multipliers
    def set_lr_scale(self, args_lrscale):
        raise DeprecationWarning

    def _sym_mults(self, key):
        out = {}
        if self.sym_info:
            attr, arg_names = self.sym_info
            for name in arg_names:
                if name in attr and key in attr[name]:
                    out[name] = float(attr[name][key])
        return out

    def set_lr_mult(self, args_lr_mult):
        """Learning-rate multipliers by parameter name (or index); the symbol's __lr_mult__ first."""
        self.lr_mult = self._sym_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def _decays_by_default(self, name):
        return name.endswith("_weight") or name.endswith("_gamma")

    def set_wd_mult(self, args_wd_mult):
        """Weight-decay multipliers; with names known, 0 for names not ending in _weight/_gamma."""
        self.wd_mult = {n: 0.0 for n in self.idx2name.values() if not self._decays_by_default(n)}
        self.wd_mult.update(self._sym_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _set_current_context(self, device_id):
        self._index_update_count = self._all_index_update_counts.setdefault(device_id, {})

    def _update_count(self, index):
        for idx in index if isinstance(index, (list, tuple)) else [index]:
            count = self._index_update_count.get(idx, self.begin_num_update) + 1
            self._index_update_count[idx] = count
            self.num_update = max(count, self.num_update)

    def _scheduled_lr(self):
        return self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr

    def _mults(self, indices, base, by_param, mults):
        out = [base for _ in indices]
        for i, index in enumerate(indices):
            if index in self.param_dict:
                out[i] *= getattr(self.param_dict[index], by_param)
            elif index in mults:
                out[i] *= mults[index]
            elif index in self.idx2name:
                out[i] *= mults.get(self.idx2name[index], 1.0)
        return out

    def _get_lrs(self, indices):
        core = self._core_lr_wd()
        if core is not None:  # inside an update the C++ core runs: its schedule and multipliers
            return [core[0] for _ in indices]
        return self._mults(indices, self._scheduled_lr(), "lr_mult", self.lr_mult)

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        core = self._core_lr_wd()
        if core is not None:
            return [core[1] for _ in indices]
        return self._mults(indices, self.wd, "wd_mult", self.wd_mult)

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def __repr__(self):
        return "<%s optimizer>" % type(self).__name__

    # --- pickling, as MXNet's: how a worker hands the parameter server's servers its optimizer
    def __reduce__(self):
        core = dict(learning_rate=self._base_lr, wd=float(self.wd), rescale_grad=float(self.rescale_grad),
                    multi_precision=bool(self.multi_precision), begin_num_update=int(self.begin_num_update))
        return (_unpickled, (type(self), core, self.name), self.__getstate__())

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("param_dict", None)  # a Trainer's parameters: it sets them again (MXNet's rule)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.param_dict = {}
        if state.get("lr_scheduler") is not None:
            _core_opt._set_lr_scheduler(self, state["lr_scheduler"])

    def _server_image(self):
        """What the parameter server's servers rebuild this optimizer from: None for Braid's own
        classes that the core also has, which travel by name and settings (_core_identity);
        else its pickle."""
        if self._core_identity() is not None:
            return None
        return pickle.dumps(self)

    def _core_identity(self):
        """(name, hyper-parameters) of the core optimizer the same as this one, for Braid's own
        classes that the core has; None for the others."""
        if type(self).__module__.split(".")[0] != "braid":
            return None
        name = type(self).__name__.lower()
        names = _core_opt._core_param_names(name)
        if names is None:
            return None
        settings = {}
        for key in names:
            attribute = _ATTRIBUTE_OF_PARAM.get(key, key)
            if key not in _CORE_COMMON and hasattr(self, attribute) and getattr(self, attribute) is not None:
                settings[key] = getattr(self, attribute)
        return name, settings


register = Optimizer.register


def _unpickled(cls, core, name):
    optimizer = cls.__new__(cls)
    _Core.__init__(optimizer, **core)
    optimizer._set_name(name)
    return optimizer


def _from_server_image(image):
    """The optimizer a worker sent the servers (Optimizer._server_image)."""
    try:
        return pickle.loads(image)
    except (AttributeError, ImportError) as e:
        raise RuntimeError(
            "the servers could not rebuild the workers' optimizer (%s). A server runs the script only up to "
            "`import mxnet` (as MXNet's do): define the optimizer's class in a module that the script imports, "
            "not in the script itself" % e) from e


def create(name, **kwargs):
    """An optimizer by (case-insensitive) registered name: ``create('sgd', learning_rate=0.1)``."""
    return Optimizer.create_optimizer(name, **kwargs)


Optimizer.create = staticmethod(create)


def _sync_state_context(state, context):
    from ..ndarray import NDArray
    if isinstance(state, NDArray):
        return state.as_in_context(context)
    if isinstance(state, (tuple, list)):
        synced = [_sync_state_context(s, context) for s in state]
        return tuple(synced) if isinstance(state, tuple) else synced
    return state


class Updater(object):
    """Applies an optimizer with the states it keeps per index: ``updater(index, grad, weight)``."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if not isinstance(index, (list, tuple)):
            indices, grads, weights = [index], [grad], [weight]
        else:
            indices, grads, weights = list(index), list(grad), list(weight)
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for i, idx in enumerate(indices):
            if isinstance(idx, bytes):
                idx = indices[i] = idx.decode()
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, weights[i])
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                self.states[idx] = _sync_state_context(self.states[idx], weights[i].context)
                self.states_synced[idx] = True
        if self.aggregate_updates:
            self._aggregated(indices, weights, grads)
        else:
            for i, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(i, w, g, self.states[i])

    def _aggregated(self, indices, weights, grads):
        # weights of one dtype go together, aggregate_num at a time
        by_dtype = {}
        for entry in zip(indices, weights, grads):
            by_dtype.setdefault(entry[1].dtype, []).append(entry)
        n = self.optimizer.aggregate_num
        for entries in by_dtype.values():
            for start in range(0, len(entries), n):
                idx, ws, gs = (list(x) for x in zip(*entries[start:start + n]))
                self.optimizer.update_multi_precision(idx, ws, gs, [self.states[i] for i in idx])

    def sync_state_context(self, state, context):
        return _sync_state_context(state, context)

    def set_states(self, states):
        """States from get_states, or those a store or trainer running the optimizer saved."""
        if core_states.is_core_image(states):
            self.states = core_states.states_of_core_image(states)
            self.states_synced = dict.fromkeys(self.states.keys(), False)
            return
        states = pickle.loads(states)
        if isinstance(states, tuple) and len(states) == 2:
            self.states, self.optimizer = states
        else:
            self.states = states
        self.states_synced = dict.fromkeys(self.states.keys(), False)

    def get_states(self, dump_optimizer=False):
        return pickle.dumps((self.states, self.optimizer) if dump_optimizer else self.states)


def get_updater(optimizer):
    """An Updater running `optimizer`."""
    return Updater(optimizer)
