#!/usr/bin/env python3
"""Lists the legacy operator names an MXNet source tree registers, the reference list
tests/conformance/mxnet_operators.txt is kept against.

    python3 tests/conformance/list_mxnet_operators.py MXNET_SOURCE_DIR > names.txt

Reads src/operator: every NNVM_REGISTER_OP(name) and MXNET_REGISTER_OP_PROPERTY(name, ...),
every .add_alias("name") (several may be chained on one line), and the names the registration
macros build from their arguments (MXNET_OPERATOR_REGISTER_SAMPLING(uniform, ...) registers
_sample_uniform and its alias sample_uniform). Left out, as the list's header says: the
NumPy-compatible family (_np*, _npi*, _npx*), gradient operators (_backward_*, *_backward),
quantization and subgraph backends.
"""
import os
import re
import sys

SKIPPED_DIRS = ("numpy", "quantization", "subgraph")
SKIPPED_PREFIXES = ("_np", "_backward_", "_contrib_quantize", "_contrib_dequantize", "_contrib_requantize",
                    "_contrib_quantized", "_sg_")
REGISTRATION = re.compile(r"\b(NNVM_REGISTER_OP|MXNET_REGISTER_OP_PROPERTY)\s*\(\s*([^,)]+)")
ALIAS = re.compile(r"\.add_alias\s*\(\s*((?:\"[^\"]*\"\s*(?:#\s*\w+\s*)?)+)\)")
DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)\s*\(([^)]*)\)(.*?)(?<!\\)$", re.M | re.S)


def sources(root):
    """(path, text) of every source file."""
    for folder, dirs, files in os.walk(os.path.join(root, "src", "operator")):
        dirs[:] = [d for d in dirs if d not in SKIPPED_DIRS]
        for name in files:
            if name.endswith((".cc", ".h", ".cu")):  # some operators exist in CUDA builds only
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                    yield name, f.read()


def join_continuations(text):
    return text.replace("\\\n", " ")


def name_expression(expr, params, args):
    """The name `expr` spells inside a macro body called with `args`: a parameter, a literal,
    or pieces joined with ## and # (stringizing)."""
    expr = expr.strip()
    if expr in params:
        return args[params.index(expr)]
    if "##" in expr:
        return "".join(name_expression(piece, params, args) for piece in expr.split("##"))
    return expr


def alias_literal(text, params=(), args=()):
    """The string of an add_alias argument: "sample_" #distr -> sample_<distr>."""
    out = ""
    for literal, stringized in re.findall(r"\"([^\"]*)\"|#\s*(\w+)", text):
        out += literal if not stringized else args[params.index(stringized)]
    return out


def macro_names(body, params, args, macros, depth=0):
    names = set()
    for _, expr in REGISTRATION.findall(body):
        if any(p in expr for p in params):
            names.add(name_expression(expr, params, args))
    for text in ALIAS.findall(body):
        if "#" in text:
            names.add(alias_literal(text, params, args))
    # A macro calling another with one of its parameters (MXNET_REGISTER_IMAGE_RND_AUG_OP).
    for inner, (inner_params, inner_body) in macros.items():
        for call in re.findall(r"\b%s\s*\(([^()]*)\)" % inner, body):
            inner_args = [name_expression(a, params, args) for a in call.split(",")]
            if depth < 4 and len(inner_args) >= len(inner_params):
                names |= macro_names(inner_body, inner_params, inner_args, macros, depth + 1)
    return names


def registration_macros(text):
    macros = {}
    for name, params, body in DEFINE.findall(text):
        if "NNVM_REGISTER_OP" in body or "add_alias" in body or "REGISTER" in body:
            macros[name] = ([p.strip() for p in params.split(",")], body)
    return macros


def operator_names(root):
    files = [(name, join_continuations(text)) for name, text in sources(root)]
    # Macros of headers serve every file; a .cc or .cu file's own may redefine them (pdf_op.cu).
    shared = {}
    for name, text in files:
        if name.endswith(".h"):
            shared.update(registration_macros(text))
    names = set()
    for _, text in files:
        macros = dict(shared, **registration_macros(text))
        body_free = DEFINE.sub("", text)
        for _, expr in REGISTRATION.findall(body_free):
            if re.fullmatch(r"\w+", expr.strip()):
                names.add(expr.strip())
        for literal in ALIAS.findall(body_free):
            names.add(alias_literal(literal))
        for macro, (params, body) in macros.items():
            for call in re.findall(r"\b%s\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)" % macro, body_free):
                args = [a.strip() for a in call.split(",")]
                if len(args) >= len(params):
                    names |= macro_names(body, params, args, macros)
    return sorted(n for n in names
                  if re.fullmatch(r"\w+", n) and not n.startswith(SKIPPED_PREFIXES) and "_backward" not in n)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    print("\n".join(operator_names(sys.argv[1])))
