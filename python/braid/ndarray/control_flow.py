"""mx.nd.contrib.foreach, while_loop and cond: MXNet's control flow on NDArrays, run as the Python
loops and branches they describe, so autograd records every step like any imperative code.

In a hybridized block's first call, which records the operators it runs into a graph, such a loop
would be recorded with this call's trip count (or branch): the block is told so and keeps running
its forward instead of a recorded graph, with a warning. mx.sym.contrib's forms build real
control-flow nodes for graphs."""
import warnings

from .. import _core
from ..base import MXNetError
from .ndarray import NDArray

__all__ = ["foreach", "while_loop", "cond"]


def _flatten(value, what, leaf=NDArray):
    """The leaves (NDArrays, or Symbols) of a nested list, and its format (0: one leaf; a list: one
    format per item)."""
    if isinstance(value, leaf):
        return [value], 0
    if not isinstance(value, (list, tuple)):
        raise MXNetError("%s must be an %s or a (nested) list of them; got %s"
                         % (what, leaf.__name__, type(value).__name__))
    arrays, fmt = [], []
    for item in value:
        flat, item_fmt = _flatten(item, what, leaf)
        arrays.extend(flat)
        fmt.append(item_fmt)
    return arrays, fmt


def _regroup(arrays, fmt):
    """The nested list of `fmt` from the flat `arrays`; returns it and the arrays left over."""
    if fmt == 0:
        return arrays[0], arrays[1:]
    grouped = []
    for item_fmt in fmt:
        item, arrays = _regroup(arrays, item_fmt)
        grouped.append(item)
    return grouped, arrays


def _python_scalar(value, to, what):
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return to(value)
    except (TypeError, ValueError):
        raise ValueError("cannot convert %s to a Python %s" % (what, to.__name__)) from None


def _not_replayable(what, subgraphs):
    """Tells a hybridized block being traced that its graph cannot hold this Python control flow.
    The subgraph names MXNet's symbolic form would number there are counted as it counts them
    (AttrScope._subgraph_names)."""
    if _core.gluon._tracing():
        from ..attribute import AttrScope
        for subgraph in subgraphs:
            AttrScope._subgraph_names[subgraph] += 1
        _core.gluon._trace_cannot_replay(what)
        warnings.warn("mx.nd.contrib.%s in a hybridized block: the block runs its forward on every call instead "
                      "of a recorded graph (the loop or branch is Python code); build it with mx.sym.contrib.%s "
                      "for a graph" % (what, what), stacklevel=3)


def _stack(steps, what):
    """Per output position, the steps' arrays stacked on a new first axis."""
    from .. import ndarray as _nd
    stacked = []
    for position, items in enumerate(zip(*steps)):
        shapes = {x.shape for x in items}
        if len(shapes) > 1:
            raise ValueError("%s: output %d has different shapes at different steps: %s"
                             % (what, position, ", ".join(str(x.shape) for x in items)))
        stacked.append(_nd.stack(*items, axis=0))
    return stacked


def foreach(body, data, init_states, name="foreach"):
    """Runs ``outputs, states = body(data[i], states)`` for every i along the first axis of data
    (an NDArray or a nested list of them, sliced together), starting from ``init_states``;
    returns the steps' outputs stacked on a new first axis, in body's format, and the last states."""
    _not_replayable("foreach", [name])
    flat_data, data_fmt = _flatten(data, "foreach data")
    _flatten(init_states, "foreach init_states")
    steps = flat_data[0].shape[0]
    if any(d.shape[0] != steps for d in flat_data):
        raise ValueError("foreach: the data arrays differ in length along axis 0: %s"
                         % ", ".join(str(d.shape) for d in flat_data))
    states, outputs, out_fmt = init_states, [], None
    for i in range(steps):
        step_data, _ = _regroup([d[i] for d in flat_data], data_fmt)
        step_out, states = body(step_data, states)
        flat_out, out_fmt = _flatten(step_out, "foreach body's output")
        outputs.append(flat_out)
    if out_fmt is None:  # no steps: body's output format is unknown
        return [], states
    stacked, _ = _regroup(_stack(outputs, "foreach"), out_fmt)
    return stacked, states


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """While ``cond(*loop_vars)`` holds and fewer than ``max_iterations`` steps ran, runs
    ``step_output, loop_vars = func(*loop_vars)``. Returns the step outputs stacked on a new
    first axis and padded to ``max_iterations`` rows (the padding is left uninitialized, as in
    MXNet), and the final loop variables (an NDArray when ``loop_vars`` was one)."""
    from .. import ndarray as _nd
    _not_replayable("while_loop", [name + "_cond", name + "_func"])
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations must be given")
    max_iterations = _python_scalar(max_iterations, int, "max_iterations")
    single = isinstance(loop_vars, NDArray)
    loop_vars = [loop_vars] if single else list(loop_vars)
    if not loop_vars:
        raise ValueError("while_loop: loop_vars must hold at least one array")
    outputs, out_fmt = [], None
    while len(outputs) < max_iterations and _python_scalar(cond(*loop_vars), bool, "cond's result"):
        step_output, new_vars = func(*loop_vars)
        step_output = [] if step_output is None else step_output
        new_vars = [] if new_vars is None else new_vars
        new_vars = [new_vars] if isinstance(new_vars, NDArray) else list(new_vars)
        if len(new_vars) != len(loop_vars):
            raise ValueError("while_loop: func returned %d loop variables for %d" % (len(new_vars), len(loop_vars)))
        loop_vars = new_vars
        flat, fmt = _flatten(list(step_output) if isinstance(step_output, tuple) else step_output,
                             "while_loop step output")
        if outputs and len(flat) != len(outputs[0]):
            raise ValueError("while_loop: step outputs must have the same number of arrays at every step")
        outputs.append(flat)
        out_fmt = fmt
    stacked = []
    if outputs:
        steps = len(outputs)
        for item in _stack(outputs, "while_loop"):
            if steps < max_iterations:
                pad = _nd.empty((max_iterations - steps,) + item.shape[1:], ctx=item.context, dtype=item.dtype)
                item = _nd.concat(item, pad, dim=0)
            stacked.append(item)
        stacked, _ = _regroup(stacked, out_fmt)
    return stacked, loop_vars[0] if single else loop_vars


def cond(pred, then_func, else_func, name="cond"):
    """``then_func()`` when the scalar ``pred`` is nonzero, else ``else_func()``."""
    _not_replayable("cond", [name + "_pred", name + "_then", name + "_else"])
    return then_func() if _python_scalar(pred, bool, "pred") else else_func()
