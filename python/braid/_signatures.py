"""MXNet's generated operator functions (nd.<Op>, sym.<Op>): what they take by position after
the inputs (their attributes in MXNet's documented order), and the function made for an operator."""
from . import _core
from ._core import MXNetError

_POSITIONAL_ATTRIBUTES = {
    "clip": ("a_min", "a_max"), "one_hot": ("depth", "on_value", "off_value"),
    "reshape": ("shape",), "Reshape": ("shape",), "transpose": ("axes",),
    "sum": ("axis", "keepdims"), "mean": ("axis", "keepdims"), "max": ("axis", "keepdims"),
    "min": ("axis", "keepdims"), "prod": ("axis", "keepdims"), "argmax": ("axis", "keepdims"),
    "argmin": ("axis", "keepdims"), "norm": ("ord", "axis", "keepdims"),
    "slice_axis": ("axis", "begin", "end"), "slice": ("begin", "end", "step"), "crop": ("begin", "end", "step"), "expand_dims": ("axis",), "tile": ("reps",),
    "repeat": ("repeats", "axis"), "split": ("num_outputs", "axis", "squeeze_axis"),
    "concat": ("dim",), "stack": ("axis",), "flip": ("axis",), "reverse": ("axis",),
    "pick": ("axis", "keepdims"), "take": ("axis", "mode"), "broadcast_to": ("shape",),
    "softmax": ("axis",), "log_softmax": ("axis",), "topk": ("axis", "k"), "sort": ("axis",),
    "argsort": ("axis",), "squeeze": ("axis",), "swapaxes": ("dim1", "dim2"), "Cast": ("dtype",),
    "cast": ("dtype",), "LeakyReLU": ("act_type", "slope"), "Activation": ("act_type",), "Dropout": ("p",),
    "_sample_unique_zipfian": ("range_max", "shape"),
    "depth_to_space": ("block_size",), "space_to_depth": ("block_size",),
    "im2col": ("kernel", "stride", "dilate", "pad"), "col2im": ("output_size", "kernel", "stride", "dilate", "pad"),
    "_contrib_box_iou": ("format",), "_contrib_bipartite_matching": ("is_ascend", "threshold", "topk"),
    "_contrib_box_decode": ("std0", "std1", "std2", "std3", "clip", "format"),
}
for _name in ("_contrib_Proposal", "_contrib_MultiProposal"):
    _POSITIONAL_ATTRIBUTES[_name] = ("rpn_pre_nms_top_n", "rpn_post_nms_top_n", "threshold", "rpn_min_size", "scales",
                                     "ratios", "feature_stride", "output_score", "iou_loss")
for _op in ("brightness", "contrast", "saturation", "hue"):  # Gluon's transforms pass the range by position
    _POSITIONAL_ATTRIBUTES["_image_random_" + _op] = ("min_factor", "max_factor")
_POSITIONAL_ATTRIBUTES.update({"_image_random_color_jitter": ("brightness", "contrast", "saturation", "hue"),
                               "_image_adjust_lighting": ("alpha",), "_image_random_lighting": ("alpha_std",),
                               "_image_resize": ("size", "keep_ratio", "interp"),
                               "_image_crop": ("x", "y", "width", "height"),
                               "_image_normalize": ("mean", "std")})
for _name in ("_contrib_box_nms", "_contrib_box_non_maximum_suppression"):
    _POSITIONAL_ATTRIBUTES[_name] = ("overlap_thresh", "valid_thresh", "topk", "coord_start", "score_index", "id_index",
                                     "background_id", "force_suppress", "in_format", "out_format")
for _op, _params in (("normal", ("loc", "scale")), ("uniform", ("low", "high")), ("randint", ("low", "high"))):
    # MXNet's first names "uniform" and "normal" are aliases too; randint has none.
    for _name in ("random_" + _op, "_random_" + _op) + ((_op,) if _op != "randint" else ()):
        _POSITIONAL_ATTRIBUTES[_name] = _params + ("shape", "ctx", "dtype")


def positional_attributes(op):
    # MXNet's scalar operators (_plus_scalar, _scatter_minus_scalar, ...) take the scalar second
    return _POSITIONAL_ATTRIBUTES.get(op, ("scalar",) if op.endswith("_scalar") else ())


def operator_function(name, input_type, run, module):
    """nd.<name> or sym.<name>: inputs (``input_type``: a type or a tuple of them, alone or in lists) by position, then the
    positional attributes, keywords as given; ``run(name, inputs, kwargs)`` does the work."""
    attr_names = positional_attributes(name)

    def op(*args, **kwargs):
        inputs, extra = [], []
        for a in args:
            if isinstance(a, input_type):
                inputs.append(a)
            elif isinstance(a, (list, tuple)) and a and all(isinstance(x, input_type) for x in a):
                inputs.extend(a)
            else:
                extra.append(a)
        if not attr_names:  # as MXNet's generated functions: None is an optional input left out
            extra = [a for a in extra if a is not None]
        if len(extra) > len(attr_names):
            raise MXNetError("%s.%s: %d positional values that are not inputs (%r); give attributes by keyword"
                             % (module, name, len(extra), extra))
        kwargs.update(zip(attr_names, extra))
        return run(name, inputs, kwargs)

    op.__name__ = name
    op.__doc__ = _docstring(name, "Symbol" if "sym" in module else "NDArray")
    return op


def _docstring(name, array_word):
    """The operator's description, then its arguments as MXNet lists them."""
    lines = [_core.operator_doc(name), "", "Parameters", "----------"]
    for arg, kind in _core.operator_arguments(name):
        lines.append("%s : %s" % (arg, kind.replace("NDArray-or-Symbol", array_word)))
    return "\n".join(lines)


def lookup(module_globals, module, name, input_type, run, prefix=""):
    """A module's __getattr__: operator ``prefix + name`` as the function ``name``, made on first use
    and kept (``mx.nd.contrib.foo`` is operator ``_contrib_foo``)."""
    op = prefix + name
    if not name.startswith("__") and _core.operator_exists(op):
        fn = operator_function(op, input_type, run, module)
        fn.__name__ = name
        module_globals[name] = fn
        return fn
    raise AttributeError("module 'braid.%s' has no attribute or operator '%s'" % (module, name))


def split_v2_attributes(indices_or_sections, axis, squeeze_axis):
    """The attributes of operator _split_v2 for MXNet's split_v2(ary, indices_or_sections, ...): an
    int is a number of equal sections, a tuple the indices where parts after the first begin."""
    if isinstance(indices_or_sections, int):
        return {"indices": (), "sections": indices_or_sections, "axis": axis, "squeeze_axis": squeeze_axis}
    if isinstance(indices_or_sections, tuple):
        return {"indices": (0,) + indices_or_sections, "axis": axis, "squeeze_axis": squeeze_axis}
    raise ValueError("indices_or_sections must either int or tuple of ints")
