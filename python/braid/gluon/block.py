"""gluon.Block and gluon.HybridBlock for user-defined models.

A subclass calls ``super().__init__(**kwargs)``, assigns its layers and parameters as attributes
(they are registered as children and parameters, as in MXNet) and defines ``forward(self, x,
...)``, or for a HybridBlock ``hybrid_forward(self, F, x, ..., **params)``. The C++ core calls
``forward`` back, so ``hybridize()`` traces it into a graph that later calls run without Python.

The blocks live in C++ (shared with the C++ layers); the parts of MXNet's Block API that are
Python by nature are added to every block here: forward hooks, attribute access to a layer's
parameters and children, MXNet's hybridize and save/load arguments, and the warnings MXNet gives.
"""
import collections
import warnings

from .. import ndarray as _nd
from .. import symbol as _sym
from .._core import gluon as _g
from .parameter import Parameter, _reset_trainers
from .utils import HookHandle
from . import _input_format, _model_file, _summary, _symbol_names
from ._block_scope import _BlockScope  # MXNet's private name, for code written against it
from ..util import is_np_array
from ..numpy.multiarray import as_np as _as_np
from . import _np_outputs

__all__ = ["Block", "HybridBlock", "SymbolBlock"]


def _setattr(self, name, value):
    existing = self.__dict__.get(name, None) if hasattr(self, "__dict__") else None
    if isinstance(existing, (_g.Parameter, _g.Block)) and not isinstance(value, type(existing)):
        raise TypeError("Changing attribute type for {name} from {type1} to {type2} is not allowed.".format(
            name=name, type1=type(existing), type2=type(value)))
    if isinstance(value, _g.Block):
        self.register_child(value, name)
    elif isinstance(value, _g.Parameter):
        self._register_attribute(name, value)
    object.__setattr__(self, name, value)


class _BlockMeta(type(_g.Block)):
    """Makes the C++ layers instances of gluon.Block and gluon.HybridBlock (``isinstance(nn.Dense(1),
    gluon.HybridBlock)``), as MXNet's layers are; subclasses defined in Python check as usual."""

    def __instancecheck__(cls, obj):
        core = cls.__dict__.get("_core_class")
        return isinstance(obj, core) if core is not None else super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub):
        core = cls.__dict__.get("_core_class")
        return issubclass(sub, core) if core is not None else super().__subclasscheck__(sub)


def _first_array(args, kind=_nd.NDArray):
    """The first ``kind`` (an NDArray) among ``args`` and the lists and tuples in them."""
    for a in args:
        if isinstance(a, kind):
            return a
        if isinstance(a, (list, tuple)):
            found = _first_array(a, kind)
            if found is not None:
                return found
    return None


class Block(_g.Block, metaclass=_BlockMeta):
    """A model or a part of one; subclasses define ``forward``."""

    _core_class = _g.Block

    def __init__(self, prefix=None, params=None):
        share = _g._share_parameters(params)  # params=: take parameters from that ParameterDict
        _g.Block.__init__(self, type(self).__name__.lower(), prefix)
        del share

    __setattr__ = _setattr


class HybridBlock(_g.HybridBlock, metaclass=_BlockMeta):
    """A block whose ``hybrid_forward(F, x, ...)`` uses only operators, so that it can be hybridized.
    ``F`` is ``braid.nd``; the block's parameters arrive as keyword arguments on the data's context."""

    _core_class = _g.HybridBlock

    def __init__(self, prefix=None, params=None):
        share = _g._share_parameters(params)  # params=: take parameters from that ParameterDict
        _g.HybridBlock.__init__(self, type(self).__name__.lower(), prefix)
        del share

    __setattr__ = _setattr

    def forward(self, x, *args):
        # A parameter whose shape is not known yet goes in as the Parameter itself: the first
        # operator it reaches completes its shape and initializes it (MXNet's deferred init).
        inputs = (x,) + args
        first = _first_array(inputs)
        if _first_array(inputs, _sym.Symbol) is not None:
            # Called on Symbols: hybrid_forward builds the graph, parameters as their variables.
            if first is not None:
                raise ValueError("%s: the inputs mix Symbols and NDArrays; give it all Symbols or all NDArrays"
                                 % type(self).__name__)
            params = {name: p.var() for name, p in self._attribute_params().items()}
            with _symbol_names.block_scope(self.prefix):
                return self.hybrid_forward(_sym, x, *args, **params)
        if first is None:
            raise ValueError("%s: hybrid_forward needs at least one NDArray input" % type(self).__name__)
        ctx = first.context
        params = {name: p if p._deferred else p.data(ctx) for name, p in self._attribute_params().items()}
        if not is_np_array():
            return self.hybrid_forward(_nd, x, *args, **params)
        # The mx.np interface: hybrid_forward works on mx.np arrays and must give only such arrays.
        params = {name: p if isinstance(p, Parameter) else _as_np(p) for name, p in params.items()}
        return _np_outputs.checked(self, self.hybrid_forward(_nd, _as_np(x), *_as_np(args), **params))

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError("%s must define hybrid_forward(self, F, x, ...) or forward(self, x, ...)"
                                  % type(self).__name__)


SymbolBlock = _g.SymbolBlock


# --- what every block gets (C++ layers included) -----------------------------------------------

def _getattr(self, name):
    """A layer's parameters and children by attribute name (``dense.weight``, ``bn.running_var``)."""
    if not name.startswith("__"):
        params = _g.Block._attribute_params(self)
        if name in params:
            return params[name]
        children = _children_of(self)
        if name in children:
            return children[name]
    raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))


def _hooks(self, kind):
    try:
        return self.__dict__[kind]
    except KeyError:
        hooks = self.__dict__[kind] = collections.OrderedDict()
        return hooks


def _add_hook(self, kind, hook):
    if not self.__dict__.get("_hooks_installed"):
        self._install_python_hooks()  # calls from C++ (a container's children) fire them too
        self.__dict__["_hooks_installed"] = True
    handle = HookHandle()
    handle.attach(_hooks(self, kind), hook)
    return handle


def _register_forward_pre_hook(self, hook):
    """Calls ``hook(block, inputs)`` before each forward; returns a handle whose detach() removes it."""
    return _add_hook(self, "_forward_pre_hooks", hook)


def _register_forward_hook(self, hook):
    """Calls ``hook(block, inputs, outputs)`` after each forward; returns a handle to detach it."""
    return _add_hook(self, "_forward_hooks", hook)


def _fire_forward_hooks(block, inputs, outputs, after):
    """The block's pre-hooks (``after`` false) or hooks, in the order they were registered."""
    hooks = block.__dict__.get("_forward_hooks" if after else "_forward_pre_hooks")
    for hook in list(hooks.values()) if hooks else ():
        if after:
            hook(block, inputs, outputs)
        else:
            hook(block, inputs)


_call = _g.Block.__call__


def _check_hybridized_inputs(block, args):
    """What a hybridized block accepts, as MXNet: NDArrays (or Symbols, or None) in nested lists,
    not both kinds, the arrays on one context (pinned CPU memory counts as the CPU)."""
    kinds, contexts = set(), set()
    for a in _input_format.leaves(args):
        if a is None:
            continue
        if isinstance(a, _nd.NDArray):
            kinds.add("NDArray")
            ctx = a.context
            contexts.add(("cpu", ctx.device_id) if ctx.device_type == "cpu_pinned" else (ctx.device_type, ctx.device_id))
        elif isinstance(a, _sym.Symbol):
            kinds.add("Symbol")
        else:
            raise ValueError("%s is hybridized: its inputs must be (nested lists of) NDArrays or Symbols, got %r of "
                             "type %s" % (block.name, a, type(a).__name__))
    if len(kinds) > 1:
        raise ValueError("%s: the inputs mix Symbols and NDArrays; give it all Symbols or all NDArrays" % block.name)
    if len(contexts) > 1:
        raise ValueError("Find multiple contexts in the input, After hybridized, the HybridBlock only supports one "
                         "input context. Find all contexts = %s" % sorted(contexts))


def _call_with_hooks(self, *args):
    hybridized = isinstance(self, _g.HybridBlock) and self._hybridized
    if hybridized:
        _check_hybridized_inputs(self, args)
    # A call on arrays reaches the C++ call, which fires the hooks; others (Symbols, Python
    # objects for a Python forward) fire them here.
    fire_here = not all(isinstance(a, _nd.NDArray) for a in args)
    if fire_here:
        _fire_forward_hooks(self, args, None, False)
    if hybridized:
        with _input_format.checked_call(self, args):
            out = _call(self, *args)
    else:
        out = _call(self, *args)
    if fire_here:
        _fire_forward_hooks(self, args, out, True)
    if not hybridized:
        out = _np_outputs.same_objects(out, args)
    return _as_np(out) if is_np_array() else out  # the core gives legacy arrays


_hybridize = _g.Block.hybridize


def _hybridize_kw(self, active=True, backend=None, clear=True, static_alloc=False, static_shape=False, inline_limit=2,
                  forward_bulk_size=None, backward_bulk_size=None, partition_if_dynamic=True, **kwargs):
    """Hybridizes this block's HybridBlocks (MXNet's arguments; inline_limit and the bulk sizes
    are hints Braid's cached graphs do not need)."""
    if backend is not None:
        raise ValueError("hybridize(backend=%r): Braid has no subgraph backends" % (backend,))
    d = getattr(self, "__dict__", {})
    if active and isinstance(self, _g.HybridBlock) and (d.get("_forward_hooks") or d.get("_forward_pre_hooks")):
        warnings.warn('"{block}" is being hybridized while still having forward hook/pre-hook. If "{block}" is a '
                      'child of HybridBlock, the hooks will not take effect.'.format(block=self))
    _hybridize(self, bool(active), static_alloc, static_shape)  # MXNet tests only its truth
    _input_format.forget(self, _children_of)


def _check_container_with_block(self):
    """MXNet's warning for blocks kept in a list, tuple or dict attribute: they are not registered."""
    children = set(id(c) for c in _children_of(self).values())

    def unregistered(data):
        if isinstance(data, (list, tuple)):
            return any(unregistered(e) for e in data)
        if isinstance(data, dict):
            return any(unregistered(v) for v in data.values())
        return isinstance(data, _g.Block) and id(data) not in children

    for k, v in getattr(self, "__dict__", {}).items():
        if isinstance(v, (list, tuple, dict)) and not k.startswith("_") and unregistered(v):
            warnings.warn('"{name}" is an unregistered container with Blocks. Note that Blocks inside the list, tuple '
                          'or dict will not be registered automatically. Make sure to register them using '
                          'register_child() or switching to nn.Sequential/nn.HybridSequential instead. '
                          .format(name=self.__class__.__name__ + "." + k), stacklevel=3)


_collect_params = _g.Block.collect_params


def _collect_params_checked(self, select=None):
    """Parameters of this block and its descendants; ``select`` a regular expression."""
    _check_container_with_block(self)
    return _collect_params(self, select or "")


_save_parameters = _g.Block.save_parameters


def _save_parameters_dedup(self, filename, deduplicate=False):
    """Saves the parameters by structural name; ``deduplicate`` saves a shared parameter once."""
    if not deduplicate:
        return _save_parameters(self, filename)
    first = {}
    for name, p in self._collect_params_with_prefix():
        first.setdefault(id(p), (name, p))
    _nd.save(filename, {name: p._reduce() for name, p in first.values()})


_load_parameters = _g.Block.load_parameters


def _load_parameters_kw(self, filename, ctx=None, allow_missing=False, ignore_extra=False, cast_dtype=False,
                        dtype_source="current"):
    """Loads parameters saved by save_parameters (or by name); with ``cast_dtype``,
    ``dtype_source`` says whose dtype wins: 'current' (the block's) or 'saved' (the file's)."""
    if dtype_source not in ("current", "saved"):
        raise ValueError("dtype_source must be 'current' or 'saved', got %r" % (dtype_source,))
    saved = _nd.load(filename)
    structural = self._collect_params_with_prefix()
    if saved and not any("." in name for name in saved) and not set(saved) <= set(name for name, _ in structural):
        # MXNet's legacy files (save_params): names as the parameters', less this block's prefix
        self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix, cast_dtype, dtype_source)
        return
    if not allow_missing and len(set(id(p) for _, p in structural)) < len(structural):
        # A file saved with deduplicate=True holds a shared parameter under one of its names.
        loaded = set(saved.keys())
        if any(name in loaded for name, _ in structural):
            names = collections.defaultdict(list)
            for name, p in structural:
                names[id(p)].append(name)
            for name, p in structural:
                if not any(n in loaded for n in names[id(p)]):
                    raise AssertionError("Parameter '%s' is missing in file '%s'. Set allow_missing=True to ignore "
                                         "missing parameters." % (name, filename))
            allow_missing = True
    if cast_dtype and dtype_source == "saved":
        by_name = dict(structural)
        by_name.update(self.collect_params().items())
        for key, value in saved.items():
            if key in by_name:
                by_name[key].cast(value.dtype)
    _load_parameters(self, filename, ctx, allow_missing, ignore_extra, cast_dtype)
    _reset_trainers(self.collect_params().values())


def _save_params(self, filename):
    """MXNet's deprecated save: the parameters by name, less this block's prefix (what
    load_params, or load_parameters, reads back)."""
    warnings.warn("save_params is deprecated. Please use save_parameters. Note that if you want load from "
                  "SymbolBlock later, please use export instead. For details, see "
                  "https://mxnet.apache.org/tutorials/gluon/save_load_params.html")
    self.collect_params().save(filename, strip_prefix=self.prefix)


def _load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
    """MXNet's deprecated load: load_parameters, which also reads save_params' files."""
    warnings.warn("load_params is deprecated. Please use load_parameters.")
    self.load_parameters(filename, ctx, allow_missing, ignore_extra)


_g.Block.__getattr__ = _getattr
_g.Block.__setattr__ = _setattr  # a container's block attribute is a child (net.fc2 = nn.Dense(...))
_g.Block.__call__ = _call_with_hooks
_g.Block.register_forward_pre_hook = _register_forward_pre_hook
_g.Block.register_forward_hook = _register_forward_hook
_g.Block.summary = _summary.summary
_g.Block.hybridize = _hybridize_kw
_g.Block.collect_params = _collect_params_checked
_g.Block.save_parameters = _save_parameters_dedup
_g.Block.load_parameters = _load_parameters_kw
_g.Block.save_params = _save_params
_g.Block.load_params = _load_params
_g.Block._check_container_with_block = _check_container_with_block
_g.Block.save = _model_file.save
_g.Block.load = _model_file.load


class _Children(collections.OrderedDict):
    """A block's children by name; assigning one registers it (MXNet's ``block._children[name] = child``)."""

    def __init__(self, block):
        super().__init__()
        for name, child in _children_of(block).items():
            collections.OrderedDict.__setitem__(self, name, child)
        self._block = block

    def __setitem__(self, name, child):
        self._block.register_child(child, name)
        super().__setitem__(name, child)


_children_of = _g.Block._children.fget
_g.Block._children = property(_Children)
_ = Parameter  # gluon.block exports what MXNet's does through parameter
