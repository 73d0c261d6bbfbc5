"""The initializers operators give their variable inputs (MXNet's FSetInputVarAttrOnCompose): a
variable that comes in without an ``__init__`` attribute gets the operator's, which Module's and
Gluon's initialization then use (PReLU's gamma starts at 0.25, not at 1 as other gammas)."""

__all__ = ["set_input_inits"]

# operator -> {input position: initializer as MXNet's JSON}
_INPUT_INITS = {
    "LeakyReLU": {1: '["Constant", {"value": 0.25}]'},
}


def set_input_inits(op, sym):
    """Gives the variable inputs of the node ``sym`` (just made by operator ``op``) the
    operator's initializers, where they have none."""
    inits = _INPUT_INITS.get(op)
    if not inits:
        return
    inputs = sym.get_children()
    count = 0 if inputs is None else len(inputs.list_outputs())
    for position, init in inits.items():
        if position < count:
            var = inputs[position]
            if var.get_children() is None and var.attr("__init__") is None:
                var._set_attr(__init__=init)
