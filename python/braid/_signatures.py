"""What MXNet's generated operator functions (nd.<Op>, sym.<Op>) take by position after the
inputs: their attributes in MXNet's documented order."""

_POSITIONAL_ATTRIBUTES = {
    "clip": ("a_min", "a_max"), "one_hot": ("depth", "on_value", "off_value"),
    "reshape": ("shape",), "Reshape": ("shape",), "transpose": ("axes",),
    "sum": ("axis", "keepdims"), "mean": ("axis", "keepdims"), "max": ("axis", "keepdims"),
    "min": ("axis", "keepdims"), "prod": ("axis", "keepdims"), "argmax": ("axis", "keepdims"),
    "argmin": ("axis", "keepdims"), "norm": ("ord", "axis", "keepdims"),
    "slice_axis": ("axis", "begin", "end"), "expand_dims": ("axis",), "tile": ("reps",),
    "repeat": ("repeats", "axis"), "split": ("num_outputs", "axis", "squeeze_axis"),
    "concat": ("dim",), "stack": ("axis",), "flip": ("axis",), "reverse": ("axis",),
    "pick": ("axis", "keepdims"), "take": ("axis", "mode"), "broadcast_to": ("shape",),
    "softmax": ("axis",), "log_softmax": ("axis",), "topk": ("axis", "k"), "sort": ("axis",),
    "argsort": ("axis",), "squeeze": ("axis",), "swapaxes": ("dim1", "dim2"), "Cast": ("dtype",),
    "cast": ("dtype",), "LeakyReLU": ("act_type", "slope"), "Activation": ("act_type",),
}




def positional_attributes(op):
    return _POSITIONAL_ATTRIBUTES.get(op, ())
