"""mxnet.init (also mxnet.initializer): parameter initializers. The distributions run in C++
(Uniform, Normal, Constant, Zero, One, Xavier, MSRAPrelu); Bilinear, Orthogonal, LSTMBias, Mixed
and Load are written here. Subclass Initializer and define ``_init_weight(self, name, arr)`` for
your own; ``dumps()`` gives MXNet's JSON ``[name, kwargs]``."""
import json
import logging
import re

import numpy as np

from . import _core
from ._core.init import create

_C = _core.init

__all__ = ["InitDesc", "Initializer", "Uniform", "Normal", "Constant", "Zero", "One", "Xavier", "MSRAPrelu",
           "Bilinear", "Orthogonal", "LSTMBias", "FusedRNN", "Mixed", "Load", "register", "create", "Zeros", "Ones"]

_registry = {}


def register(klass):
    """Makes the initializer class known by its lower-case name (for dumps()/create)."""
    _registry[klass.__name__.lower()] = klass
    return klass


class InitDesc(str):
    """A parameter's name with its attributes (``__init__`` among them) and the global initializer."""

    def __new__(cls, name, attrs=None, global_init=None):
        ret = super(InitDesc, cls).__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


class _Described(object):
    """MXNet's kwargs record and dumps() for every initializer, built in or written in Python."""

    def _record(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        self._verbose = verbose
        if print_func is None:
            def asum_stat(x):
                return str((abs(x) ** 2).mean() ** 0.5 if x.size else 0.0)
            print_func = asum_stat
        self._print_func = print_func
        return self

    def __repr__(self):
        # In Python, never the C++ object's: an initializer whose constructor failed has none.
        return "%s(%s)" % (type(self).__name__, ", ".join("%s=%s" % kv for kv in getattr(self, "_kwargs", {}).items()))

    def __eq__(self, other):
        """Initializers of one class made with the same arguments are equal (as MXNet)."""
        if not isinstance(other, _Described):
            return NotImplemented
        return type(self) is type(other) and getattr(self, "_kwargs", {}) == getattr(other, "_kwargs", {})

    def dumps(self):
        """``[lower-case class name, kwargs]`` as JSON."""
        return json.dumps([self.__class__.__name__.lower(), getattr(self, "_kwargs", {})])

    def __call__(self, desc, arr):
        """Fills arr by the parameter's name (weights by this initializer, biases zero, gamma
        one, ...); a desc whose attrs carry ``__init__`` uses that initializer instead."""
        attrs = getattr(desc, "attrs", None) or {}
        if "__init__" in attrs:
            klass, kwargs = json.loads(attrs["__init__"])
            if getattr(desc, "global_init", None) is None:
                desc = InitDesc(str(desc), attrs, global_init=self)
            _registry[klass.lower()](**kwargs)._init_weight(desc, arr)
            return
        self._call_by_name(str(desc), arr)
        if getattr(self, "_verbose", False) and self._print_func:
            logging.info("Initialized %s as %s: %s", desc, self.__class__.__name__, self._print_func(arr))


class Initializer(_Described, _C.Initializer):
    """The base of initializers written in Python: define ``_init_weight(self, name, arr)``."""

    def __init__(self, **kwargs):
        _C.Initializer.__init__(self)
        self._record(**kwargs)

    def _call_by_name(self, name, arr):
        _C.Initializer.__call__(self, name, arr)

    def _init_weight(self, name, arr):
        raise NotImplementedError("Must override it")

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0


def _builtin(core_class, defaults):
    """A Python class over a C++ initializer, recording its arguments (defaults included, as
    MXNet's do) for dumps()."""
    names = [name for name, _ in defaults]

    class Builtin(_Described, core_class):
        def __init__(self, *args, **kwargs):
            described = dict(defaults)
            described.update(zip(names, args))
            described.update(kwargs)
            core_class.__init__(self, **described)
            self._record(**described)

        def _call_by_name(self, name, arr):
            core_class.__call__(self, name, arr)

    Builtin.__name__ = Builtin.__qualname__ = core_class.__name__
    Builtin.__doc__ = core_class.__doc__
    return register(Builtin)


Uniform = _builtin(_C.Uniform, (("scale", 0.07),))
Normal = _builtin(_C.Normal, (("sigma", 0.01),))
Zero = _builtin(_C.Zero, ())
One = _builtin(_C.One, ())
Xavier = _builtin(_C.Xavier, (("rnd_type", "uniform"), ("factor_type", "avg"), ("magnitude", 3)))
MSRAPrelu = _builtin(_C.MSRAPrelu, (("factor_type", "avg"), ("slope", 0.25)))
Zeros, Ones = Zero, One
_registry["zeros"], _registry["ones"] = Zero, One


class Constant(_builtin(_C.Constant, (("value", None),))):
    """Fills with `value`: a number, or an array (NDArray, NumPy or a list) broadcast to the weight."""

    def __init__(self, value):
        self.value = value
        if isinstance(value, (list, tuple)):
            value = np.asarray(value, dtype=np.float32)
        if isinstance(value, np.ndarray):
            from .ndarray import array
            value = array(value, dtype=value.dtype if value.dtype in (np.float16, np.float64) else "float32")
        _C.Constant.__init__(self, value)
        self._record(value=self.value)

    def dumps(self):
        value = self._kwargs["value"]
        if not np.isscalar(value):
            self._kwargs["value"] = value.tolist() if isinstance(value, np.ndarray) else value.asnumpy().tolist()
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])


_registry["constant"] = Constant


@register
class Bilinear(Initializer):
    """Bilinear up-sampling kernels (for Deconvolution): the weight's last two axes."""

    def _init_weight(self, _, arr):
        shape = arr.shape
        weight = np.zeros(int(np.prod(shape)), dtype="float32")
        f = np.ceil(shape[3] / 2.)
        c = (2 * f - 1 - f % 2) / (2. * f)
        for i in range(weight.size):
            x = i % shape[3]
            y = (i // shape[3]) % shape[2]
            weight[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
        arr[:] = weight.reshape(shape)


@register
class Orthogonal(Initializer):
    """An orthogonal matrix (of the weight flattened to 2-d) times `scale`, from a uniform
    ('uniform') or normal ('normal') random matrix."""

    def __init__(self, scale=1.414, rand_type="uniform"):
        super(Orthogonal, self).__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = np.random.uniform(-1.0, 1.0, (nout, nin))
        elif self.rand_type == "normal":
            tmp = np.random.normal(0.0, 1.0, (nout, nin))
        else:
            raise ValueError("Orthogonal: rand_type must be 'uniform' or 'normal', got %r" % self.rand_type)
        u, _, v = np.linalg.svd(tmp, full_matrices=False)
        q = u if u.shape == tmp.shape else v
        arr[:] = (self.scale * q.reshape(arr.shape)).astype("float32")


@register
class LSTMBias(Initializer):
    """LSTM biases: zero except the forget gate's, which gets `forget_bias`."""

    def __init__(self, forget_bias=1.0):
        super(LSTMBias, self).__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, name, arr):
        arr[:] = 0.0
        num_hidden = int(arr.shape[0] / 4)
        arr[num_hidden:2 * num_hidden] = self.forget_bias


@register
class FusedRNN(Initializer):
    """The packed parameter vector of a fused RNN (mx.rnn.FusedRNNCell, the RNN operator): each
    unpacked weight by `init` (by the global initializer when None), LSTM forget-gate biases to
    `forget_bias`."""

    def __init__(self, init, num_hidden, num_layers, mode, bidirectional=False, forget_bias=1.0):
        if isinstance(init, str):
            klass, kwargs = json.loads(init)
            init = _registry[klass.lower()](**kwargs)
        super(FusedRNN, self).__init__(init=init.dumps() if init is not None else None, num_hidden=num_hidden,
                                       num_layers=num_layers, mode=mode, bidirectional=bidirectional,
                                       forget_bias=forget_bias)
        self._init = init
        self._cell_args = (num_hidden, num_layers, mode, bidirectional)
        self._forget_bias = forget_bias

    def _init_weight(self, desc, arr):
        from .rnn import rnn_cell
        cell = rnn_cell.FusedRNNCell(*self._cell_args, forget_bias=self._forget_bias, prefix="")
        args = cell.unpack_weights({"parameters": arr})
        global_init = getattr(desc, "global_init", None) or Uniform()
        for name in args:
            if self._cell_args[2] == "lstm" and name.endswith("_f_bias"):
                args[name][:] = self._forget_bias
            else:
                (self._init or global_init)(InitDesc(name, global_init=global_init), args[name])
        arr[:] = cell.pack_weights(args)["parameters"]


class Mixed(object):
    """The initializer of the first regular expression that the parameter's name matches."""

    def __init__(self, patterns, initializers):
        assert len(patterns) == len(initializers)
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr):
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError("Parameter name %s did not match any pattern. Consider adding a \".*\" pattern at the "
                         "end with default Initializer." % name)


class Load(object):
    """Values from a dict (or a .params file) by name ("arg:"/"aux:" prefixes dropped), else
    `default_init`."""

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            from .ndarray import load
            param = load(param)
        assert isinstance(param, dict)
        self.param = {}
        for name, arr in param.items():
            if name.startswith("arg:") or name.startswith("aux:"):
                self.param[name[4:]] = arr
            else:
                self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            assert arr.shape == self.param[name].shape, \
                "Parameter %s cannot be initialized from loading. Shape mismatch, target %s vs loaded %s" % (
                    name, str(arr.shape), self.param[name].shape)
            arr[:] = self.param[name]
            if self.verbose:
                logging.info("Initialized %s by loading", name)
        else:
            assert self.default_init is not None, \
                "Cannot Initialize %s. Not found in loaded param and no default Initializer is provided." % name
            self.default_init(name, arr)
            if self.verbose:
                logging.info("Initialized %s by default", name)


