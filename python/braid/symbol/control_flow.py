"""mx.sym.contrib.foreach, while_loop and cond: MXNet's control flow as one graph node each
(operators _foreach, _while_loop, _cond) holding subgraphs, built by calling the Python functions
once on placeholder symbols. Symbols a function reads from outside (weights, earlier results)
become inputs of the node."""
from .. import _core
from ..attribute import AttrScope
from ..base import MXNetError
from ..ndarray.control_flow import _flatten, _python_scalar, _regroup
from .symbol import Symbol, Group, var, _create

__all__ = ["foreach", "while_loop", "cond"]



def _unique_scope(name):
    """A name for a new subgraph, numbered per name (within an enclosing subgraph, prefixed with
    its name and '$'), as MXNet names them."""
    outer = AttrScope.current.get(None).get("__subgraph_name__", "")
    if outer:
        name = outer + "$" + name
    count = AttrScope._subgraph_names[name]
    AttrScope._subgraph_names[name] += 1
    return "%s%d" % (name, count)


def _body(make, scope):
    """Calls make() while the symbols it creates are marked as the subgraph `scope`."""
    with AttrScope(__subgraph_name__=scope):
        return make()


def _cut(outputs, scope):
    """The subgraph of `outputs` made in `scope`, and {variable name: outside symbol} for what it
    reads from outside. An output given twice (a step output that is also the new state), or
    that is an input or was computed outside, is copied, so that every output of the subgraph is computed by it
    into an array of its own (and its gradient flows back through that copy)."""
    seen, distinct = set(), []
    with AttrScope(__subgraph_name__=scope):
        for out in outputs:
            key = out.list_outputs()[0]
            children = out.get_children()
            outside = children is None or len(children) == 0 or out.attr("__subgraph_name__") != scope
            copy = key in seen or outside
            distinct.append(_create("identity", [out], {}) if copy else out)
            seen.add(key)
    graph, cut = _core.symbol.cut_subgraph(Group(distinct), scope)
    return graph, dict(cut)


def _node_inputs(graph, cut, placeholders, what):
    """Where each placeholder feeds the subgraph, and the subgraph's other inputs: (locations of
    the placeholders, locations of the others, the symbols that feed the others)."""
    names = graph.list_inputs()
    for p in placeholders:
        if p.name not in names:  # AssertionError, as MXNet's: its callers catch that
            raise AssertionError("%s: the loop body does not use its input %s; every data array and state must "
                                 "be used" % (what, p.name))
    internals = graph.get_internals()
    own = {p.name for p in placeholders}
    remain_locs, remain = [], []
    for i, name in enumerate(names):
        if name in own:
            continue
        remain_locs.append(i)
        remain.append(cut[name] if name in cut else internals[name])
    return [names.index(p.name) for p in placeholders], remain_locs, remain


def foreach(body, data, init_states, name="foreach"):
    """``outputs, states = body(data[i], states)`` for every i along axis 0 of data, as one graph
    node: returns the step outputs stacked on a new axis 0, in body's format, and the last states.
    Symbols the body reads from outside it (weights, earlier results) become inputs of the node."""
    flat_data, data_fmt = _flatten(data, "foreach data", Symbol)
    flat_states, state_fmt = _flatten(init_states, "foreach init_states", Symbol)
    scope = _unique_scope(name)
    data_vars = [var("%s_data%d" % (scope, i)) for i in range(len(flat_data))]
    state_vars = [var("%s_state%d" % (scope, i)) for i in range(len(flat_states))]
    out, new_states = _body(lambda: body(_regroup(data_vars, data_fmt)[0], _regroup(state_vars, state_fmt)[0]),
                            scope)
    flat_out, out_fmt = _flatten(out, "foreach body's output", Symbol)
    flat_new, new_fmt = _flatten(new_states, "foreach body's states", Symbol)
    if new_fmt != state_fmt:
        raise MXNetError("foreach: the body returned states of another format than init_states")
    graph, cut = _cut(flat_out + flat_new, scope)
    locs, remain_locs, remain = _node_inputs(graph, cut, data_vars + state_vars, "foreach")
    data_locs, state_locs = locs[:len(data_vars)], locs[len(data_vars):]
    inputs = flat_data + flat_states + remain
    node = _create("_foreach", inputs, {
        "name": scope, "subgraph0": graph.tojson(), "num_args": len(inputs) + 1,
        "num_outputs": len(flat_out) + len(flat_new), "num_out_data": len(flat_out),
        "in_data_locs": data_locs, "in_state_locs": state_locs, "remain_locs": remain_locs})
    outputs = [node[i] for i in range(len(flat_out))]
    states = [node[len(flat_out) + i] for i in range(len(flat_new))]
    return _regroup(outputs, out_fmt)[0], _regroup(states, state_fmt)[0]


def _union_inputs(graphs, first=()):
    """The node's inputs for several subgraphs, each (graph, cut), those of `first` ((name,
    symbol) pairs: the loop variables) leading; and per subgraph, the node input feeding each of
    its inputs."""
    inputs, index = [sym for _, sym in first], {name: i for i, (name, _) in enumerate(first)}
    locations = []
    for graph, cut in graphs:
        internals = graph.get_internals()
        at = []
        for name in graph.list_inputs():
            if name not in index:
                index[name] = len(inputs)
                inputs.append(cut[name] if name in cut else internals[name])
            at.append(index[name])
        locations.append(at)
    return inputs, locations


def while_loop(cond, func, loop_vars, max_iterations=None, name="while_loop"):
    """While ``cond(*loop_vars)`` holds, for at most ``max_iterations`` steps,
    ``step_output, loop_vars = func(*loop_vars)``, as one graph node: returns the step outputs
    stacked on a new axis 0 and padded with zeros to ``max_iterations`` rows, and the final loop
    variables."""
    if max_iterations is None:
        raise ValueError("while_loop: max_iterations must be given")
    max_iterations = _python_scalar(max_iterations, int, "max_iterations")
    flat_vars, var_fmt = _flatten(loop_vars, "while_loop loop_vars", Symbol)
    if not flat_vars:
        raise ValueError("while_loop: loop_vars must hold at least one symbol")
    scope = name  # as MXNet: only the two subgraphs are numbered
    placeholders = [var("%s_var%d" % (scope, i)) for i in range(len(flat_vars))]
    grouped = _regroup(placeholders, var_fmt)[0]
    grouped = grouped if isinstance(grouped, list) else [grouped]

    cond_scope, func_scope = _unique_scope(name + "_cond"), _unique_scope(name + "_func")
    condition = _body(lambda: cond(*grouped), cond_scope)
    if not isinstance(condition, Symbol):
        raise ValueError("while_loop: cond must return a Symbol")

    def step():
        out, new_vars = func(*grouped)
        out = [] if out is None else list(out) if isinstance(out, tuple) else out
        new_vars = [] if new_vars is None else list(new_vars) if isinstance(new_vars, tuple) else new_vars
        return out, new_vars

    out, new_vars = _body(step, func_scope)
    flat_out, out_fmt = _flatten(out, "while_loop step output", Symbol)
    flat_new, _ = _flatten(new_vars, "while_loop loop_vars", Symbol)
    if len(flat_new) != len(flat_vars):
        raise ValueError("while_loop: func returned %d loop variables for %d" % (len(flat_new), len(flat_vars)))
    cond_graph = _cut([condition], cond_scope)
    func_graph = _cut(flat_out + flat_new, func_scope)
    inputs, (cond_locs, func_locs) = _union_inputs(
        [cond_graph, func_graph], [(p.name, v) for p, v in zip(placeholders, flat_vars)])
    func_names = func_graph[0].list_inputs()
    var_locs = []
    for i, p in enumerate(placeholders):
        if p.name not in func_names:
            raise ValueError("while_loop: loop variable %d is not used by func" % i)
        var_locs.append(func_names.index(p.name))
    node = _create("_while_loop", inputs, {
        "name": scope, "subgraph0": cond_graph[0].tojson(), "subgraph1": func_graph[0].tojson(),
        "num_args": len(inputs) + 2, "num_outputs": len(flat_out) + len(flat_new), "num_out_data": len(flat_out),
        "max_iterations": max_iterations, "cond_input_locs": cond_locs, "func_input_locs": func_locs,
        "func_var_locs": var_locs})
    outputs = [node[i] for i in range(len(flat_out))]
    final = [node[len(flat_out) + i] for i in range(len(flat_new))]
    return _regroup(outputs, out_fmt)[0] if flat_out else [], _regroup(final, var_fmt)[0]


def cond(pred, then_func, else_func, name="cond"):
    """``then_func()`` when the scalar symbol ``pred`` is nonzero, else ``else_func()``, as one
    graph node; both must return outputs of the same number and shapes."""
    scope = name  # as MXNet: only the three subgraphs are numbered
    graphs, formats = [], []
    for suffix, make in (("_pred", lambda: pred), ("_then", then_func), ("_else", else_func)):
        branch_scope = _unique_scope(name + suffix)
        outputs = _body(make, branch_scope)
        flat, fmt = _flatten(outputs, "cond output", Symbol)
        graphs.append(_cut(flat, branch_scope))
        formats.append((len(flat), fmt))
    if formats[0][0] != 1:
        raise ValueError("cond: pred must be a single symbol")
    if formats[1][0] != formats[2][0]:
        raise ValueError("cond: then_func gives %d outputs and else_func %d" % (formats[1][0], formats[2][0]))
    inputs, (pred_locs, then_locs, else_locs) = _union_inputs(graphs)
    node = _create("_cond", inputs, {
        "name": scope, "subgraph0": graphs[0][0].tojson(), "subgraph1": graphs[1][0].tojson(),
        "subgraph2": graphs[2][0].tojson(), "num_args": len(inputs) + 3, "num_outputs": formats[1][0],
        "cond_input_locs": pred_locs, "then_input_locs": then_locs,
        "else_input_locs": else_locs})
    return _regroup([node[i] for i in range(formats[1][0])], formats[1][1])[0]
