"""mx.viz: a network's layers as a table (``print_summary``) and as a Graphviz drawing
(``plot_network``), read from a Symbol's JSON graph the way MXNet's visualization module reads
it, so that both show what MXNet shows for the same network."""
import copy
import json
import re
import warnings

from .symbol import Symbol

__all__ = ["print_summary", "plot_network"]


def _numbers(text):
    """The integers written in an attribute such as ``"(3, 3)"``, as strings."""
    return re.findall(r"\d+", text)


def _output_key(node):
    """The name under which get_internals() lists the node's (first) output."""
    return node["name"] if node["op"] == "null" else node["name"] + "_output"


def _internal_outputs(symbol, infer, given, what):
    """Every internal output's shape (``infer`` = "infer_shape") or type, by output name."""
    internals = symbol.get_internals()
    _, outs, _ = getattr(internals, infer)(**given)
    if outs is None:
        raise ValueError("Input %s is incomplete" % what)
    return dict(zip(internals.list_outputs(), outs))


def _parameters(node, in_channels, shapes):
    """The parameter count MXNet's summary gives a layer: from the channels (first non-batch axis)
    of its inputs for Convolution and FullyConnected, from its output channels for BatchNorm (when
    shapes are known), from the table size for Embedding, 0 for the others."""
    op, attrs = node["op"], node.get("attrs", {})
    if op == "Convolution":
        count = in_channels * int(attrs["num_filter"]) // int(attrs.get("num_group", "1"))
        for k in _numbers(attrs["kernel"]):
            count *= int(k)
        return count if attrs.get("no_bias") == "True" else count + int(attrs["num_filter"])
    if op == "FullyConnected":
        hidden = int(attrs["num_hidden"])
        return in_channels * hidden if attrs.get("no_bias") == "True" else (in_channels + 1) * hidden
    if op == "BatchNorm":
        return 2 * int(shapes[node["name"] + "_output"][1]) if shapes is not None else 0
    if op == "Embedding":
        return int(attrs["input_dim"]) * int(attrs["output_dim"])
    return 0


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Prints the layers of ``symbol`` as a table: name (operator), output shape (with
    ``shape``, a dict of input name -> shape), parameter count and the layers it reads; then
    the total. ``positions`` are the columns' right edges, as fractions of ``line_length`` or
    in characters."""
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be Symbol")
    shapes = _internal_outputs(symbol, "infer_shape", shape, "shape") if shape is not None else None
    graph = json.loads(symbol.tojson())
    nodes = graph["nodes"]
    # As MXNet's: the numbers of the first head entry (node id, output index, version) are the
    # "heads" whose variables count as layers.
    heads = set(graph["heads"][0])
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields):
        line = ""
        for field, end in zip(fields, positions):
            line = (line + str(field))[:end]
            line += " " * (end - len(line))
        print(line)

    def shape_after(key):
        return shapes[key][1:] if shapes is not None and key in shapes else []

    print("_" * line_length)
    row(["Layer (type)", "Output Shape", "Param #", "Previous Layer"])
    print("=" * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node["op"] == "null" and i > 0:
            continue
        previous, in_channels = [], 0
        if node["op"] != "null":
            for entry in node["inputs"]:
                source = nodes[entry[0]]
                if source["op"] != "null" or entry[0] in heads:
                    previous.append(source["name"])
                    dims = shape_after(_output_key(source))
                    if dims:
                        in_channels += int(dims[0])
        out = shape_after(_output_key(node)) if node["op"] != "null" or i in heads else []
        count = _parameters(node, in_channels, shapes)
        total += count
        row(["%s(%s)" % (node["name"], node["op"]), "x".join(str(d) for d in out), count,
             previous[0] if previous else ""])
        for name in previous[1:]:
            row(["", "", "", name])
        print(("=" if i == len(nodes) - 1 else "_") * line_length)
    print("Total params: {}".format(total))
    print("_" * line_length)


_WEIGHT_SUFFIXES = ("_weight", "_bias", "_beta", "_gamma", "_moving_var", "_moving_mean", "_running_var",
                    "_running_mean")
# Fill colours by kind of node, as MXNet draws them.
_COLOURS = {"input": "#8dd3c7", "Convolution": "#fb8072", "FullyConnected": "#fb8072", "BatchNorm": "#bebada",
            "Activation": "#ffffb3", "LeakyReLU": "#ffffb3", "Pooling": "#80b1d3", "Concat": "#fdb462",
            "Flatten": "#fdb462", "Reshape": "#fdb462", "Softmax": "#b3de69", "other": "#fccde5"}


def _label(node):
    """The text of an operator's box: its operator and main settings."""
    op, attrs = node["op"], node.get("attrs", {})
    if op == "Convolution":
        stride = "x".join(_numbers(attrs["stride"])) if "stride" in attrs else "1"
        return "Convolution\n%s/%s, %s" % ("x".join(_numbers(attrs["kernel"])), stride, attrs["num_filter"])
    if op == "FullyConnected":
        return "FullyConnected\n%s" % attrs["num_hidden"]
    if op == "Activation":
        return "Activation\n%s" % attrs["act_type"]
    if op == "LeakyReLU":
        return "LeakyReLU\n%s" % attrs.get("act_type", "Leaky")
    if op == "Pooling":
        kernel = "x".join(_numbers(attrs["kernel"])) if "kernel" in attrs else "[]"
        stride = "x".join(_numbers(attrs["stride"])) if "stride" in attrs else "1"
        return "Pooling\n%s, %s/%s" % (attrs["pool_type"], kernel, stride)
    if op == "Custom":
        return attrs["op_type"]
    return node["name"]


def _edge_key(node):
    """The output an edge from ``node`` carries: a multi-output node's last one, as MXNet labels it."""
    key = _output_key(node)
    if node["op"] != "null" and "num_outputs" in node.get("attrs", {}):
        key += str(int(node["attrs"]["num_outputs"]) - 1)
    return key


def plot_network(symbol, title="plot", save_format="pdf", shape=None, dtype=None, node_attrs=None,
                 hide_weights=True):
    """A ``graphviz.Digraph`` of the graph computing ``symbol``: a box per operator, an oval per
    input, edges labelled with the shapes (``shape``: input name -> shape) and types (``dtype``:
    input name -> numpy type) when given. ``node_attrs`` (Graphviz attributes) override the
    boxes' defaults; ``hide_weights`` leaves out weights, biases and BatchNorm's statistics.
    Render with ``.render()`` or ``.view()``; needs the ``graphviz`` Python package
    (Debian: python3-graphviz)."""
    try:
        from graphviz import Digraph
    except ImportError as err:
        raise ImportError("Draw network requires graphviz library") from err
    if not isinstance(symbol, Symbol):
        raise TypeError("symbol must be a Symbol")
    shapes = _internal_outputs(symbol, "infer_shape", shape, "shape") if shape is not None else None
    types = _internal_outputs(symbol, "infer_type", dtype, "type") if dtype is not None else None
    nodes = json.loads(symbol.tojson())["nodes"]
    names = [node["name"] for node in nodes]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        warnings.warn("There are multiple variables with the same name in your graph, this may result in cyclic "
                      "graph. Repeated names: " + ",".join(repeated), RuntimeWarning)
    box = {"shape": "box", "fixedsize": "true", "width": "1.3", "height": "0.8034", "style": "filled"}
    box.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    hidden = set()
    for node in nodes:
        attr = copy.deepcopy(box)
        if node["op"] == "null":
            if node["name"].endswith(_WEIGHT_SUFFIXES):
                # Hidden, or (hide_weights=False) left to Graphviz to draw as a plain oval.
                if hide_weights:
                    hidden.add(node["name"])
                continue
            attr.update(shape="oval", fillcolor=_COLOURS["input"])
        else:
            attr["fillcolor"] = _COLOURS.get(node["op"], _COLOURS["other"])
        dot.node(name=node["name"], label=_label(node), **attr)
    for node in nodes:
        if node["op"] == "null":
            continue
        inputs = node["inputs"][:1] if node["op"] == "_contrib_BilinearResize2D" else node["inputs"]
        for entry in inputs:
            source = nodes[entry[0]]
            if source["name"] in hidden:
                continue
            label = ""
            if shapes is not None:
                label = "x".join(str(d) for d in shapes[_edge_key(source)][1:])
            if types is not None:
                label += "(%s)" % types[_edge_key(source)].__name__
            dot.edge(tail_name=node["name"], head_name=source["name"], dir="back", arrowtail="open", label=label)
    return dot
