"""mxnet.symbol.symbol: the Symbol class (a C++ graph handle) with MXNet's Python behaviour:
naming by the current NameManager, attributes of the current AttrScope, MXNet's hidden attribute
keys, arithmetic and fluent methods, composition by calling, pickling, and shape and type
inference that spells unknowns as MXNet's current shape mode does."""
import json
import warnings

from .. import _core
from .._core.symbol import Symbol
from ..executor import Executor
from ..attribute import AttrScope
from ..base import MXNetError, NotImplementedForSymbol
from ..name import NameManager
from ..util import is_np_shape
from ._input_inits import set_input_inits

__all__ = ["Symbol", "Variable", "var", "Group", "load", "load_json", "Executor"]

# Attributes MXNet stores as __key__ whatever spelling they are given in (lr_mult=2 on an
# operator or a variable becomes __lr_mult__); listings show them under both spellings.
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")
_STORAGE_TYPES = {"default": 0, "row_sparse": 1, "csr": 2}


def _stored_key(key, value, exact):
    """The key under which MXNet stores attribute ``key`` (exact: only the bare hidden key is
    rewritten, as Symbol._set_attr does; otherwise any key starting with one, as operators do)."""
    for hidden in _HIDDEN_KEYS:
        pos = key.rfind(hidden)
        if pos == 0 and (not exact or key == hidden):
            return "__%s__" % key
        if pos > 0 and pos == len(key) - len(hidden):
            raise MXNetError("setting variable attributes with %s is deprecated. please instead use\n"
                             "w = Variable(%s=%s)\nsym = YourSymbolName(%s=w)" % (key, hidden, value, key[:pos - 1]))
    return key


def _with_bare_hidden_keys(attrs):
    """``attrs`` plus each stored hidden key (__lr_mult__) under its bare name too (lr_mult)."""
    out = dict(attrs)
    for key, value in attrs.items():
        if key.startswith("__") and key.endswith("__") and key[2:-2] in _HIDDEN_KEYS:
            out[key[2:-2]] = value
    return out


def _create(op, inputs, kwargs, hint=None):
    """Node ``op`` over ``inputs``: named by NameManager.current (hint: the function's name in
    lower case), with AttrScope.current's attributes and ``attr=`` ones; Symbol keywords are
    inputs by argument name."""
    kwargs = dict(kwargs)
    attrs = AttrScope.current.get(kwargs.pop("attr", None))
    kwargs.update(attrs)
    name = NameManager.current.get(kwargs.pop("name", None), hint or op.lower())
    kwargs.pop("out", None)
    params = {}
    for key, value in kwargs.items():
        if isinstance(value, Symbol):
            params[key] = value
        elif value is not None:
            params[_stored_key(key, value, False)] = value
        else:  # an input left out, or an attribute MXNet passes on as "None" (make_symbol tells which)
            params[key] = None
    params["name"] = name
    out = _core.symbol.make(op, list(inputs), params)
    set_input_inits(op, out)
    return out


def Variable(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None, stype=None,
             profiler_scope=None, **kwargs):
    """A placeholder (an argument of the graph). ``shape``/``dtype`` help inference; ``lr_mult``,
    ``wd_mult`` and ``init`` are read by Module and Gluon; extra keywords must be ``__name__``."""
    if not isinstance(name, str):
        raise TypeError("Variable: the name must be a string, got %r" % (name,))
    attrs = dict(AttrScope.current.get(attr))
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else (init.dumps() if hasattr(init, "dumps") else repr(init))
    if stype is not None:
        attrs["__storage_type__"] = str(_STORAGE_TYPES[stype])
    if profiler_scope is not None:
        attrs["__profiler_scope__"] = profiler_scope
    for key, value in kwargs.items():
        if not (key.startswith("__") and key.endswith("__")):
            raise ValueError("Attribute name=%s is not supported. Additional attributes must start and end "
                             "with double underscores, e.g, __yourattr__" % key)
        attrs[key] = str(value)
    attrs = {_stored_key(k, v, True): v for k, v in attrs.items()}
    if shape is not None:
        shape = _known_shape(shape)
    return _core.symbol.Variable(name, attr=attrs, shape=shape, dtype=dtype)


var = Variable


def Group(symbols, create_fn=None):
    """One symbol with the outputs of all ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return _core.symbol.Group(list(symbols))


def load(fname):
    """A symbol from MXNet's JSON file (any 1.x version)."""
    if not isinstance(fname, str):
        raise TypeError("fname needs to be a string")
    return _core.symbol.load(fname)


def load_json(json_str):
    """A symbol from MXNet's JSON text."""
    if not isinstance(json_str, str):
        raise TypeError("json_str needs to be a string")
    return _core.symbol.load_json(json_str)


# --- shapes in MXNet's two spellings ------------------------------------------------------------
# The core marks an unknown dimension 0 and an unknown shape None. Legacy mode spells them 0 and
# (); NumPy shape mode (mx.np_shape) -1 and None.

def _known_shape(shape):
    """A shape given from Python as shape inference reads it: an unknown dimension is 0, or -1
    under NumPy shape semantics (where 0 is an empty extent)."""
    if isinstance(shape, int):
        shape = (shape,)
    unknown = -1 if is_np_shape() else 0
    return tuple(unknown if d is None or d < 0 else d for d in shape)


def _spelled_shape(shape):
    if is_np_shape():
        return shape
    return () if shape is None else shape


def _complete(shape):
    return shape is not None and (-1 if is_np_shape() else 0) not in shape


def _by_name(sym, args, kwargs, what):
    if args and kwargs:
        raise ValueError("%s: give the known values by position or by name, not both" % what)
    if args:
        names = sym.list_arguments()
        if len(args) > len(names):
            raise ValueError("%s: %d values for %d arguments" % (what, len(args), len(names)))
        return {n: a for n, a in zip(names, args) if a is not None}
    return {k: v for k, v in kwargs.items() if v is not None}


def _infer_shape_raw(self, args, kwargs):
    known = {k: _known_shape(v) for k, v in _by_name(self, args, kwargs, "infer_shape").items()}
    return self._infer_shape_partial(**known)


def infer_shape_partial(self, *args, **kwargs):
    """Shapes of the arguments, outputs and aux states, unknown ones left unknown."""
    return tuple([_spelled_shape(s) for s in part] for part in _infer_shape_raw(self, args, kwargs))


def infer_shape(self, *args, **kwargs):
    """Shapes of the arguments, outputs and aux states; (None, None, None) with a warning when
    the given shapes do not decide them all. Conflicting shapes raise MXNetError."""
    raw = _infer_shape_raw(self, args, kwargs)
    if all(_complete(s) for part in raw for s in part):
        return tuple([_spelled_shape(s) for s in part] for part in raw)
    unknowns = ["%s: %s" % (n, _spelled_shape(s))
                for n, s in zip(self.list_arguments(), raw[0]) if not _complete(s)]
    warnings.warn("Cannot decide shape for the following arguments (0s in shape means unknown dimensions). "
                  "Consider providing them as input:\n\t" + "\n\t".join(unknowns[:10]), stacklevel=2)
    return (None, None, None)


def infer_type_partial(self, *args, **kwargs):
    """Dtypes (NumPy types) of the arguments, outputs and aux states; None where unknown."""
    return self._infer_type(**_by_name(self, args, kwargs, "infer_type"))


def infer_type(self, *args, **kwargs):
    """As infer_type_partial, but (None, None, None) unless every dtype is decided."""
    res = infer_type_partial(self, *args, **kwargs)
    if any(t is None for part in res for t in part):
        return (None, None, None)
    return res


# --- attributes -----------------------------------------------------------------------------

def attr(self, key):
    """The attribute ``key`` of this node (a hidden key also by its bare name), or None."""
    value = self._attr(key)
    if value is None and key in _HIDDEN_KEYS:
        value = self._attr("__%s__" % key)
    return value


def list_attr(self, recursive=False):
    """This node's attributes; hidden keys also under their bare names."""
    if recursive:
        raise DeprecationWarning("Symbol.list_attr with recursive=True has been deprecated. "
                                 "Please use attr_dict instead.")
    return _with_bare_hidden_keys(self._list_attr())


def attr_dict(self):
    """node name -> its attributes, for every node of the graph with any."""
    return {name: _with_bare_hidden_keys(a) for name, a in self._attr_dict().items()}


def _set_attr(self, **kwargs):
    """Sets string attributes of this node (lr_mult and the other hidden keys as __key__)."""
    for key, value in kwargs.items():
        if not isinstance(value, str):
            raise ValueError("Set Attr only accepts string values")
        self._set_attr_core(**{_stored_key(key, value, True): value})


# --- composition, copies and the rest of MXNet's Symbol protocol ----------------------------

def _call(self, *args, **kwargs):
    """A copy with argument variables replaced: by position (list_arguments order) or by name;
    ``name`` renames the copy's head node."""
    name = kwargs.pop("name", None) or ""
    for s in list(args) + list(kwargs.values()):
        if not isinstance(s, Symbol):
            raise TypeError("Compose expects Symbols as inputs, got %r" % (s,))
    return self._compose(list(args), kwargs, name)


def _bool(self):
    raise NotImplementedForSymbol(_bool, "bool")


def _copy(self):
    return load_json(self.tojson())


def _deepcopy(self, memo):
    return load_json(self.tojson())


def _eval(self, ctx=None, **kwargs):
    """Binds to the given arrays and runs a forward: the outputs."""
    from ..context import current_context
    return self.bind(ctx or current_context(), kwargs).forward()


def tojson(self, remove_amp_cast=True):
    """MXNet 1.9's JSON of the graph (with is_np_shape under NumPy shape semantics)."""
    return self._tojson(np_shape=is_np_shape())


def save(self, fname, remove_amp_cast=True):
    """tojson written to file ``fname``."""
    self._save(fname, np_shape=is_np_shape())


def _gen_atomic_symbol(self):
    """A new node of this symbol's operator with its attributes, and variables for its inputs
    (MXNet's MXGenAtomicSymbolFromSymbol)."""
    graph = json.loads(self._tojson(np_shape=False))
    nodes = {h[0] for h in graph["heads"]}
    node = graph["nodes"][nodes.pop()] if len(nodes) == 1 else None
    if node is None or node["op"] == "null":
        raise MXNetError("_gen_atomic_symbol: the symbol must be the outputs of one operator node")
    params = dict(node.get("attrs", {}))
    params["name"] = NameManager.current.get(None, node["op"].lower())
    return _core.symbol.make(node["op"], [], params)


def _astype(self, dtype):
    return _create("cast", [self], {"dtype": dtype})


def _install():
    Symbol.infer_shape = infer_shape
    Symbol.infer_shape_partial = infer_shape_partial
    Symbol.infer_type = infer_type
    Symbol.infer_type_partial = infer_type_partial
    Symbol.attr = attr
    Symbol.list_attr = list_attr
    Symbol.attr_dict = attr_dict
    Symbol._set_attr_core = Symbol.__dict__["_set_attr"]
    Symbol._set_attr = _set_attr
    Symbol.__call__ = _call
    Symbol.__bool__ = _bool
    Symbol.__copy__ = _copy
    Symbol.__deepcopy__ = _deepcopy
    Symbol.eval = _eval
    Symbol.astype = _astype
    Symbol._gen_atomic_symbol = _gen_atomic_symbol
    Symbol.tojson = tojson
    Symbol.save = save


_install()
