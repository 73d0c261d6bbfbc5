"""gluon.Parameter, gluon.Constant and gluon.ParameterDict.

The parameters live in C++ (shared with the C++ layers); MXNet's Python-only parts are added here:
the storage-type arguments, ``var()``, constants, the keyword form of ``ParameterDict.get`` and
the loading options.
"""
import numpy as _np

from .. import init as _init
from .. import ndarray as _nd
from .._core import gluon as _g

__all__ = ["Parameter", "Constant", "ParameterDict", "DeferredInitializationError"]

Parameter = _g.Parameter
ParameterDict = _g.ParameterDict

_STYPES = ("default", "row_sparse", "csr")


class DeferredInitializationError(Exception):
    """Raised when a parameter's data is read before its deferred initialization happened."""


def _check_stype(stype, what):
    assert stype in _STYPES, "invalid %s %s for Parameter, expected one of %s" % (what, stype, _STYPES)


# --- Parameter ---------------------------------------------------------------------------------

_parameter_init = Parameter.__init__


def _parameter_new_init(self, name, grad_req="write", shape=None, dtype="float32", lr_mult=1.0, wd_mult=1.0,
                        init=None, allow_deferred_init=False, differentiable=True, stype="default",
                        grad_stype="default"):
    _check_stype(stype, "stype")
    _check_stype(grad_stype, "grad_stype")
    if isinstance(shape, int):
        shape = (shape,)
    _parameter_init(self, name, grad_req if differentiable else "null", shape, dtype, lr_mult, wd_mult, init,
                    allow_deferred_init)
    self._differentiable = differentiable
    self.stype, self.grad_stype = stype, grad_stype
    _keep_initializer(self, init)


def _keep_initializer(param, init):
    # An initializer defined in Python must outlive its Python object's last reference here: C++
    # calls its _init_weight back when the parameter is initialized.
    if init is not None and not isinstance(init, str):
        param._py_init = init


def _attr(name, default):
    return property(lambda self: getattr(self, name, default))


def _var(self):
    """The Symbol variable standing for this parameter (made once), with its shape, dtype,
    multipliers and initializer as attributes."""
    sym = getattr(self, "_var_symbol", None)
    if sym is None:
        from .. import symbol as _sym
        init = self.init
        sym = _sym.var(self.name, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult, wd_mult=self.wd_mult,
                       init=init.dumps() if init is not None and hasattr(init, "dumps") else None,
                       stype=self.stype)
        self._var_symbol = sym
    return sym


def _set_trainer(self, trainer):
    """Records the Trainer updating this parameter; a sparse parameter may have only one."""
    current = self._trainer
    if self.stype != "default" and current is not None and trainer is not None and current is not trainer:
        raise RuntimeError("Failed to set the trainer for Parameter '%s' because it was already set. More than one "
                           "trainers for a %s Parameter is not supported." % (self.name, self.stype))
    self._trainer = trainer


def _check_row_sparse(param, method):
    if param.stype != "row_sparse":
        raise RuntimeError("Cannot return copies of Parameter '%s' via %s() because its storage type is %s. "
                           "Please use data() instead." % (param.name, method, param.stype))
    if param._trainer is None:
        raise RuntimeError("Cannot get row_sparse data for Parameter '%s' when no Trainer is created with it."
                           % param.name)


def _row_sparse_data(self, row_id):
    """The rows `row_id` of a row_sparse parameter, on row_id's context (MXNet's row_sparse_data)."""
    _check_row_sparse(self, "row_sparse_data")
    return self._row_sparse_data(row_id)


def _list_row_sparse_data(self, row_id):
    """The rows `row_id` of a row_sparse parameter on each of its contexts."""
    _check_row_sparse(self, "list_row_sparse_data")
    return [self._row_sparse_data(row_id.as_in_context(ctx)) for ctx in self.list_ctx()]


_parameter_reset_ctx = Parameter.reset_ctx


def _in_its_interface(method):
    """``method`` (data, grad and their list_ forms) giving mx.np arrays for a parameter whose
    arrays were created under the mx.np interface, as MXNet."""
    def read(self, *args, **kwargs):
        out = method(self, *args, **kwargs)
        if not self._np_arrays:
            return out
        from ..numpy.multiarray import as_np
        return as_np(out)
    read.__name__, read.__doc__ = method.__name__, method.__doc__
    return read


def _data_of_dense(method):
    def read(self, *args, **kwargs):
        if self.stype != "default":
            raise RuntimeError("Cannot return a copy of Parameter '%s' via %s() because its storage type is %s. "
                               "Please use row_sparse_data() instead." % (self.name, method.__name__, self.stype))
        return method(self, *args, **kwargs)
    read.__name__, read.__doc__ = method.__name__, method.__doc__
    return _in_its_interface(read)


Parameter.__init__ = _parameter_new_init
Parameter.reset_ctx = lambda self, ctx: _parameter_reset_ctx(self, ctx)
_dense_list_data = Parameter.list_data
Parameter.data = _data_of_dense(Parameter.data)
Parameter.list_data = _data_of_dense(Parameter.list_data)
Parameter.grad = _in_its_interface(Parameter.grad)
Parameter.list_grad = _in_its_interface(Parameter.list_grad)
Parameter.differentiable = _attr("_differentiable", True)
Parameter._set_trainer = _set_trainer
Parameter.var = _var
Parameter.row_sparse_data = _row_sparse_data
Parameter.list_row_sparse_data = _list_row_sparse_data
Parameter._grad = property(lambda self: self.list_grad() if self.list_ctx() and self.grad_req != "null" else None)
# Braid keeps a row_sparse parameter's value dense; MXNet's _data shows it row_sparse.
Parameter._data = property(lambda self: ([d.tostype(self.stype) for d in _dense_list_data(self)]
                                         if self.stype != "default" else _dense_list_data(self))
                           if self.list_ctx() else None)


# --- Constant ----------------------------------------------------------------------------------

class _ConstantInit(_init.Initializer):
    """Fills the array with a given value (a Constant's initializer)."""

    def __init__(self, value):
        super().__init__()
        self._value = value

    def _init_weight(self, _, arr):
        arr[:] = self._value

    def dumps(self):
        return '["constant", {}]'


def Constant(name, value):
    """A parameter holding ``value`` (an NDArray or anything NumPy reads) that no gradient or
    optimizer changes (grad_req 'null')."""
    if not isinstance(value, _nd.NDArray):
        value = _nd.array(_np.asarray(value))
    return Parameter(name, grad_req="null", shape=value.shape, dtype=value.dtype, init=_ConstantInit(value),
                     differentiable=False)


# --- ParameterDict -----------------------------------------------------------------------------

_dict_get = ParameterDict.get
_CORE_GET_ARGS = ("shape", "dtype", "grad_req", "init", "allow_deferred_init", "lr_mult", "wd_mult")


def _dict_get_kwargs(self, name, **kwargs):
    """The parameter prefix+name: this dictionary's, else the shared one's, else a new one made
    with ``kwargs`` (Parameter's arguments). An existing one must agree with the given
    attributes (unknown shape dimensions are completed)."""
    for key in ("stype", "grad_stype"):
        _check_stype(kwargs.get(key, "default"), key)
    core = {k: kwargs.pop(k) for k in _CORE_GET_ARGS if k in kwargs}
    if isinstance(core.get("shape"), int):
        core["shape"] = (core["shape"],)
    if not kwargs.get("differentiable", True):
        core["grad_req"] = "null"
    existed = self.prefix + name in self
    p = _dict_get(self, name, **core)
    init = core.get("init")
    if init is not None and p.init is init:  # made now (an existing one, here or shared, keeps its own)
        _keep_initializer(p, init)
    for k, v in kwargs.items():
        current = getattr(p, k, None)
        if existed and k in ("stype", "grad_stype", "differentiable"):
            assert v == current, "Cannot retrieve Parameter '%s' because desired attribute does not match with " \
                                 "stored for attribute '%s': desired '%s' vs stored '%s'." % (p.name, k, v, current)
        setattr(p, "_differentiable" if k == "differentiable" else k, v)
    return p


def _get_constant(self, name, value=None):
    """The constant prefix+name, made from ``value`` the first time."""
    full = self.prefix + name
    if full in self:
        return self[full]
    if value is None:
        raise KeyError("No constant named '%s'. Please specify value if you want to create a new constant." % full)
    p = Constant(full, value)
    self._add(p)
    return p


def _list_ctx(self):
    """The contexts the parameters are on."""
    found = []
    for p in self.values():
        for c in p.list_ctx():
            if c not in found:
                found.append(c)
    return found


def _repr(self):
    lines = ["  %r" % p for p in self.values()]
    return "%s(\n%s\n)" % (self.prefix + " " if self.prefix else "", "\n".join(lines))


_dict_load = ParameterDict.load
_dict_setattr = ParameterDict.setattr


def _load(self, filename, ctx=None, allow_missing=False, ignore_extra=False, restore_prefix="", cast_dtype=False,
          dtype_source="current"):
    """Loads parameters saved by save(); with ``cast_dtype``, ``dtype_source`` says whose dtype
    wins: 'current' (the parameters') or 'saved' (the file's)."""
    if dtype_source not in ("current", "saved"):
        raise ValueError("dtype_source must be 'current' or 'saved', got %r" % (dtype_source,))
    if cast_dtype and dtype_source == "saved":
        for key, value in _nd.load(filename).items():
            name = restore_prefix + key
            if name in self:
                self[name].cast(value.dtype)
    _dict_load(self, filename, ctx, allow_missing, ignore_extra, restore_prefix, cast_dtype)
    _reset_trainers(self.values())


def _reset_trainers(params):
    """After loading: a trainer whose store updates the parameters drops the store's stale copies."""
    for p in params:
        trainer = p._trainer
        if trainer is not None and trainer._kv_initialized and trainer._update_on_kvstore:
            trainer._reset_kvstore()


def _setattr_all(self, name, value):
    """Sets attribute ``name`` of every parameter (MXNet's ParameterDict.setattr)."""
    if name in ("grad_req", "lr_mult", "wd_mult"):
        _dict_setattr(self, name, value)
    else:
        for p in self.values():
            setattr(p, name, value)


ParameterDict.get = _dict_get_kwargs
ParameterDict.get_constant = _get_constant
ParameterDict.list_ctx = _list_ctx
ParameterDict.__repr__ = _repr
ParameterDict.load = _load
ParameterDict.setattr = _setattr_all


def _parameter_deepcopy(self, memo):
    """A parameter of its own with the same name, attributes and (copied) values."""
    copy = Parameter(self.name, grad_req=self.grad_req, shape=self.shape, dtype=self.dtype, lr_mult=self.lr_mult,
                     wd_mult=self.wd_mult, allow_deferred_init=True)
    if self.list_ctx() and not self._deferred:
        copy.initialize(ctx=self.list_ctx())
        copy.set_data(self.data().copy())
    memo[id(self)] = copy
    return copy


def _dict_deepcopy(self, memo):
    """A ParameterDict of the same prefix holding copies of the parameters (MXNet's deepcopy)."""
    import copy as _copy
    out = ParameterDict(self.prefix)
    for _, p in self.items():
        out._add(_copy.deepcopy(p, memo))
    return out


Parameter.__deepcopy__ = _parameter_deepcopy
ParameterDict.__deepcopy__ = _dict_deepcopy
