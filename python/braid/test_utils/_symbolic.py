"""mxnet.test_utils: checks of a symbol's forward, backward and gradients (against expected values
or central finite differences)."""
import json

import numpy as _np

from .._core import NDArray
from ..ndarray import array
from ._comparison import assert_almost_equal, default_numeric_eps
from ._environment import default_context, default_dtype


def _parse_location(sym, location, ctx, dtype=default_dtype()):
    """{argument name: NDArray} from a list (in list_arguments order) or a dict of arrays."""
    names = sym.list_arguments()
    if isinstance(location, dict):
        unknown = set(location) - set(names)
        if unknown:
            raise ValueError("Symbol arguments and keys of the given location do not match. "
                             "symbol args:%s, location.keys():%s" % (names, sorted(location)))
    else:
        location = dict(zip(names, location))
    # As MXNet: NumPy arrays become NDArrays of `dtype` ("asnumpy": their own), NDArrays stay.
    return {k: array(v, ctx=ctx, dtype=v.dtype if dtype == "asnumpy" else dtype) if isinstance(v, _np.ndarray) else v
            for k, v in location.items()}


def _parse_aux_states(sym, aux_states, ctx, dtype=default_dtype()):
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if not isinstance(aux_states, dict):
        aux_states = dict(zip(names, aux_states))
    return {k: v.as_in_context(ctx) if isinstance(v, NDArray) else array(v, ctx=ctx, dtype=dtype)
            for k, v in aux_states.items()}


def _bind(sym, ctx, args, args_grad=None, grad_req="write", aux_states=None):
    return sym.bind(ctx, args, args_grad=args_grad, grad_req=grad_req, aux_states=aux_states)


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Binds sym to the NumPy inputs, runs a forward and returns the outputs as NumPy arrays (one
    array for one output)."""
    ctx = ctx or default_context()
    inputs = {k: array(v, ctx=ctx) for k, v in inputs.items()}
    exe = sym.bind(ctx, args=inputs)
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype()):
    """Binds sym to location (arrays by argument), runs a forward (not training) and compares every
    output with expected (a list, or a dict by output name). Returns the executor's outputs."""
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    args_grad = {k: v.copy() for k, v in location.items()}
    exe = sym.bind(ctx, args=location, args_grad=args_grad, aux_states=aux_states)
    exe.forward(is_train=False)
    for name, expect, output in zip(sym.list_outputs(), expected, exe.outputs):
        assert_almost_equal(expect, output.asnumpy(), rtol, atol, ("EXPECTED_%s" % name, "FORWARD_%s" % name),
                            equal_nan=equal_nan)
    return exe.outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=default_dtype()):
    """Binds sym to location, runs a forward (training) and a backward with out_grads, and compares
    the arguments' gradients with expected (a list in argument order or a dict by name; with
    grad_req 'add', gradients accumulate onto random initial values). grad_stypes gives gradient
    arrays other storage types (compressed ones start empty, as MXNet's). Returns the gradient
    arrays by name."""
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = {k: v for k, v in zip(sym.list_arguments(), expected)}
    args_grad_npy = {k: _np.random.normal(size=location[k].shape) for k in expected}
    # Gradients in their argument's dtype, which the executor computes them in (MXNet takes
    # `dtype`, converting where they differ).
    args_grad_data = {k: array(v, ctx=ctx, dtype=location[k].dtype) for k, v in args_grad_npy.items()}
    for k, stype in (grad_stypes or {}).items():
        if k in args_grad_data and stype not in (None, "default"):
            from ..ndarray import sparse
            args_grad_data[k] = sparse.zeros(stype, args_grad_npy[k].shape, ctx=ctx, dtype=location[k].dtype)
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = {k: v for k, v in zip(sym.list_arguments(), grad_req)}
    exe = sym.bind(ctx, args=location, args_grad=args_grad_data, aux_states=aux_states, grad_req=grad_req)
    exe.forward(is_train=True)
    # NumPy output gradients become NDArrays of `dtype` ("asnumpy": their own), as MXNet's.
    def as_grad(v):
        own = getattr(v, "dtype", None)
        return v if isinstance(v, NDArray) else array(v, ctx=ctx, dtype=own if dtype == "asnumpy" else dtype)
    if isinstance(out_grads, (tuple, list)):
        out_grads = [as_grad(v) for v in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = [as_grad(out_grads[k]) for k in sym.list_outputs()]
    elif isinstance(out_grads, _np.ndarray):
        out_grads = [as_grad(out_grads)]
    exe.backward(out_grads)
    grads = {k: v.asnumpy() for k, v in args_grad_data.items()}
    for name in expected:
        req = grad_req.get(name, "write")
        if req == "write":
            assert_almost_equal(expected[name], grads[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        elif req == "add":
            assert_almost_equal(expected[name], grads[name] - args_grad_npy[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        elif req == "null":
            assert_almost_equal(args_grad_npy[name], grads[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (req, name))
    return args_grad_data


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=default_dtype()):
    """Central finite differences of the sum of the executor's outputs with respect to each array
    of location ({name: NumPy array}); returns {name: gradient}."""
    for k, v in location.items():
        executor.arg_dict[k][:] = v
    approx_grads = {k: _np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        old_value = v.copy()
        for i in range(int(_np.prod(v.shape))):
            v.ravel()[i] = old_value.ravel()[i] + eps / 2.0
            executor.arg_dict[k][:] = v
            if aux_states is not None:
                for key, val in aux_states.items():
                    executor.aux_dict[key][:] = val
            executor.forward(is_train=use_forward_train)
            f_peps = sum(x.asnumpy().astype(_np.float64).sum() for x in executor.outputs)
            v.ravel()[i] = old_value.ravel()[i] - eps / 2.0
            executor.arg_dict[k][:] = v
            if aux_states is not None:
                for key, val in aux_states.items():
                    executor.aux_dict[key][:] = val
            executor.forward(is_train=use_forward_train)
            f_neps = sum(x.asnumpy().astype(_np.float64).sum() for x in executor.outputs)
            approx_grads[k].ravel()[i] = (f_peps - f_neps) / eps
            v.ravel()[i] = old_value.ravel()[i]
        executor.arg_dict[k][:] = old_value
    return approx_grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=default_dtype()):
    """Compares the symbol's backward with central finite differences, for a random projection of
    its outputs (MXNet's check: the outputs are multiplied by random weights and summed)."""
    from .. import symbol as _sym
    ctx = ctx or default_context()
    numeric_eps = numeric_eps if numeric_eps is not None else default_numeric_eps()[_np.dtype(dtype)]
    location = _parse_location(sym, location, ctx, dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_states_npy = {k: v.asnumpy() for k, v in aux_states.items()} if aux_states is not None else None
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
        grad_nodes = list(grad_nodes)
    else:
        raise ValueError("grad_nodes must be a list, a tuple or a dict")

    input_shape = {k: v.shape for k, v in location.items()}
    _, out_shape, _ = sym.infer_shape(**input_shape)
    proj = _sym.Variable("__random_proj")
    out = sym * proj
    out = _sym.make_loss(out)
    location = dict(list(location.items()) +
                    [("__random_proj", array(_np.random.normal(0, 0.01, size=out_shape[0]), ctx=ctx, dtype=dtype))])
    args_grad_npy = dict([(k, _np.random.normal(0, 0.01, size=location[k].shape)) for k in grad_nodes] +
                         [("__random_proj", _np.random.normal(0, 0.01, size=out_shape[0]))])
    args_grad = {k: array(v, ctx=ctx, dtype=dtype) for k, v in args_grad_npy.items()}
    grad_req["__random_proj"] = "write"
    executor = out.bind(ctx, args=location, args_grad=args_grad, grad_req=grad_req, aux_states=aux_states)
    inps = executor.arg_arrays
    if len(inps) != len(location):
        raise ValueError("Executor arg_arrays and and location len do not match. Got %d inputs and %d locations"
                         % (len(inps), len(location)))
    executor.forward(is_train=True)
    executor.backward()
    symbolic_grads = {k: executor.grad_dict[k].asnumpy() for k in grad_nodes}
    numeric_gradients = numeric_grad(executor, location_npy, aux_states_npy, eps=numeric_eps,
                                     use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        fd_grad = numeric_gradients[name]
        orig_grad = args_grad_npy[name]
        sym_grad = symbolic_grads[name]
        if grad_req[name] == "write":
            assert_almost_equal(fd_grad, sym_grad, rtol, atol, ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        elif grad_req[name] == "add":
            assert_almost_equal(fd_grad, sym_grad - orig_grad, rtol, atol,
                                ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        elif grad_req[name] == "null":
            assert_almost_equal(orig_grad, sym_grad, rtol, atol, ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (grad_req[name], name))


def same_symbol_structure(sym1, sym2):
    """True when the two symbols' graphs run the same operator at every node position (names,
    attributes and dtypes aside): what a graph pass such as AMP's conversion must keep."""
    nodes1 = json.loads(sym1.tojson())["nodes"]
    nodes2 = json.loads(sym2.tojson())["nodes"]
    return all(a["op"] == b["op"] for a, b in zip(nodes1, nodes2))
