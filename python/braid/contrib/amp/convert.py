"""AMP's graph conversion (MXNet's amp.convert_symbol, convert_model, convert_hybrid_block): a
float32 model turned into a mixed-precision one by casts inserted in its graph, ahead of time,
where ``amp.init()`` casts at each operator call.

Each operator node is handled by the list it is in (the lists of ``amp.lists.symbol_fp16`` or
``symbol_bf16`` unless given):

- target-dtype ops (``FP16_FUNCS``): every float input not already in the target dtype goes
  through ``amp_cast(dtype=target)``;
- float32 ops (``FP32_FUNCS``, and nodes named in ``excluded_sym_names``): every input not known to
  be float32 goes through ``amp_cast(dtype='float32')``;
- conditional float32 ops, when one of their attributes has one of the listed values: every
  input goes through ``amp_cast(dtype='float32')``;
- widest-type ops (``WIDEST_TYPE_CASTS``): when the dtypes of all the inputs are known, those
  narrower than the widest are cast to it; otherwise ``amp_multicast`` over all of them;
- any other operator runs in whatever dtype its inputs have; where they have several (known)
  float dtypes, those narrower than the widest are cast to it (Braid's operators compute in one
  dtype: a BatchNorm after a float16 convolution runs in float32, with its float32 statistics).

One cast of an entry to a dtype is made once and shared by every node that needs it. Inputs that
are not floating point (indices, labels) are never cast. With ``cast_optional_params``, a
parameter (an argument not in ``data_names``) read only by target-dtype ops is not cast in the
graph: its variable is declared in the target dtype, and ``convert_model`` casts its values.
"""
import json
import os
import tempfile

import numpy as _np

from ... import symbol as _sym
from ...context import cpu
from ...ndarray.utils import save as _save_params
from . import lists as _lists

__all__ = ["convert_symbol", "convert_model", "convert_hybrid_block", "convert_bucketing_module"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _list_module(target_dtype):
    if target_dtype == "float16":
        return _lists.symbol_fp16, _lists.symbol_fp16.FP16_FUNCS
    if target_dtype == "bfloat16":
        return _lists.symbol_bf16, _lists.symbol_bf16.BF16_FUNCS
    raise AssertionError("target_dtype must be float16 or bfloat16, got %r" % (target_dtype,))


def _check_lists(target_ops, fp32_ops, conditional_ops, widest_ops):
    """MXNet's rule: an operator is in one list at most."""
    conditional = {op for op, _, _ in conditional_ops}
    named = {"target_dtype_ops": set(target_ops), "fp32_ops": set(fp32_ops), "conditional_fp32_ops": conditional,
             "widest_type_casts": set(widest_ops)}
    keys = list(named)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            both = named[a] & named[b]
            assert not both, "AMP: %s are in both %s and %s; an operator may be in one list only" % (
                sorted(both), a, b)


def _conditional_match(node, conditional_ops):
    attrs = node.get("attrs", {})
    return any(node["op"] == op and str(attrs.get(attr)) in [str(v) for v in values]
               for op, attr, values in conditional_ops)


class _Rewriter:
    """The converted graph's node list, built node by node from the original one (MXNet's JSON)."""

    def __init__(self):
        self.nodes = []          # the converted graph's nodes
        self.where = {}          # old node id -> new node id
        self.dtype = {}          # (new node id, output) -> dtype name when known
        self.casts = {}          # ((new node id, output), dtype) -> new cast node id

    def add(self, node):
        self.nodes.append(node)
        return len(self.nodes) - 1

    def entry(self, old_input):
        return (self.where[old_input[0]], old_input[1])

    def cast(self, entry, dtype):
        key = (entry, dtype)
        if key not in self.casts:
            source = self.nodes[entry[0]]["name"]
            self.casts[key] = self.add({"op": "amp_cast", "name": "%s_amp_cast_%s" % (source, dtype),
                                        "attrs": {"dtype": dtype}, "inputs": [[entry[0], entry[1], 0]]})
            self.dtype[(self.casts[key], 0)] = dtype
        return (self.casts[key], 0)

    def is_float(self, entry):
        return self.dtype.get(entry, "float32") in _FLOATS


def convert_symbol(sym, target_dtype="float16", target_dtype_ops=None, fp32_ops=None, conditional_fp32_ops=None,
                   excluded_sym_names=None, data_names=None, cast_optional_params=False):
    """The symbol with AMP's casts inserted (module docstring). ``data_names``: the arguments that
    are data rather than parameters (used with ``cast_optional_params``)."""
    module, default_target = _list_module(target_dtype)
    target_ops = list(default_target if target_dtype_ops is None else target_dtype_ops)
    fp32 = list(module.FP32_FUNCS if fp32_ops is None else fp32_ops)
    conditional = list(module.CONDITIONAL_FP32_FUNCS if conditional_fp32_ops is None else conditional_fp32_ops)
    widest = list(module.WIDEST_TYPE_CASTS)
    _check_lists(target_ops, fp32, conditional, widest)
    excluded = set(excluded_sym_names or ())
    data = set(data_names or ())
    target_ops, fp32, widest = set(target_ops), set(fp32), set(widest)

    graph = json.loads(sym.tojson())
    arg_types, _, aux_types = sym.infer_type_partial()
    known = dict(zip(sym.list_arguments(), arg_types or []))
    known.update(zip(sym.list_auxiliary_states(), aux_types or []))
    r = _Rewriter()
    consumers = {}  # old variable id -> the ops reading it
    for node in graph["nodes"]:
        for i in node["inputs"]:
            consumers.setdefault(i[0], []).append(node)

    def target_only(old_id):
        node = graph["nodes"][old_id]
        return (cast_optional_params and node["op"] == "null" and node["name"] not in data and consumers.get(old_id)
                and all(c["op"] in target_ops and c["name"] not in excluded for c in consumers[old_id]))

    for old_id, node in enumerate(graph["nodes"]):
        new = dict(node)
        if node["op"] == "null":
            dtype = _dtype_name(known.get(node["name"])) or "float32"  # MXNet's arguments are float32 by default
            if target_only(old_id):
                new["attrs"] = dict(node.get("attrs", {}), __dtype__=str(_dtype_code(target_dtype)))
                dtype = target_dtype
            r.where[old_id] = r.add(new)
            r.dtype[(r.where[old_id], 0)] = dtype
            continue
        inputs = [r.entry(i) for i in node["inputs"]]
        op = node["op"]
        out_dtype = None
        if op in fp32 or node["name"] in excluded:
            inputs = [r.cast(e, "float32") if r.is_float(e) and r.dtype.get(e) != "float32" else e for e in inputs]
            out_dtype = "float32"
        elif op in target_ops:
            inputs = [r.cast(e, target_dtype) if r.is_float(e) and r.dtype.get(e) != target_dtype else e
                      for e in inputs]
            out_dtype = target_dtype
        elif _conditional_match(node, conditional):
            inputs = [r.cast(e, "float32") if r.is_float(e) else e for e in inputs]
            out_dtype = "float32"
        elif op in widest:
            floats = [e for e in inputs if r.is_float(e)]
            dtypes = {r.dtype.get(e) for e in floats}
            if None in dtypes and len(floats) > 1:
                multi = r.add({"op": "amp_multicast", "name": node["name"] + "_amp_multicast",
                               "attrs": {"num_outputs": str(len(floats))},
                               "inputs": [[e[0], e[1], 0] for e in floats]})
                slots = iter(range(len(floats)))
                inputs = [(multi, next(slots)) if r.is_float(e) else e for e in inputs]
            elif floats:
                widest_dtype = max(dtypes, key=_FLOATS.index) if None not in dtypes else None
                if widest_dtype is not None:
                    inputs = [r.cast(e, widest_dtype) if r.is_float(e) and r.dtype.get(e) != widest_dtype else e
                              for e in inputs]
                    out_dtype = widest_dtype
        else:  # either precision; Braid's operators take one float dtype, so mixed inputs meet at the widest
            dtypes = {r.dtype.get(e) for e in inputs if r.is_float(e)}
            if len(dtypes) > 1 and None not in dtypes:
                widest_dtype = max(dtypes, key=_FLOATS.index)
                inputs = [r.cast(e, widest_dtype) if r.is_float(e) and r.dtype.get(e) != widest_dtype else e
                          for e in inputs]
                dtypes = {widest_dtype}
            out_dtype = dtypes.pop() if len(dtypes) == 1 else None
        new["inputs"] = [[e[0], e[1], 0] for e in inputs]
        r.where[old_id] = r.add(new)
        for k in range(max(1, _output_count(node))):
            r.dtype[(r.where[old_id], k)] = out_dtype
    heads = [[r.where[h[0]], h[1], 0] for h in graph["heads"]]
    converted = {"nodes": r.nodes, "arg_nodes": [i for i, n in enumerate(r.nodes) if n["op"] == "null"],
                 "heads": heads, "attrs": graph.get("attrs", {})}
    return _sym.load_json(json.dumps(converted))


def _dtype_name(dtype):
    if dtype is None:
        return None
    dtype = _np.dtype(dtype)
    return "bfloat16" if dtype.names == ("bfloat16",) else dtype.name  # NumPy has no bfloat16: MXNet's stand-in


def _output_count(node):
    return int(node.get("attrs", {}).get("num_outputs", 1))


def _dtype_code(name):
    """MXNet's type code of a dtype name (the __dtype__ attribute of a variable)."""
    return {"float32": 0, "float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5, "int64": 6,
            "bool": 7, "bfloat16": 12}[name]


def _params_for(converted, arg_params, aux_params):
    """The parameters in the dtypes the converted symbol reads them in."""
    arg_types, _, aux_types = converted.infer_type_partial()
    wanted = dict(zip(converted.list_arguments(), arg_types or []))
    wanted.update(zip(converted.list_auxiliary_states(), aux_types or []))

    def retyped(params):
        out = {}
        for name, value in params.items():
            dtype = _dtype_name(wanted.get(name))
            out[name] = value.astype(dtype) if dtype is not None and _dtype_name(value.dtype) != dtype else value
        return out
    return retyped(arg_params), retyped(aux_params)


def convert_model(sym, arg_params, aux_params, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                  conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """(converted symbol, arg_params, aux_params): the symbol as convert_symbol makes it (the
    arguments without values are its data), and the parameters in the dtypes it expects (with
    ``cast_optional_params``, those read only by target-dtype ops in the target dtype)."""
    assert isinstance(sym, _sym.Symbol), "convert_model: sym must be a Symbol"
    data_names = [n for n in sym.list_inputs() if n not in arg_params and n not in aux_params]
    converted = convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, data_names, cast_optional_params)
    return (converted,) + _params_for(converted, arg_params, aux_params)


def convert_hybrid_block(block, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                         conditional_fp32_ops=None, excluded_sym_names=None, ctx=cpu(), cast_optional_params=False):
    """A SymbolBlock running ``block``'s graph converted as convert_model does, with its
    parameters on ``ctx``. The block must be hybridized and have run once (its graph is known)."""
    from ...gluon import SymbolBlock
    from ...model import load_checkpoint
    with tempfile.TemporaryDirectory(prefix="braid-amp-") as folder:
        prefix = os.path.join(folder, "block")
        block.export(prefix)
        sym, arg_params, aux_params = load_checkpoint(prefix, 0)
        data_names = [n for n in sym.list_inputs() if n not in arg_params and n not in aux_params]
        converted, arg_params, aux_params = convert_model(sym, arg_params, aux_params, target_dtype,
                                                          target_dtype_ops, fp32_ops, conditional_fp32_ops,
                                                          excluded_sym_names, cast_optional_params)
        converted.save(prefix + "-amp-symbol.json")
        params = {"arg:" + k: v for k, v in arg_params.items()}
        params.update({"aux:" + k: v for k, v in aux_params.items()})
        _save_params(prefix + "-amp-0000.params", params)
        return SymbolBlock.imports(prefix + "-amp-symbol.json", data_names, prefix + "-amp-0000.params", ctx=ctx)



def convert_bucketing_module(bucketing_mod, target_dtype="float16", target_dtype_ops=None, fp32_ops=None,
                             conditional_fp32_ops=None, excluded_sym_names=None, cast_optional_params=False):
    """A BucketingModule whose every bucket's symbol is converted as convert_symbol does (its data
    and label names are the data), holding the trained module's parameters in the dtypes the
    converted default bucket reads; bind it, then run it. The module must have parameters."""
    from ...module import BucketingModule
    assert bucketing_mod.params_initialized, "convert_bucketing_module: the module has no parameters yet"
    arg_params, aux_params = bucketing_mod.get_params()

    def sym_gen(bucket_key):
        sym, data_names, label_names = bucketing_mod._call_sym_gen(bucket_key)
        inputs = list(data_names or []) + list(label_names or [])
        return (convert_symbol(sym, target_dtype, target_dtype_ops, fp32_ops, conditional_fp32_ops,
                               excluded_sym_names, inputs, cast_optional_params), data_names, label_names)

    converted = BucketingModule(sym_gen, bucketing_mod._default_bucket_key, logger=bucketing_mod.logger,
                                context=bucketing_mod._context, work_load_list=bucketing_mod._work_load_list,
                                fixed_param_names=bucketing_mod._fixed_param_names,
                                state_names=bucketing_mod._state_names, group2ctxs=bucketing_mod._group2ctxs,
                                compression_params=bucketing_mod._compression_params)
    default_symbol = converted._call_sym_gen(bucketing_mod._default_bucket_key)[0]
    converted._arg_params, converted._aux_params = _params_for(default_symbol, arg_params, aux_params)
    converted.params_initialized = True  # bind() sets them on the bound module
    return converted
